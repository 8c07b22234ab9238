// The plugin manager: builds the service clients and the bundle, decision_logs and status
// plugins from a validated configuration, starts and stops them, and gives the server the
// three things it needs: plugin states (/health), the status document (/v1/status) and the
// decision hook (one event per decision).

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Value } from '../value/index.js';
import type { Store } from '../storage/index.js';
import type { Engine } from '../engine/index.js';
import type { Config } from './config/types.js';
import { ServiceClient } from './services/client.js';
import { REAL_TIMING, type Timing } from './timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from './plugin.js';
import { StoreActivator, type BundleActivator } from './bundle/activate.js';
import { BundlePlugin } from './bundle/plugin.js';
import { BundlePersistence, defaultPersistenceDir } from './bundle/persist.js';
import { DecisionLogPlugin } from './logs/plugin.js';
import type { DecisionEvent } from '../engine/index.js';
import type { PolicyEvaluator } from './logs/mask.js';
import { StatusPlugin } from './status/plugin.js';
import { AdapterPersistence, AdapterSet, type EventReply, type IncomingEvent } from './adapters/index.js';

/** No bundle plugin: no revisions (one frozen object, so the decision log keeps its text). */
const NO_REVISIONS: Record<string, string> = Object.freeze({});

/** What the manager needs of the engine: the store (bundles) and evaluation (mask/drop). */
export interface ManagedEngine extends PolicyEvaluator {
  readonly store: Store;
  /** Bundle activation: modules installed and compiled once, by the engine, inside the activation. */
  installModules: Engine['installModules'];
}

export interface PluginManagerOptions {
  config: Config;
  engine: ManagedEngine;
  /** Replaces the store-based activator (e.g. an engine with its own activation path). */
  activator?: BundleActivator;
  /** Rego version for bundle modules whose manifest does not say (default v1). */
  regoVersion?: 'v0' | 'v1';
  /**
   * The Prometheus registry status.prometheus reports. A fresh one by default; either way
   * serverOptions() hands it to the server, so the server's /metrics and the status
   * document show the same metrics.
   */
  registry?: Registry;
  /** labels.id (a random UUID by default) and labels.version. */
  id?: string;
  version?: string;
  timing?: Timing;
  logger?: PluginLogger;
  /** Console sink for decision logs and status (pino to stdout by default). */
  console?: Logger;
  /** Seconds between unconditional status pushes. */
  statusHeartbeatSeconds?: number;
}

export class PluginManager {
  readonly labels: Record<string, string>;
  readonly clients = new Map<string, ServiceClient>();
  readonly bundle?: BundlePlugin;
  readonly decisionLogs?: DecisionLogPlugin;
  readonly status?: StatusPlugin;
  readonly adapters?: AdapterSet;
  readonly registry: Registry;
  private readonly plugins: Plugin[] = [];
  private readonly log: PluginLogger;
  private started = false;

  constructor(opts: PluginManagerOptions) {
    const { config } = opts;
    const timing = opts.timing ?? REAL_TIMING;
    this.log = opts.logger ?? SILENT_LOGGER;
    this.registry = opts.registry ?? new Registry();
    this.labels = { ...config.labels, id: opts.id ?? randomUUID(), version: opts.version ?? '0.0.0' };
    for (const [name, s] of Object.entries(config.services)) this.clients.set(name, new ServiceClient(s, timing.msPerSecond));
    const onChange = (): void => this.status?.notify();

    if (Object.keys(config.bundles).length) {
      this.bundle = new BundlePlugin({
        config,
        clients: this.clients,
        activator:
          opts.activator ??
          new StoreActivator(opts.engine, { regoVersion: opts.regoVersion }),
        timing,
        persistence: new BundlePersistence(config.persistence_directory ?? defaultPersistenceDir()),
        logger: this.log,
        onChange,
      });
      this.plugins.push(this.bundle);
    }
    if (Object.keys(config.adapters).length) {
      this.adapters = new AdapterSet({
        adapters: config.adapters,
        clients: this.clients,
        activator: opts.activator ?? new StoreActivator(opts.engine, { regoVersion: opts.regoVersion }),
        engine: opts.engine,
        timing,
        persistence: new AdapterPersistence(config.persistence_directory ?? defaultPersistenceDir()),
        logger: this.log,
        onChange,
        logDecision: () => this.decisionLogger,
      });
      this.plugins.push(...this.adapters.data.values());
    }
    if (config.decision_logs) {
      const svc = config.decision_logs.service;
      this.decisionLogs = new DecisionLogPlugin({
        config,
        client: svc ? this.clients.get(svc) : undefined,
        engine: opts.engine,
        revisions: () => this.bundle?.revisions() ?? NO_REVISIONS,
        labels: this.labels,
        timing,
        console: opts.console,
        logger: this.log,
        onChange,
      });
      this.plugins.push(this.decisionLogs);
    }
    if (config.status) {
      const svc = config.status.service;
      this.status = new StatusPlugin({
        config,
        client: svc ? this.clients.get(svc) : undefined,
        sources: {
          labels: this.labels,
          bundles: this.bundle ? () => this.bundle!.bundleStatuses() : undefined,
          adapters: this.adapters?.data.size ? () => this.adapters!.statuses() : undefined,
          plugins: () => this.pluginStates(),
          decisionLogs: this.decisionLogs ? () => this.decisionLogs!.uploadStatus() : undefined,
          registry: this.registry,
        },
        timing,
        heartbeatSeconds: opts.statusHeartbeatSeconds,
        console: opts.console,
        logger: this.log,
      });
      this.plugins.push(this.status);
    }
  }

