// The status plugin: one document (labels, bundles, plugin states, decision log upload
// state, optional Prometheus metrics) served at GET /v1/status and pushed to
// <service>/status (POST, JSON) or the console on every change and periodically.
// Changes that arrive while a push is in flight are coalesced into the next push.

import pino, { type Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config, StatusConfig } from '../config/types.js';
import type { ServiceClient } from '../services/client.js';
import { backoffMs, secondsToMs, sleep, REAL_TIMING, type Timing } from '../timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from '../plugin.js';
import { prometheusDocument } from './prometheus.js';

/** Where the status document's parts come from (the manager wires the other plugins in). */
export interface StatusSources {
  labels: Record<string, string>;
  bundles?: () => Record<string, unknown>;
  /** Data adapters: a bundle-like status each (src/plugins/adapters). */
  adapters?: () => Record<string, unknown>;
  plugins: () => Record<string, PluginStatus>;
  decisionLogs?: () => unknown;
  /** The discovery bundle's status, when discovery is configured. */
  discovery?: () => unknown;
  registry?: Registry;
}

export interface StatusPluginOptions {
  config: Config;
  client?: ServiceClient;
  sources: StatusSources;
  timing?: Timing;
  /** Seconds between unconditional pushes (default 60). */
  heartbeatSeconds?: number;
  console?: Logger;
  logger?: PluginLogger;
}

export class StatusPlugin implements Plugin {
  readonly name = 'status';
  private cfg: StatusConfig;
  private readonly timing: Timing;
  private readonly log: PluginLogger;
  private consoleLogger: Logger | undefined;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private dirty = true;
  private wake: (() => void) | undefined;
  private failures = 0;
  /** Pushes that reached the service (tests read it). */
  pushed = 0;
  lastError: string | undefined;

  constructor(private opts: StatusPluginOptions) {
    if (!opts.config.status) throw new Error('status is not configured');
    this.cfg = opts.config.status;
    this.timing = opts.timing ?? REAL_TIMING;
    this.log = opts.logger ?? SILENT_LOGGER;
    if (this.cfg.console) this.consoleLogger = opts.console ?? pino({ level: 'info' });
  }

  async start(): Promise<void> {
    if (this.cfg.trigger === 'periodic') this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  status(): PluginStatus {
    return { state: 'OK' };
  }

  /** The current status document (what a push sends), with Prometheus metrics gathered now. */
  async document(): Promise<Record<string, unknown>> {
    const doc = this.parts();
    const registry = this.cfg.prometheus ? this.opts.sources.registry : undefined;
    if (registry) {
      this.promCache = await prometheusDocument(registry);
      doc['metrics'] = { prometheus: this.promCache };
    }
    return doc;
  }

  private promCache: Record<string, unknown> | undefined;

  /**
   * The document without waiting (GET /v1/status is synchronous): Prometheus metrics are
   * those gathered at the previous call, refreshed in the background.
   */
  documentSync(): Record<string, unknown> {
    const doc = this.parts();
    const registry = this.cfg.prometheus ? this.opts.sources.registry : undefined;
    if (registry) {
      doc['metrics'] = { prometheus: this.promCache ?? {} };
      void prometheusDocument(registry).then((m) => (this.promCache = m), () => {});
    }
    return doc;
  }

  /** Everything in the document but the metrics, read from its sources. */
  private parts(): Record<string, unknown> {
    const s = this.opts.sources;
    const doc: Record<string, unknown> = { labels: { ...s.labels } };
    if (s.bundles) doc['bundles'] = s.bundles();
    if (s.adapters) doc['adapters'] = s.adapters();
    if (s.discovery) doc['discovery'] = s.discovery();
    const dl = s.decisionLogs?.();
    if (dl !== undefined) doc['decision_logs'] = dl;
    doc['plugins'] = s.plugins();
    return doc;
  }

  /**
   * A new configuration (discovery): service, partition, console and Prometheus settings
   * and the document's sources change in place; the next push goes to the new service.
   */
  reconfigure(config: Config, client: ServiceClient | undefined, sources: StatusSources): void {
    if (!config.status) throw new Error('status is not configured');
    this.opts = { ...this.opts, config, client, sources };
    this.cfg = config.status;
    this.consoleLogger = this.cfg.console ? (this.consoleLogger ?? this.opts.console ?? pino({ level: 'info' })) : undefined;
    this.failures = 0;
    if (this.cfg.trigger === 'periodic') this.loop ??= this.run();
    this.notify();
  }

  /** Something changed: push soon. */
  notify(): void {
    this.dirty = true;
    this.wake?.();
  }

  /** Manual trigger: push now; true when delivered. */
  async trigger(): Promise<boolean> {
    return this.push();
  }

  private async run(): Promise<void> {
    const heartbeatMs = secondsToMs(this.timing, this.opts.heartbeatSeconds ?? 60);
    while (!this.abort.signal.aborted) {
      if (this.dirty) {
        this.dirty = false;
        if (!(await this.push())) {
          this.dirty = true;
          const wait = backoffMs(this.timing, this.failures - 1, heartbeatMs);
          if (!(await sleep(wait, this.abort.signal))) return;
          continue;
        }
      }
      // Sleep until a change arrives or the heartbeat is due.
      const woke = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), heartbeatMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      this.wake = undefined;
      if (!woke) this.dirty = true;
    }
  }

  private async push(): Promise<boolean> {
    const doc = await this.document();
    if (this.consoleLogger) this.consoleLogger.info({ ...doc, type: 'openpolicyagent.org/status' }, 'Status Log');
    const client = this.opts.client;
    if (!client || !this.cfg.service) return true;
    try {
      const res = await client.request({
        method: 'POST',
        path: this.cfg.partition_name ? `/status/${this.cfg.partition_name}` : '/status',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(doc)),
      });
      if (res.status < 200 || res.status >= 300) throw new Error(`status update failed, server replied with HTTP ${res.status}`);
      this.pushed++;
      this.failures = 0;
      this.lastError = undefined;
      return true;
    } catch (err) {
      this.failures++;
      this.lastError = (err as Error).message;
      this.log.warn({ err: this.lastError }, 'Status update failed.');
      return false;
    }
  }
}
