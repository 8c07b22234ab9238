// A data adapter as a plugin: on its schedule (polling with jitter, a manual trigger, or an
// early refresh after a push notification) it reads its API and activates the document as
// a data-only bundle at its root, with a bundle's guarantees: one atomic activation, the
// last good document kept on any failure (persisted when persist: true), its revision and
// requests and errors in the status, NOT_READY until the first activation. Adapters with
// push channels open them after a read (and renew them before they expire), take
// notifications through notify(), and close them on stop.

import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { parseJSON, type Value } from '../../value/index.js';
import type { Bundle } from '../../bundle/index.js';
import type { BundleActivator } from '../bundle/activate.js';
import { clearError, copyStatus, newBundleStatus, setError, type BundleStatus } from '../bundle/status.js';
import type { ServiceClient } from '../services/client.js';
import { jitteredDelayMs, sleep, type Timing } from '../timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from '../plugin.js';
import type { AdapterConfig } from './config.js';
import { AdapterDeferred, AdapterHttp, AdapterHttpError } from './http.js';
import type { AdapterPersistence } from './persist.js';
import { carriesSecret, expectedSecret } from './secret.js';
import type { DataSource, JSONValue, PushChannel, WatchContext } from './types.js';
import type { EventReply } from './events.js';
import type { IncomingEvent } from './types.js';

/** Push notification headers of the watch-channel protocol (seed 002's APIs). */
const CHANNEL_ID = 'x-goog-channel-id';
const RESOURCE_STATE = 'x-goog-resource-state';

export interface DataAdapterOptions {
  config: AdapterConfig;
  source: DataSource;
  client: ServiceClient;
  activator: BundleActivator;
  timing: Timing;
  persistence?: AdapterPersistence;
  logger?: PluginLogger;
  onChange?: () => void;
}

/** The bundle name an adapter's document is activated under (data.system.bundles). */
export function adapterBundleName(name: string): string {
  return `adapter/${name}`;
}

/** A revision that changes exactly when the document does. */
export function revisionOf(doc: JSONValue): string {
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex').slice(0, 16);
}

const now = (): string => new Date().toISOString();

export class DataAdapterPlugin implements Plugin {
  readonly name: string;
  private readonly status_: BundleStatus;
  private readonly log: PluginLogger;
  private readonly abort = new AbortController();
  private loop?: Promise<void>;
  /** Ends the polling loop's wait: `read` false when a refresh has just read (the wait restarts). */
  private wake?: (read: boolean) => void;
  private previous?: JSONValue;
  private activatedOnce = false;
  /** The active document could not be written to disk (persist: true): the next read tries again. */
  private unpersisted = false;
  private reading?: Promise<void>;
  /** A Retry-After deferred the last read: the next poll waits at least until then (epoch ms). */
  private deferredUntil = 0;
  /** The one read that follows the read under way, shared by every trigger arriving meanwhile. */
  private followUp?: Promise<void>;
  readonly http: AdapterHttp;
  /** Open push channels. */
  private channels: PushChannel[] = [];
  /** Notifications accepted (tests and status read it). */
  notifications = 0;

  constructor(private readonly o: DataAdapterOptions) {
    this.name = adapterBundleName(o.config.name);
    this.status_ = newBundleStatus(o.config.name);
    this.log = o.logger ?? SILENT_LOGGER;
    // every request in flight and every sleep listens to this one signal (reads run 8 at a time)
    setMaxListeners(64, this.abort.signal);
    this.http = new AdapterHttp(o.client, o.timing, o.config.retry, this.abort.signal);
  }

  async start(): Promise<void> {
    if (this.o.config.persist) await this.loadPersisted();
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.(false);
    await this.loop;
    // a read started by a notification may still be opening channels: let it record them
    await this.reading?.catch(() => undefined);
    if (this.channels.length && this.o.source.unwatch) {
      // the plugin's own signal is spent: close the channels with a short deadline of their own
      const deadline = AbortSignal.timeout(5 * this.o.timing.msPerSecond);
      const http = new AdapterHttp(this.o.client, this.o.timing, { ...this.o.config.retry, maxRetries: 1 }, deadline);
      try {
        await this.o.source.unwatch({ ...this.watchContext(http), signal: deadline }, this.channels);
      } catch (err) {
        this.log.warn({ adapter: this.o.config.name, err: (err as Error).message }, 'Push channels could not be closed; they lapse when they expire.');
      }
      this.channels = [];
    }
  }

  /** Whether this adapter takes push notifications (at POST /v1/events/<name>). */
  get acceptsPush(): boolean {
    return this.o.config.push !== undefined && this.o.source.watch !== undefined;
  }