  /** Starts every plugin. Persisted bundles are activated before this resolves. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Status first so that it hears the bundle plugin's first changes.
    for (const p of [...this.plugins].sort((a, b) => (a.name === 'status' ? -1 : b.name === 'status' ? 1 : 0))) {
      try {
        await p.start();
      } catch (err) {
        this.log.error({ plugin: p.name, err: (err as Error).message }, 'Plugin failed to start.');
        throw err;
      }
    }
  }

  /** Stops the plugins in reverse order; decision logs make a last upload attempt. */
  async stop(): Promise<void> {
    for (const p of [...this.plugins].reverse()) {
      try {
        await p.stop();
      } catch (err) {
        this.log.error({ plugin: p.name, err: (err as Error).message }, 'Plugin failed to stop.');
      }
    }
  }

  /** name -> state, for /health?plugins, input.plugin_state and the status document. */
  pluginStates(): Record<string, PluginStatus> {
    const out: Record<string, PluginStatus> = {};
    for (const p of this.plugins) out[p.name] = p.status();
    return out;
  }

  /** The status document, or undefined when the status plugin is not configured. */
  statusDocument(): Value | undefined {
    return this.status?.documentSync() as Value | undefined;
  }

  /** The per-decision hook, or undefined when decision logging is off. */
  get decisionLogger(): ((event: DecisionEvent) => Promise<void>) | undefined {
    const dl = this.decisionLogs;
    return dl ? (event) => dl.logDecision(event) : undefined;
  }

  /** Manual trigger of every plugin configured with trigger: manual (bundles, logs, status). */
  async trigger(): Promise<void> {
    await this.bundle?.trigger();
    await Promise.all([...(this.adapters?.data.values() ?? [])].map((a) => a.refresh()));
    await this.decisionLogs?.trigger();
    await this.status?.trigger();
  }

  /**
   * The ServerOptions fields that wire the plugins into the HTTP server (the registry
   * included, so that the server's http_request_duration_seconds reaches status.prometheus):
   * startServer({ engine, config: cfg.raw, ...manager.serverOptions() }).
   */
  serverOptions(): {
    pluginStatus: () => Record<string, PluginStatus>;
    status: () => Value | undefined;
    decisionLogger?: (event: DecisionEvent) => Promise<void> | undefined;
    registry: Registry;
    events?: { has(name: string): boolean; handle(name: string, ev: IncomingEvent): Promise<EventReply> };
  } {
    const adapters = this.adapters;
    const dl = this.decisionLogs;
    return {
      ...(adapters?.hasEvents ? { events: adapters } : {}),
      registry: this.registry,
      pluginStatus: () => this.pluginStates(),
      status: () => this.statusDocument(),
      // record(): synchronous per decision unless a mask or drop policy must run.
      ...(dl ? { decisionLogger: (event: DecisionEvent) => dl.record(event) } : {}),
    };
  }
}
