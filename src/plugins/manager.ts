// The plugin manager: builds the service clients and the bundle, decision_logs, status,
// adapter and discovery plugins from a validated configuration, starts and stops them,
// applies a new configuration live (reconfigure: what discovery calls), and gives the
// server what it needs: plugin states (/health), the status document (/v1/status), the
// active configuration (/v1/config) and the decision hook (one event per decision).

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Value } from '../value/index.js';
import type { Store } from '../storage/index.js';
import type { Engine } from '../engine/index.js';
import { regolithVersion } from '../engine/version.js';
import type { Config } from './config/types.js';
import { ServiceClient } from './services/client.js';
import { REAL_TIMING, type Timing } from './timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from './plugin.js';
import { StoreActivator, type BundleActivator } from './bundle/activate.js';
import { BundlePlugin } from './bundle/plugin.js';
import { BundlePersistence, defaultPersistenceDir } from './bundle/persist.js';
import { DecisionLogPlugin } from './logs/plugin.js';
import { activeRevisions } from './logs/revisions.js';
import type { DecisionEvent } from '../engine/index.js';
import type { PolicyEvaluator } from './logs/mask.js';
import { StatusPlugin, type StatusSources } from './status/plugin.js';
import { AdapterPersistence, AdapterSet, adapterBundleName, type AdapterSetOptions, type EventReply, type IncomingEvent } from './adapters/index.js';
import { DiscoveryPlugin } from './discovery/plugin.js';
import { PLUGIN_TYPES } from './plugin-types.js';

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
  /** opa.runtime()'s document for the discovery policy. */
  runtime?: () => unknown;
  /** Console sink for decision logs and status (pino to stdout by default). */
  console?: Logger;
  /** Seconds between unconditional status pushes. */
  statusHeartbeatSeconds?: number;
}

export class PluginManager {
  /** labels.id and labels.version are kept when a new configuration changes the labels. */
  labels: Record<string, string>;
  readonly clients = new Map<string, ServiceClient>();
  bundle?: BundlePlugin;
  decisionLogs?: DecisionLogPlugin;
  status?: StatusPlugin;
  adapters?: AdapterSet;
  readonly discovery?: DiscoveryPlugin;
  /** The configured plugins of registered types (plugins.<name>), in configuration order. */
  readonly custom: Plugin[] = [];
  readonly registry: Registry;
  /** The active configuration: the boot one, or the last one discovery applied. */
  config: Config;
  private readonly log: PluginLogger;
  private readonly timing: Timing;
  private started = false;
  private readonly reconfigured: (() => void)[] = [];

  constructor(private readonly opts: PluginManagerOptions) {
    const { config } = opts;
    this.config = config;
    this.timing = opts.timing ?? REAL_TIMING;
    this.log = opts.logger ?? SILENT_LOGGER;
    this.registry = opts.registry ?? new Registry();
    this.labels = { ...config.labels, id: opts.id ?? randomUUID(), version: opts.version ?? regolithVersion() };
    this.setClients(config);
    if (Object.keys(config.bundles).length) this.bundle = this.newBundle(config);
    if (Object.keys(config.adapters).length) this.adapters = new AdapterSet(this.adapterOptions(config));
    if (config.decision_logs) this.decisionLogs = this.newDecisionLogs(config);
    if (config.status) this.status = this.newStatus(config);
    for (const [name, settings] of Object.entries(config.plugins)) {
      const engine = opts.engine;
      this.custom.push(
        PLUGIN_TYPES[name]!.create(settings, {
          evaluate: (ref, o) => engine.evaluate(ref, o),
          decisionLogger: () => this.decisionLogger,
          registry: this.registry,
          logger: this.log,
        }),
      );
    }
    if (config.discovery) {
      this.discovery = new DiscoveryPlugin({
        // The boot document as loaded: config.raw itself shows the active configuration.
        boot: { ...config, raw: structuredClone(config.raw) },
        clients: this.clients,
        apply: (next) => this.reconfigure(next),
        timing: this.timing,
        persistence: new BundlePersistence(config.persistence_directory ?? defaultPersistenceDir()),
        logger: this.log,
        runtime: opts.runtime,
        regoVersion: opts.regoVersion,
        onChange: () => this.status?.notify(),
      });
    }
  }

  /** Every running plugin (status first: it hears the others' first changes; discovery last). */
  private get plugins(): Plugin[] {
    const out: Plugin[] = [];
    if (this.status) out.push(this.status);
    if (this.bundle) out.push(this.bundle);
    if (this.adapters) out.push(...this.adapters.data.values());
    if (this.decisionLogs) out.push(this.decisionLogs);
    out.push(...this.custom);
    if (this.discovery) out.push(this.discovery);
    return out;
  }