  /** A push notification: authenticated by the channel token, then an early read. */
  notify(ev: IncomingEvent): EventReply {
    const name = this.o.config.name;
    try {
      if (!carriesSecret(this.o.config.push!, ev.headers)) return { status: 401, body: { code: 'unauthorized', message: `adapter ${name}: the notification carries no valid channel token` } };
    } catch (e) {
      this.log.error({ adapter: name, err: (e as Error).message }, 'Push token unreadable.');
      return { status: 500, body: { code: 'internal_error', message: `adapter ${name}: its push token cannot be read` } };
    }
    // the first message on a new channel says only that it exists
    if (ev.headers[RESOURCE_STATE] === 'sync') return { status: 200, body: {} };
    this.notifications++;
    this.log.debug({ adapter: name, channel: ev.headers[CHANNEL_ID] }, 'Push notification: reading early.');
    this.refresh().catch((e: Error) => this.log.warn({ adapter: name, err: e.message }, 'Read after a notification failed.'));
    return { status: 200, body: {} };
  }

  /** Channels currently open (for tests and the status). */
  openChannels(): PushChannel[] {
    return this.channels.map((c) => ({ ...c }));
  }

  private watchContext(http: AdapterHttp): WatchContext {
    const p = this.o.config.push!;
    return {
      http,
      signal: this.abort.signal,
      log: this.log,
      address: p.address,
      token: p.token ?? '',
      newId: () => randomUUID(),
      ttlSeconds: p.ttl_seconds,
      tokenOf: () => (p.token_path ? expectedSecret(p) : p.token!),
    };
  }

  /** Opens the push channels, or renews them when they lapse before the next poll could. */
  private async ensureWatch(): Promise<void> {
    if (!this.acceptsPush || this.abort.signal.aborted) return;
    const horizon = Date.now() + this.o.config.polling.max_delay_seconds * this.o.timing.msPerSecond;
    if (this.channels.length && this.channels.every((c) => c.expiration === undefined || c.expiration > horizon)) return;
    const ctx = this.watchContext(this.http);
    const old = this.channels;
    try {
      this.channels = await this.o.source.watch!({ ...ctx, token: ctx.tokenOf() });
      this.log.info({ adapter: this.o.config.name, channels: this.channels.length }, 'Push channels open.');
    } catch (err) {
      this.log.warn({ adapter: this.o.config.name, err: (err as Error).message }, 'Push channels could not be opened; polling goes on.');
      return;
    }
    if (old.length && this.o.source.unwatch) await this.o.source.unwatch(ctx, old).catch(() => undefined);
  }

  status(): PluginStatus {
    if (!this.activatedOnce) return { state: 'NOT_READY', message: this.status_.message };
    return { state: 'OK' };
  }

  adapterStatus(): BundleStatus {
    return copyStatus(this.status_);
  }

  /**
   * Reads now (a push notification, an event, a manual trigger); resolves when that read is
   * done. One read per trigger, and concurrent triggers share it: with a read under way
   * (it may have started before the change) one more read follows it, for all of them.
   * The polling wait restarts after it instead of reading again.
   */
  refresh(): Promise<void> {
    if (!this.reading) return this.readAndRestartWait();
    this.followUp ??= this.reading.then(() => {
      this.followUp = undefined;
      return this.readAndRestartWait();
    });
    return this.followUp;
  }

  private async readAndRestartWait(): Promise<void> {
    await this.readOnce();
    this.wake?.(false);
  }

