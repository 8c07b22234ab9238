// The discovery plugin: downloads the discovery bundle like any bundle (ETag, signature
// verification, persistence, polling and backoff: the bundle plugin's sources), evaluates
// it into a configuration, merges that under the boot configuration (merge.ts), validates
// it and hands it to the manager to apply live. Anything failing on the way keeps the last
// good configuration, clears the ETag (the next download is a full one) and is reported in
// the discovery status. NOT_READY until the first configuration is applied, OK from then on.

import { readBundleFromBytes, type Bundle } from '../../bundle/index.js';
import type { Config, DiscoveryConfig } from '../config/types.js';
import type { ServiceClient } from '../services/client.js';
import { REAL_TIMING, type Timing } from '../timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from '../plugin.js';
import { Downloader } from '../bundle/download.js';
import { OciSource } from '../bundle/oci-source.js';
import type { DownloadResult } from '../bundle/polling-source.js';
import type { BundlePersistence } from '../bundle/persist.js';
import { verificationConfig } from '../bundle/plugin.js';
import { clearError, copyStatus, newBundleStatus, setError, type BundleStatus } from '../bundle/status.js';
import { evaluateDiscovery } from './evaluate.js';
import { mergeDiscovered, validateDiscovered } from './merge.js';
import { restartKeys } from './restart-keys.js';

export interface DiscoveryPluginOptions {
  boot: Config;
  clients: Map<string, ServiceClient>;
  /** Applies a validated configuration (the manager's reconfigure); throws to refuse it. */
  apply: (next: Config) => Promise<void>;
  timing?: Timing;
  persistence?: BundlePersistence;
  logger?: PluginLogger;
  /** opa.runtime()'s document for the discovery policy. */
  runtime?: () => unknown;
  regoVersion?: 'v0' | 'v1';
  env?: NodeJS.ProcessEnv;
  onChange?: () => void;
}

const now = (): string => new Date().toISOString();

export class DiscoveryPlugin implements Plugin {
  readonly name = 'discovery';
  private readonly cfg: DiscoveryConfig;
  private readonly log: PluginLogger;
  private readonly st: BundleStatus;
  private source?: Downloader | OciSource;
  private etag: string | undefined;
  private ready = false;
  /** The configuration document in force (the boot one until a discovered one applies). */
  private applied: Record<string, unknown>;
  /** The override message of the applied configuration (kept until the next one). */
  private overrides: string | undefined;

  constructor(private readonly opts: DiscoveryPluginOptions) {
    if (!opts.boot.discovery) throw new Error('discovery is not configured');
    this.cfg = opts.boot.discovery;
    this.applied = opts.boot.raw;
    this.log = opts.logger ?? SILENT_LOGGER;
    // OPA reports the discovery bundle under the plugin's name.
    this.st = newBundleStatus('discovery');
  }

  async start(): Promise<void> {
    if (this.cfg.source.persist) await this.loadPersisted();
    const client = this.opts.clients.get(this.cfg.source.service);
    if (!client) {
      setError(this.st, `discovery: service "${this.cfg.source.service}" is not configured`);
      return;
    }
    const src = {
      client,
      config: this.cfg.source,
      timing: this.opts.timing ?? REAL_TIMING,
      etag: () => this.etag,
      onResult: (r: DownloadResult) => this.handle(r),
    };
    this.source = client.config.type === 'oci' ? new OciSource(src) : new Downloader(src);
    this.source.start();
  }

  async stop(): Promise<void> {
    await this.source?.stop();
  }

  status(): PluginStatus {
    return { state: this.ready ? 'OK' : 'NOT_READY' };
  }

  /** The discovery bundle's status (the status document's `discovery`). */
  bundleStatus(): BundleStatus {
    return copyStatus(this.st);
  }

  /** Manual trigger: download and apply once, now. */
  async trigger(): Promise<void> {
    await this.source?.once();
  }

  /** No error: the status shows the applied configuration's override message, if any. */
  private clear(): void {
    clearError(this.st);
    if (this.overrides) this.st.message = this.overrides;
  }

  private changed(): void {
    try {
      this.opts.onChange?.();
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'status listener failed');
    }
  }

  private async loadPersisted(): Promise<void> {
    const archive = this.opts.persistence?.load(this.cfg.source.name);
    if (!archive) return;
    try {
      await this.process(archive);
      this.log.info({ revision: this.st.active_revision }, 'Discovery bundle loaded from disk and activated successfully.');
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'Persisted discovery bundle could not be activated.');
    }
    this.changed();
  }

  /** Reads, evaluates, merges, validates and applies one archive; updates the status. Throws on failure. */
  private async process(archive: Buffer): Promise<Bundle> {
    let bundle: Bundle;
    try {
      bundle = await readBundleFromBytes(archive, {
        verification: verificationConfig(this.opts.boot, this.cfg.source),
        sizeLimitBytes: this.cfg.source.size_limit_bytes,
      });
      const discovered = evaluateDiscovery(bundle, { query: this.cfg.query, runtime: this.opts.runtime?.(), regoVersion: this.opts.regoVersion, env: this.opts.env });
      const merged = mergeDiscovered(this.opts.boot, discovered);
      if (merged.dropped.length) this.log.warn({ keys: merged.dropped }, 'Discovered configuration keys ignored: no such configuration section.');
      const next = validateDiscovered(this.opts.boot, merged.raw);
      const later = restartKeys(this.applied, merged.raw);
      await this.opts.apply(next);
      this.applied = merged.raw;
      if (later.length) this.log.warn({ keys: later }, 'Discovered configuration keys take effect at the next start.');
      // As OPA: the status says which discovered keys the boot configuration overrode.
      this.overrides = merged.overridden.length ? `Keys in the discovered configuration overridden by boot configuration: ${merged.overridden.join(', ')}` : undefined;
      this.clear();
    } catch (err) {
      const errors = (err as { errors?: unknown }).errors;
      const list = Array.isArray(errors) ? errors.map((e) => (typeof e === 'string' ? e : String((e as { message?: unknown }).message ?? e))) : undefined;
      setError(this.st, (err as Error).message, list);
      throw err;
    }
    this.st.active_revision = bundle.manifest.revision;
    this.st.last_successful_activation = now();
    this.st.type = bundle.patch ? 'delta' : 'snapshot';
    this.st.size = archive.length;
    this.ready = true;
    return bundle;
  }

  private async handle(r: DownloadResult): Promise<void> {
    const t = now();
    this.st.last_request = t;
    this.st.metrics = { timer_bundle_request_ns: r.requestNs };
    if (r.kind === 'error') {
      setError(this.st, r.message, undefined, r.httpCode);
      this.etag = undefined;
      this.log.error({ err: r.message }, 'Discovery download failed.');
      this.changed();
      return;
    }
    this.st.last_successful_request = t;
    if (r.kind === 'not-modified') {
      this.clear();
      this.changed();
      return;
    }
    this.st.last_successful_download = t;
    try {
      await this.process(r.archive);
      this.etag = r.etag;
      if (this.cfg.source.persist && this.opts.persistence) {
        try {
          this.opts.persistence.save(this.cfg.source.name, r.archive);
        } catch (err) {
          this.log.error({ err: (err as Error).message }, 'Persisting discovery bundle to disk failed.');
          setError(this.st, (err as Error).message);
        }
      }
      this.log.info({ etag: r.etag }, 'Discovery update processed successfully.');
    } catch (err) {
      this.etag = undefined;
      this.log.error({ err: (err as Error).message }, 'Discovery reconfiguration error occurred.');
    }
    this.changed();
  }
}
