// The bundle plugin: one downloader per configured bundle; each downloaded archive is
// read (signature verified with the configured keys), then activated atomically. A bundle
// that fails anywhere never replaces the active one; the failure is recorded in its status.
// The plugin is NOT_READY until every configured bundle has been activated once.

import { readBundleFromBytes, type Bundle, type KeyConfig, type VerificationConfig } from '../../bundle/index.js';
import type { BundleSourceConfig, Config } from '../config/types.js';
import type { ServiceClient } from '../services/client.js';
import { REAL_TIMING, type Timing } from '../timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from '../plugin.js';
import { ActivationError, type BundleActivator } from './activate.js';
import { Downloader, type DownloadResult } from './download.js';
import { FileSource } from './file-source.js';
import { OciSource } from './oci-source.js';
import { BundlePersistence } from './persist.js';
import { clearError, copyStatus, newBundleStatus, setError, type BundleStatus } from './status.js';

export interface BundlePluginOptions {
  config: Config;
  clients: Map<string, ServiceClient>;
  activator: BundleActivator;
  timing?: Timing;
  /** Where persisted bundles live (persistence_directory or its default). */
  persistence?: BundlePersistence;
  logger?: PluginLogger;
  /** Called after every status change (the status plugin pushes). */
  onChange?: () => void;
}

interface Entry {
  config: BundleSourceConfig;
  status: BundleStatus;
  downloader?: Downloader | FileSource | OciSource;
  /** The ETag of the active bundle; cleared when an activation fails so the next download is full. */
  etag?: string;
  activatedOnce: boolean;
}

/** Turns the `keys` section and a bundle's `signing` section into verification settings. */
export function verificationConfig(cfg: Config, b: BundleSourceConfig): VerificationConfig | undefined {
  if (!b.signing) return undefined;
  const keys: Record<string, KeyConfig> = {};
  for (const [id, k] of Object.entries(cfg.keys)) {
    const material = k.key ?? k.private_key;
    if (material !== undefined) keys[id] = { key: material, algorithm: k.algorithm, scope: k.scope };
  }
  return { keys, keyid: b.signing.keyid, scope: b.signing.scope, exclude_files: b.signing.exclude_files };
}

const now = (): string => new Date().toISOString();

export class BundlePlugin implements Plugin {
  readonly name = 'bundle';
  private readonly entries = new Map<string, Entry>();
  private readonly timing: Timing;
  private readonly log: PluginLogger;
  private listeners: ((name: string) => void)[] = [];

  private started = false;
  private ready = false;

  constructor(private opts: BundlePluginOptions) {
    this.timing = opts.timing ?? REAL_TIMING;
    this.log = opts.logger ?? SILENT_LOGGER;
    for (const [name, config] of Object.entries(opts.config.bundles)) {
      this.entries.set(name, { config, status: newBundleStatus(name), activatedOnce: false });
    }
  }

  /** Called with a bundle's name after it is activated (decision logs note revisions). */
  onActivated(fn: (name: string) => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    this.started = true;
    // Persisted bundles first: serve the last good policy before any download.
    for (const e of this.entries.values()) if (e.config.persist) await this.loadPersisted(e);
    for (const e of this.entries.values()) this.startEntry(e);
  }

  private startEntry(e: Entry): void {
    if (e.config.resource.startsWith('file://')) {
      // A local bundle: read from disk on the polling schedule, no service involved.
      e.downloader = new FileSource({ config: e.config, timing: this.timing, etag: () => e.etag, onResult: (r) => this.handle(e, r) });
      e.downloader.start();
      return;
    }
    const client = e.config.service ? this.opts.clients.get(e.config.service) : undefined;
    if (!client) {
      setError(e.status, `bundle ${e.config.name}: service "${e.config.service ?? ''}" is not configured`);
      return;
    }
    const source = { client, config: e.config, timing: this.timing, etag: () => e.etag, onResult: (r: DownloadResult) => this.handle(e, r) };
    e.downloader = client.config.type === 'oci' ? new OciSource(source) : new Downloader(source);
    e.downloader.start();
  }

