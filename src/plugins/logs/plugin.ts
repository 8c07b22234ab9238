// The decision log plugin: every decision becomes one OPA-shaped event, passed through the
// drop and mask policies, written to the console (pino JSON lines) and/or buffered for
// upload. Uploads POST gzipped JSON arrays to <service><resource> between min and max delay
// seconds; a failed upload puts its events back and retries with backoff.

import pino, { type Logger } from 'pino';
import { newPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { DecisionEvent } from '../../engine/index.js';
import type { Config, DecisionLogsConfig } from '../config/types.js';
import type { ServiceClient } from '../services/client.js';
import { backoffMs, jitteredDelayMs, secondsToMs, sleep, REAL_TIMING, type Timing } from '../timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from '../plugin.js';
import { EventBuffer } from './buffer.js';
import { DecisionFeed } from './feed.js';
import { ChunkEncoder, gzippedAloneSize, type Chunk } from './chunk.js';
import { buildEvent, encodeDecision, encodeEvent, EventText, type LoggedDecision } from './event.js';
import { EventWriter } from './event-bytes.js';
import { filterEvent, pathRef, type PolicyEvaluator } from './mask.js';

export interface DecisionLogPluginOptions {
  config: Config;
  client?: ServiceClient;
  engine?: PolicyEvaluator;
  /** name -> active revision of every bundle, for the `bundles` field. */
  revisions?: () => Record<string, string>;
  /** labels.id / labels.version as the status and logs report them. */
  labels: Record<string, string>;
  timing?: Timing;
  /** Where console events go (default: pino to stdout). */
  console?: Logger;
  logger?: PluginLogger;
  onChange?: () => void;
}


const NO_REVISIONS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export interface UploadStatus {
  code?: string;
  message?: string;
  http_code?: string;
  metrics: Record<string, number>;
}

export class DecisionLogPlugin implements Plugin {
  readonly name = 'decision_logs';
  private cfg: DecisionLogsConfig;
  private readonly timing: Timing;
  private readonly log: PluginLogger;
  private buffer: EventBuffer;
  /** Kept across uploads: it has learnt how large a chunk may be before it is compressed. */
  private encoder: ChunkEncoder;
  private consoleLogger: Logger | undefined;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private uploading: Promise<boolean> | undefined;
  private failures = 0;
  /** data refs of the drop and mask policies (looked up per decision: policies change). */
  private dropRef: string[];
  private maskRef: string[];
  private readonly eventText = new EventText();
  /** Writes each event's bytes (reused: one event at a time, copied out at once). */
  private readonly writer = new EventWriter();
  private lastError: { message: string; httpCode?: number } | undefined;
  /** Events accepted, uploaded and dropped by policy (tests and status read them). */
  readonly counts = { logged: 0, uploaded: 0, dropped_by_policy: 0, nd_builtin_cache_dropped: 0 };
  /** The web console's feed: the last encoded events (masked, never dropped ones) and its listeners. */
  private readonly feed = new DecisionFeed({
    events: 1000,
    bytes: 32 * 1024 * 1024,
    onListenerError: (err) => this.log.error({ err: (err as Error).message }, 'Decision log feed listener failed.'),
  });

  constructor(private opts: DecisionLogPluginOptions) {
    if (!opts.config.decision_logs) throw new Error('decision_logs is not configured');
    this.cfg = opts.config.decision_logs;
    this.timing = opts.timing ?? REAL_TIMING;
    this.log = opts.logger ?? SILENT_LOGGER;
    this.buffer = new EventBuffer(this.cfg.reporting.buffer_size_limit_bytes, this.cfg.reporting.max_decisions_per_second);
    this.encoder = new ChunkEncoder(this.cfg.reporting.upload_size_limit_bytes);
    this.dropRef = pathRef(this.cfg.drop_decision);
    this.maskRef = pathRef(this.cfg.mask_decision);
    if (this.cfg.console) this.consoleLogger = opts.console ?? pino({ level: 'info' });
  }

  async start(): Promise<void> {
    if (this.opts.client && this.cfg.reporting.trigger === 'periodic') this.loop ??= this.run();
  }

  /** Stops the timer and makes one last attempt to upload what is buffered. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.opts.client) await this.flush();
    this.encoder.close();
  }

  status(): PluginStatus {
    return { state: 'OK' };
  }

  /**
   * A new configuration (discovery): service, resource, reporting, console and policies
   * change in place. The buffered events are kept (an upload in flight ends first) and go
   * to the new service at its next upload.
   */
  async reconfigure(config: Config, client: ServiceClient | undefined, labels: Record<string, string>): Promise<void> {
    const next = config.decision_logs;
    if (!next) throw new Error('decision_logs is not configured');
    this.abort.abort();
    await this.loop;
    await this.uploading;
    this.abort = new AbortController();
    this.loop = undefined;
    const r = next.reporting;
    const prev = this.cfg.reporting;
    if (r.buffer_size_limit_bytes !== prev.buffer_size_limit_bytes || r.max_decisions_per_second !== prev.max_decisions_per_second) {
      const old = this.buffer;
      this.buffer = new EventBuffer(r.buffer_size_limit_bytes, r.max_decisions_per_second);
      Object.assign(this.buffer.dropped, old.dropped);
      this.buffer.requeue(old.drain());
    }
    if (r.upload_size_limit_bytes !== prev.upload_size_limit_bytes) {
      this.encoder.close();
      this.encoder = new ChunkEncoder(r.upload_size_limit_bytes);
    }
    this.opts = { ...this.opts, config, client, labels };
    this.cfg = next;
    this.dropRef = pathRef(next.drop_decision);
    this.maskRef = pathRef(next.mask_decision);
    this.consoleLogger = next.console ? (this.consoleLogger ?? this.opts.console ?? pino({ level: 'info' })) : undefined;
    this.failures = 0;
    this.lastError = undefined;
    await this.start();
  }

  uploadStatus(): UploadStatus {
    const d = this.buffer.dropped;
    const metrics: Record<string, number> = {
      counter_decision_logs_dropped_buffer_size_limit_bytes_exceeded: d.buffer_size_limit_exceeded,
      counter_decision_logs_dropped_rate_limit_exceeded: d.rate_limit_exceeded,
      counter_decision_logs_dropped_event_too_large: d.event_too_large,
      counter_decision_logs_uploaded: this.counts.uploaded,
      counter_decision_logs_nd_builtin_cache_dropped: this.counts.nd_builtin_cache_dropped,
      gauge_decision_logs_buffered_events: this.buffer.length,
    };
    const out: UploadStatus = { metrics };
    if (this.lastError) {
      out.code = 'decision_logs_error';
      out.message = this.lastError.message;
      if (this.lastError.httpCode) out.http_code = String(this.lastError.httpCode);
    }
    return out;
  }

  /** Logs one decision (for callers that await it; the server calls record()). */
  async logDecision(d: LoggedDecision): Promise<void> {
    await this.record(d);
  }

  /**
   * The hook the server calls once per decision (ServerOptions.decisionLogger): synchronous
   * (no promise, no microtask) unless a drop or mask policy has to be evaluated. Without
   * such a policy the event's JSON text is written straight from the decision (one pass,
   * no event object, no copy of the input); that text is what the feed, the console and
   * the upload buffer share.
   */
  record(d: LoggedDecision): Promise<void> | undefined {
    if (!this.buffer.admit()) return undefined;
    const engine = this.opts.engine;
    if (engine && (engine.hasRulesAt(this.dropRef) || engine.hasRulesAt(this.maskRef))) return this.logFiltered(engine, d);
    const ctx = { labels: this.opts.labels, revisions: this.revisionsFor(d) };
    if (d.nd_builtin_cache === undefined || !this.opts.client) {
      // The common case: the event's bytes are copied once, into the feed, whose copy the
      // upload buffer shares; no string is made.
      const w = this.writer;
      w.decision(d, ctx, this.eventText);
      this.counts.logged++;
      this.feed.pushBytes(w.buf, w.length);
      if (this.consoleLogger) this.logToConsole(w.toString());
      if (this.opts.client) this.buffer.pushShared(this.feed.q, this.feed.q.end - 1);
      return undefined;
    }
    let encoded = encodeDecision(d, ctx, this.eventText);
    if (!this.fits(encoded, d.nd_builtin_cache)) encoded = this.fitted(buildEvent(d, ctx));
    this.accept(encoded);
    return undefined;
  }

  /** The active bundle revisions, plus those the decision names itself (an event adapter's data). */
  private revisionsFor(d: DecisionEvent): Record<string, string> {
    const active = this.opts.revisions?.() ?? NO_REVISIONS;
    return d.revisions ? { ...active, ...d.revisions } : active;
  }

  /** A decision through the drop and mask policies (they take the event object as input). */
  private async logFiltered(engine: PolicyEvaluator, d: DecisionEvent): Promise<void> {
    const event = buildEvent(d, { labels: this.opts.labels, revisions: this.revisionsFor(d) });
    let filtered: PlainObject | undefined;
    try {
      filtered = await filterEvent(engine, event, this.maskRef, this.dropRef);
    } catch (err) {
      // A broken mask policy must not leak unmasked data: the event is not logged.
      this.log.error({ err: (err as Error).message, decision_id: d.decision_id }, 'Decision log mask/drop policy failed; event not logged.');
      return;
    }
    if (!filtered) {
      this.counts.dropped_by_policy++;
      return;
    }
    this.accept(this.fitted(filtered));
  }

  private accept(encoded: string): void {
    this.counts.logged++;
    this.feed.push(encoded);
    if (this.consoleLogger) this.logToConsole(encoded);
    if (this.opts.client) this.buffer.pushShared(this.feed.q, this.feed.q.end - 1);
  }

  private logToConsole(encoded: string): void {
    this.consoleLogger?.info({ ...(JSON.parse(encoded) as object), type: 'openpolicyagent.org/decision_logs' }, 'Decision Log');
  }

  /** The last `limit` events logged (encoded JSON, as uploaded), oldest first. */
  recent(limit: number): string[] {
    return this.feed.recent(limit);
  }

  /** Calls `fn` with each event as it is logged; returns the unsubscribe function. */
  subscribe(fn: (eventJson: string) => void): () => void {
    return this.feed.subscribe(fn);
  }

  /**
   * The encoded event. As OPA, nd_builtin_cache is best effort: an event that could never
   * be uploaded (over upload_size_limit_bytes, gzipped) goes without it, with an error logged.
   */
  private fitted(event: PlainObject): string {
    const encoded = encodeEvent(event);
    if (this.fits(encoded, event['nd_builtin_cache'])) return encoded;
    // A copy: the filtered event may be a frozen Rego value.
    const smaller = newPlainObject();
    for (const k of Object.keys(event)) if (k !== 'nd_builtin_cache') smaller[k] = event[k]!;
    this.counts.nd_builtin_cache_dropped++;
    this.log.error(
      { decision_id: event['decision_id'] },
      'ND builtins cache dropped from this event to fit under maximum upload size limits. Increase upload size limit or change usage of non-deterministic builtins.',
    );
    return encodeEvent(smaller);
  }

  /** Whether an event may keep its nd_builtin_cache (always, unless it makes the event too large to upload). */
  private fits(encoded: string, ndCache: Value | undefined): boolean {
    const limit = this.cfg.reporting.upload_size_limit_bytes;
    if (!this.opts.client || ndCache === undefined || Buffer.byteLength(encoded) + 2 <= limit) return true;
    return gzippedAloneSize(encoded) <= limit;
  }

  /** Uploads everything buffered now (manual trigger); true when all of it was accepted. */
  async trigger(): Promise<boolean> {
    return this.flush();
  }

  private async run(): Promise<void> {
    const r = this.cfg.reporting;
    while (!this.abort.signal.aborted) {
      const delay =
        this.failures > 0
          ? backoffMs(this.timing, this.failures - 1, secondsToMs(this.timing, r.max_delay_seconds))
          : jitteredDelayMs(this.timing, r.min_delay_seconds, r.max_delay_seconds);
      if (!(await sleep(delay, this.abort.signal))) return;
      await this.flush();
    }
  }

  private flush(): Promise<boolean> {
    // One upload at a time; a concurrent caller waits for the running one.
    this.uploading ??= this.upload().finally(() => (this.uploading = undefined));
    return this.uploading;
  }

  /**
   * Uploads what is buffered, one chunk at a time: the encoder compresses each chunk once,
   * as it is cut, between the requests (so the event loop is never held for a whole batch).
   * The drained queue keeps every event until its chunk is accepted; a failed request puts
   * it back in the buffer with every later event (but those left out as too large).
   */
  private async upload(): Promise<boolean> {
    const client = this.opts.client;
    if (!client) return true;
    const q = this.buffer.drain();
    if (!q.length) return true;
    const enc = this.encoder;
    let next = q.first;
    let tooLarge = 0;
    const ready: Chunk[] = [];
    const failed = (error: { message: string; httpCode?: number }): false => {
      this.buffer.requeue(q);
      this.failures++;
      const changed = this.lastError?.message !== error.message;
      this.lastError = error;
      this.log.error({ err: error.message }, 'Decision log upload failed.');
      if (changed) this.opts.onChange?.();
      return false;
    };
    try {
      for (;;) {
        const before = enc.tooLarge;
        try {
          // A chunk's events are copied out of the queue; its gzip runs off the event loop.
          while (!ready.length && next < q.end) {
            const r = await enc.next(q, next);
            for (const c of r.chunks) ready.push(c);
            next = r.next;
          }
        } catch (err) {
          // gzip failed: the queue still holds the events; nothing is lost.
          return failed({ message: `log upload failed: ${(err as Error).message}` });
        } finally {
          tooLarge += enc.tooLarge - before;
        }
        const c = ready.shift();
        if (!c) break;
        const error = await this.send(client, c);
        if (error) return failed(error);
        q.shiftUntil(c.to);
        this.counts.uploaded += c.to - c.from;
      }
    } finally {
      if (tooLarge) {
        this.buffer.dropped.event_too_large += tooLarge;
        this.log.error({ count: tooLarge }, 'Decision log event exceeds the upload size limit; dropped.');
      }
    }
    q.clear();
    this.failures = 0;
    if (this.lastError) {
      this.lastError = undefined;
      this.opts.onChange?.();
    }
    return true;
  }

  private async send(client: ServiceClient, c: Chunk): Promise<{ message: string; httpCode?: number } | undefined> {
    try {
      const res = await client.request({
        method: 'POST',
        path: this.cfg.resource,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: c.body,
      });
      if (res.status < 200 || res.status >= 300) return { message: `log upload failed, server replied with HTTP ${res.status}`, httpCode: res.status };
    } catch (err) {
      return { message: `log upload failed: ${(err as Error).message}` };
    }
    return undefined;
  }
}