  /** Service clients: added or replaced by name, never removed (as OPA's manager keeps them). */
  private setClients(config: Config): void {
    for (const [name, s] of Object.entries(config.services)) {
      const old = this.clients.get(name);
      if (old && JSON.stringify(old.config) === JSON.stringify(s)) continue;
      this.clients.set(name, new ServiceClient(s, this.timing.msPerSecond));
    }
  }

  private get activator(): BundleActivator {
    return this.opts.activator ?? new StoreActivator(this.opts.engine, { regoVersion: this.opts.regoVersion });
  }

  private newBundle(config: Config): BundlePlugin {
    return new BundlePlugin({
      config,
      clients: this.clients,
      activator: this.activator,
      timing: this.timing,
      persistence: new BundlePersistence(config.persistence_directory ?? defaultPersistenceDir()),
      logger: this.log,
      onChange: () => this.status?.notify(),
    });
  }

  private adapterOptions(config: Config): AdapterSetOptions {
    return {
      adapters: config.adapters,
      clients: this.clients,
      activator: this.activator,
      engine: this.opts.engine,
      timing: this.timing,
      persistence: new AdapterPersistence(config.persistence_directory ?? defaultPersistenceDir()),
      logger: this.log,
      onChange: () => this.status?.notify(),
      logDecision: () => this.decisionLogger,
    };
  }

  private logsClient(config: Config): ServiceClient | undefined {
    const svc = config.decision_logs?.service;
    return svc ? this.clients.get(svc) : undefined;
  }

  private newDecisionLogs(config: Config): DecisionLogPlugin {
    return new DecisionLogPlugin({
      config,
      client: this.logsClient(config),
      engine: this.opts.engine,
      // every bundle in the store, as OPA's server reads them (-b bundles too), and the bundle plugin's
      revisions: activeRevisions({
        store: this.opts.engine.store,
        downloaded: () => this.bundle?.revisions() ?? NO_REVISIONS,
        skip: (name) => name.startsWith(adapterBundleName('')) && (this.adapters?.data.has(name.slice(adapterBundleName('').length)) ?? false),
      }),
      labels: this.labels,
      timing: this.timing,
      console: this.opts.console,
      logger: this.log,
      onChange: () => this.status?.notify(),
    });
  }

  private statusClient(config: Config): ServiceClient | undefined {
    const svc = config.status?.service;
    return svc ? this.clients.get(svc) : undefined;
  }

  /** What the status document reads (the plugins present now). */
  private statusSources(): StatusSources {
    return {
      labels: this.labels,
      bundles: this.bundle ? () => this.bundle?.bundleStatuses() ?? {} : undefined,
      adapters: this.adapters?.data.size ? () => this.adapters?.statuses() ?? {} : undefined,
      discovery: this.discovery ? () => this.discovery!.bundleStatus() : undefined,
      plugins: () => this.pluginStates(),
      decisionLogs: this.decisionLogs ? () => this.decisionLogs?.uploadStatus() : undefined,
      registry: this.registry,
    };
  }

  private newStatus(config: Config): StatusPlugin {
    return new StatusPlugin({
      config,
      client: this.statusClient(config),
      sources: this.statusSources(),
      timing: this.timing,
      heartbeatSeconds: this.opts.statusHeartbeatSeconds,
      console: this.opts.console,
      logger: this.log,
    });
  }

  /**
   * Applies a new configuration without a restart (discovery): services added or replaced,
   * labels (id and version kept), bundles added, removed and reconfigured, adapters whose
   * settings changed replaced, decision logs (keeping their buffer) and status reconfigured
   * or started or stopped. Throws when a plugin cannot start; what was applied stays.
   */
  async reconfigure(next: Config): Promise<void> {
    this.setClients(next);
    this.labels = { ...next.labels, id: this.labels['id']!, version: this.labels['version']! };
    this.config = next;
    // The document the server shows at /v1/config is the boot Config's raw: it now holds
    // the applied configuration (the server reads it per request).
    const live = this.opts.config.raw;
    if (live !== next.raw) {
      for (const k of Object.keys(live)) delete live[k];
      Object.assign(live, structuredClone(next.raw));
    }
    const fresh: Plugin[] = [];

    if (this.bundle) await this.bundle.reconfigure(next);
    else if (Object.keys(next.bundles).length) fresh.push((this.bundle = this.newBundle(next)));

    if (this.adapters) {
      const { stop, start } = this.adapters.reconfigure(this.adapterOptions(next));
      for (const d of stop) {
        await d.stop();
        await this.activator.deactivate(d.name).catch((err: Error) => this.log.error({ err: err.message }, 'Adapter document could not be removed.'));
      }
      fresh.push(...start);
    } else if (Object.keys(next.adapters).length) {
      this.adapters = new AdapterSet(this.adapterOptions(next));
      fresh.push(...this.adapters.data.values());
    }

    if (next.decision_logs) {
      if (this.decisionLogs) await this.decisionLogs.reconfigure(next, this.logsClient(next), this.labels);
      else fresh.push((this.decisionLogs = this.newDecisionLogs(next)));
    } else if (this.decisionLogs) {
      // Logging turned off: a last upload of what is buffered, as on shutdown.
      const dl = this.decisionLogs;
      this.decisionLogs = undefined;
      await dl.stop();
    }

    if (next.status) {
      if (!this.status) fresh.unshift((this.status = this.newStatus(next)));
    } else if (this.status) {
      const st = this.status;
      this.status = undefined;
      await st.stop();
    }

    // The status document's sources follow the plugins present now.
    if (this.status && !fresh.includes(this.status)) this.status.reconfigure(next, this.statusClient(next), this.statusSources());
    if (this.started) for (const p of fresh) await p.start();
    for (const fn of this.reconfigured) fn();
  }