  /**
   * Makes the document hold what one event concerns before the event is decided (the
   * source's forEvent), within `deadlineMs`. Returns the revision active afterwards (the
   * data the decision sees); on failure or past the deadline the event is decided on the
   * data as it is (said in the log).
   */
  async prepareFor(event: JSONValue, deadlineMs: number): Promise<string | undefined> {
    const forEvent = this.o.source.forEvent;
    if (!forEvent || this.abort.signal.aborted) return this.status_.active_revision;
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(deadlineMs)]);
    try {
      // no document yet: the whole read is what the event needs
      if (this.previous === undefined) await Promise.race([this.refresh(), sleep(deadlineMs, signal)]);
      else {
        const http = new AdapterHttp(this.o.client, this.o.timing, this.o.config.retry, signal, this.http);
        const doc = await forEvent({ http, signal, log: this.log, previous: this.previous }, event);
        if (doc !== undefined && !signal.aborted) await this.accept(doc);
      }
    } catch (err) {
      this.log.warn({ adapter: this.o.config.name, err: (err as Error).message }, 'The data for an event could not be read in time; it is decided on the data as it is.');
    }
    return this.status_.active_revision;
  }

  private async run(): Promise<void> {
    const manual = this.o.config.trigger === 'manual';
    let read = true;
    while (!this.abort.signal.aborted) {
      if (!manual && read) await this.readOnce();
      if (this.abort.signal.aborted) return;
      const p = this.o.config.polling;
      const wait = manual ? 2 ** 31 - 1 : Math.max(jitteredDelayMs(this.o.timing, p.min_delay_seconds, p.max_delay_seconds), this.deferredUntil - Date.now());
      const stopWait = new AbortController();
      read = await new Promise<boolean>((resolve) => {
        this.wake = resolve;
        void sleep(wait, AbortSignal.any([this.abort.signal, stopWait.signal])).then(() => resolve(true));
      });
      stopWait.abort();
      this.wake = undefined;
    }
  }

  private readOnce(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<void> {
    const t0 = process.hrtime.bigint();
    this.status_.last_request = now();
    let doc: JSONValue;
    try {
      doc = await this.o.source.read({ http: this.http, signal: this.abort.signal, log: this.log, previous: this.previous });
    } catch (err) {
      if (this.abort.signal.aborted) return;
      if (err instanceof AdapterDeferred) {
        // throttled for longer than a retry waits: not a failure; the next poll comes after it
        this.deferredUntil = err.until;
        this.status_.metrics = { timer_bundle_request_ns: Number(process.hrtime.bigint() - t0) };
        this.log.info({ adapter: this.o.config.name, until: new Date(err.until).toISOString(), err: err.message }, 'Adapter read deferred by the API\'s Retry-After; the last good data stays active.');
        this.changed();
        return;
      }
      const e = err as Error;
      setError(this.status_, `adapter ${this.o.config.name}: ${e.message}`, undefined, e instanceof AdapterHttpError ? e.httpCode : undefined);
      this.status_.code = 'adapter_error';
      this.status_.metrics = { timer_bundle_request_ns: Number(process.hrtime.bigint() - t0) };
      this.log.error({ adapter: this.o.config.name, err: e.message }, 'Adapter read failed; the last good data stays active.');
      this.changed();
      return;
    }
    this.status_.metrics = { timer_bundle_request_ns: Number(process.hrtime.bigint() - t0) };
    this.status_.last_successful_request = this.status_.last_successful_download = now();
    await this.accept(doc);
    await this.ensureWatch();
  }

  /** A document read: activated unless it is the active one. */
  private async accept(doc: JSONValue): Promise<void> {
    const revision = revisionOf(doc);
    if (this.activatedOnce && revision === this.status_.active_revision) {
      // a write that failed (a full disk) is tried again; its error stays until one succeeds
      if (!this.unpersisted || this.persist(doc, revision)) clearError(this.status_);
      this.previous = doc;
      this.changed();
      return;
    }
    try {
      await this.activate(doc, revision);
      this.previous = doc;
      if (this.persist(doc, revision)) this.log.info({ adapter: this.o.config.name, revision }, 'Adapter data activated.');
    } catch (err) {
      this.log.error({ adapter: this.o.config.name, err: (err as Error).message }, 'Adapter data activation failed.');
    }
    this.changed();
  }

  private async activate(doc: JSONValue, revision: string): Promise<void> {
    const root = this.o.config.root;
    // the document nested under its root, as a bundle's data.json would hold it
    let data = parseJSON(JSON.stringify(doc)) as Value;
    for (let i = root.length - 1; i >= 0; i--) data = Object.assign(Object.create(null) as Record<string, Value>, { [root[i]!]: data });
    const bundle: Bundle = {
      manifest: { revision, roots: [root.join('/')], metadata: { adapter: this.o.config.type } },
      hasManifest: true,
      data: data as Bundle['data'],
      dataFiles: [],
      modules: [],
      wasmModules: [],
    };
    try {
      await this.o.activator.activate(this.name, bundle);
    } catch (err) {
      setError(this.status_, `adapter ${this.o.config.name}: ${(err as Error).message}`);
      this.status_.code = 'adapter_error';
      throw err;
    }
    clearError(this.status_);
    this.status_.active_revision = revision;
    this.status_.last_successful_activation = now();
    this.status_.type = 'snapshot';
    this.status_.size = Buffer.byteLength(JSON.stringify(doc));
    this.activatedOnce = true;
  }

  /**
   * Writes the active document to disk (persist: true). When that fails (a full disk:
   * ENOSPC) the document stays active, the status carries the error and the log says so,
   * as for a bundle; the next read tries the write again.
   */
  private persist(doc: JSONValue, revision: string): boolean {
    if (!this.o.config.persist || !this.o.persistence) return true;
    try {
      this.o.persistence.save(this.o.config.name, { revision, document: doc });
      this.unpersisted = false;
      return true;
    } catch (err) {
      const msg = (err as Error).message;
      this.unpersisted = true;
      setError(this.status_, `adapter ${this.o.config.name}: persisting adapter data to disk failed: ${msg}`);
      this.status_.code = 'adapter_error';
      this.log.error({ adapter: this.o.config.name, revision, err: msg }, 'Persisting adapter data to disk failed.');
      return false;
    }
  }

  private async loadPersisted(): Promise<void> {
    try {
      const p = this.o.persistence?.load(this.o.config.name);
      if (!p) return;
      await this.activate(p.document, p.revision);
      this.previous = p.document;
      this.log.info({ adapter: this.o.config.name, revision: p.revision }, 'Adapter data loaded from disk.');
    } catch (err) {
      this.log.warn({ adapter: this.o.config.name, err: (err as Error).message }, 'Persisted adapter data could not be activated.');
    }
    this.changed();
  }

  private changed(): void {
    try {
      this.o.onChange?.();
    } catch {
      /* the status plugin reports its own failures */
    }
  }
}