  /**
   * A new configuration (discovery): a bundle no longer configured stops downloading and is
   * deactivated; a new one starts; one whose settings changed restarts its download with
   * them (its active version keeps serving until the new download activates).
   */
  async reconfigure(config: Config): Promise<void> {
    this.opts = { ...this.opts, config };
    for (const [name, e] of [...this.entries]) {
      const next = config.bundles[name];
      if (next && JSON.stringify(next) === JSON.stringify(e.config)) continue;
      await e.downloader?.stop();
      e.downloader = undefined;
      e.etag = undefined;
      if (next) {
        e.config = next;
        continue;
      }
      this.entries.delete(name);
      try {
        await this.opts.activator.deactivate(name);
      } catch (err) {
        this.log.error({ name, err: (err as Error).message }, 'Bundle could not be deactivated.');
      }
    }
    for (const [name, b] of Object.entries(config.bundles)) {
      if (!this.entries.has(name)) this.entries.set(name, { config: b, status: newBundleStatus(name), activatedOnce: false });
    }
    this.revs = undefined;
    if (this.started) {
      for (const e of this.entries.values()) {
        if (e.downloader) continue;
        if (e.config.persist && !e.activatedOnce) await this.loadPersisted(e);
        this.startEntry(e);
      }
    }
    this.changed();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.downloader?.stop()));
  }

  /** Manual trigger: download (and activate) every bundle once, now. */
  async trigger(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.downloader?.once()));
  }

  status(): PluginStatus {
    // As OPA: once every bundle has been activated the plugin stays OK, also when a new
    // configuration (discovery) adds a bundle that is still downloading.
    if (this.ready) return { state: 'OK' };
    for (const e of this.entries.values()) if (!e.activatedOnce) return { state: 'NOT_READY' };
    this.ready = true;
    return { state: 'OK' };
  }

  bundleStatuses(): Record<string, BundleStatus> {
    const out: Record<string, BundleStatus> = {};
    for (const [name, e] of this.entries) out[name] = copyStatus(e.status);
    return out;
  }

  /** revisions() until the next activation. */
  private revs: Readonly<Record<string, string>> | undefined;

  /**
   * name -> active revision, for decision log events: asked once per decision, so one
   * frozen object is kept until the next activation (the log keeps its text by identity).
   */
  revisions(): Record<string, string> {
    if (this.revs) return this.revs;
    const out: Record<string, string> = {};
    for (const [name, e] of this.entries) if (e.activatedOnce) out[name] = e.status.active_revision;
    return (this.revs = Object.freeze(out));
  }

  private changed(): void {
    try {
      this.opts.onChange?.();
    } catch (err) {
      this.log.error({ err }, 'status listener failed');
    }
  }

  private async loadPersisted(e: Entry): Promise<void> {
    const archive = this.opts.persistence?.load(e.config.name);
    if (!archive) return;
    try {
      await this.activate(e, archive, undefined);
      this.log.info({ name: e.config.name, revision: e.status.active_revision }, 'Bundle loaded from disk and activated successfully.');
    } catch (err) {
      this.log.warn({ name: e.config.name, err: (err as Error).message }, 'Persisted bundle could not be activated.');
    }
    this.changed();
  }

  /** Reads, verifies and activates an archive; updates status. Throws on failure. */
  private async activate(e: Entry, archive: Buffer, etag: string | undefined): Promise<Bundle> {
    let bundle: Bundle;
    try {
      bundle = await readBundleFromBytes(archive, {
        verification: verificationConfig(this.opts.config, e.config),
        sizeLimitBytes: e.config.size_limit_bytes,
      });
    } catch (err) {
      setError(e.status, `bundle ${e.config.name}: ${(err as Error).message}`);
      throw err;
    }
    try {
      await this.opts.activator.activate(e.config.name, bundle, etag);
    } catch (err) {
      const ae = err instanceof ActivationError ? err : new ActivationError((err as Error).message);
      setError(e.status, `bundle ${e.config.name}: ${ae.message}`, ae.errors);
      throw err;
    }
    clearError(e.status);
    e.status.active_revision = bundle.manifest.revision;
    e.status.last_successful_activation = now();
    e.status.type = bundle.patch ? 'delta' : 'snapshot';
    e.status.size = archive.length;
    e.activatedOnce = true;
    this.revs = undefined;
    for (const fn of this.listeners) fn(e.config.name);
    return bundle;
  }

  /**
   * Writes the activated archive to disk. When that fails (a full disk: ENOSPC) the bundle
   * stays active, and as in OPA the status carries the error, the log says so and the
   * ETag is dropped so that the next download is full and the write is tried again.
   */
  private persist(e: Entry, archive: Buffer): boolean {
    if (!this.opts.persistence) return true;
    try {
      this.opts.persistence.save(e.config.name, archive);
      return true;
    } catch (err) {
      const msg = (err as Error).message;
      setError(e.status, `bundle ${e.config.name}: persisting bundle to disk failed: ${msg}`);
      e.etag = undefined;
      this.log.error({ name: e.config.name, err: msg }, 'Persisting bundle to disk failed.');
      return false;
    }
  }

  private async handle(e: Entry, r: DownloadResult): Promise<void> {
    const t = now();
    e.status.last_request = t;
    e.status.metrics = { timer_bundle_request_ns: r.requestNs };
    if (r.kind === 'error') {
      setError(e.status, r.message, undefined, r.httpCode);
      this.log.error({ name: e.config.name, err: r.message }, 'Bundle download failed.');
      this.changed();
      return;
    }
    e.status.last_successful_request = t;
    if (r.kind === 'not-modified') {
      // As OPA: the service answers again and the active bundle is current, so an earlier
      // download error is over (an activation error cannot linger here: it clears the ETag).
      clearError(e.status);
      this.log.debug({ name: e.config.name }, 'Bundle download skipped, server replied with not modified.');
      this.changed();
      return;
    }
    e.status.last_successful_download = t;
    try {
      const bundle = await this.activate(e, r.archive, r.etag);
      e.etag = r.etag;
      if (e.config.persist && !bundle.patch && !this.persist(e, r.archive)) return this.changed();
      this.log.info({ name: e.config.name, revision: bundle.manifest.revision }, 'Bundle loaded and activated successfully.');
    } catch (err) {
      e.etag = undefined;
      this.log.error({ name: e.config.name, err: (err as Error).message }, 'Bundle activation failed.');
    }
    this.changed();
  }
}