  /** Calls `fn` after each new configuration has been applied (the plugins may have changed). */
  onReconfigure(fn: () => void): void {
    this.reconfigured.push(fn);
  }

  /** Starts every plugin. Persisted bundles are activated before this resolves. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Status first so that it hears the bundle plugin's first changes; discovery last, so
    // that the configuration it applies meets running plugins.
    for (const p of this.plugins) {
      try {
        await p.start();
      } catch (err) {
        this.log.error({ plugin: p.name, err: (err as Error).message }, 'Plugin failed to start.');
        throw err;
      }
    }
  }

  /**
   * Stops the plugins in reverse order; decision logs make a last upload attempt. With a
   * grace period (--shutdown-grace-period) the stop takes no longer, as OPA's manager bounds
   * its plugins' Stop with that timeout: a plugin still stopping then (an upload to a
   * collector that does not answer) is named in the log, every service connection is closed
   * so that what is in flight fails at once, and stop returns.
   */
  async stop(graceMs?: number): Promise<void> {
    let current: Plugin | undefined;
    const all = (async () => {
      for (const p of [...this.plugins].reverse()) {
        current = p;
        try {
          await p.stop();
        } catch (err) {
          this.log.error({ plugin: p.name, err: (err as Error).message }, 'Plugin failed to stop.');
        }
      }
      current = undefined;
    })();
    // as OPA's manager: no period (or 0) sets no deadline
    if (!graceMs || graceMs <= 0) return all;
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([all.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(timer);
    if (!late) return;
    this.log.error({ plugin: current?.name, grace_period_seconds: graceMs / 1000 }, 'Plugin did not stop within the shutdown grace period; closing its connections.');
    // the plugins after it still stop (their loops end at once); their requests fail fast now
    for (const c of this.clients.values()) c.close();
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

  /** Manual trigger of every plugin configured with trigger: manual (discovery, bundles, logs, status). */
  async trigger(): Promise<void> {
    await this.discovery?.trigger();
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
    bundleStatus: () => { bundles?: Value; adapters?: Value; discovery?: Value };
    decisionLogger?: (event: DecisionEvent) => Promise<void> | undefined;
    decisionLoggerReadsBody?: boolean;
    registry: Registry;
    events?: { has(name: string): boolean; handle(name: string, ev: IncomingEvent): Promise<EventReply> };
  } {
    const common = {
      registry: this.registry,
      pluginStatus: () => this.pluginStates(),
      status: () => this.statusDocument(),
      // what the status document would carry, for the console whether or not the status plugin runs
      bundleStatus: () => ({ bundles: this.bundle?.bundleStatuses() as unknown as Value | undefined, adapters: this.adapters?.data.size ? (this.adapters.statuses() as unknown as Value) : undefined, discovery: this.discovery?.bundleStatus() as unknown as Value | undefined }),
    };
    if (this.discovery) {
      // The plugins may come and go with each discovered configuration: the server's hooks
      // ask for the current ones (a decision is logged only while decision logs are on).
      return {
        ...common,
        events: { has: (name) => this.adapters?.has(name) ?? false, handle: (name, ev) => this.adapters!.handle(name, ev) },
        decisionLogger: (event: DecisionEvent) => this.decisionLogs?.record(event),
        // the plugin takes a partially read input's text from the body (logged-values.ts)
        decisionLoggerReadsBody: true,
      };
    }
    const adapters = this.adapters;
    const dl = this.decisionLogs;
    return {
      ...(adapters?.hasEvents ? { events: adapters } : {}),
      ...common,
      // record(): synchronous per decision unless a mask or drop policy must run.
      ...(dl ? { decisionLogger: (event: DecisionEvent) => dl.record(event), decisionLoggerReadsBody: true } : {}),
    };
  }
}
