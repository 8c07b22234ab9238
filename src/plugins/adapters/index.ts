// Building the configured adapters: a DataAdapterPlugin per data adapter (the manager runs
// them beside the bundle plugin), an EventAdapterRunner per event adapter (the server
// routes POST /v1/events/<name> to it).

import type { DecisionEvent } from '../../engine/index.js';
import type { BundleActivator } from '../bundle/activate.js';
import type { BundleStatus } from '../bundle/status.js';
import type { PolicyEvaluator } from '../logs/mask.js';
import type { PluginLogger } from '../plugin.js';
import type { ServiceClient } from '../services/client.js';
import type { Timing } from '../timing.js';
import type { AdapterConfig } from './config.js';
import { DataAdapterPlugin } from './data-plugin.js';
import { EventAdapterRunner, type EventReply } from './events.js';
import type { AdapterPersistence } from './persist.js';
import { ADAPTER_TYPES } from './registry.js';
import type { IncomingEvent } from './types.js';

export { ADAPTER_TYPES } from './registry.js';
export { adapters as validateAdapters, type AdapterConfig } from './config.js';
export { DataAdapterPlugin, adapterBundleName } from './data-plugin.js';
export { AdapterPersistence } from './persist.js';
export { adapterHttpFor } from './http.js';
export type { EventReply } from './events.js';
export type { IncomingEvent } from './types.js';

export interface AdapterSetOptions {
  adapters: Record<string, AdapterConfig>;
  clients: Map<string, ServiceClient>;
  activator: BundleActivator;
  engine: PolicyEvaluator;
  timing: Timing;
  persistence?: AdapterPersistence;
  logger: PluginLogger;
  onChange: () => void;
  logDecision: () => ((e: DecisionEvent) => Promise<void>) | undefined;
}

export class AdapterSet {
  readonly data = new Map<string, DataAdapterPlugin>();
  private readonly events = new Map<string, EventAdapterRunner>();
  /** Each adapter's settings as configured (reconfigure keeps the unchanged ones). */
  private readonly configs = new Map<string, string>();

  constructor(o: AdapterSetOptions) {
    for (const c of Object.values(o.adapters)) this.add(c, o);
  }

  /**
   * A new configuration (discovery): an adapter whose settings did not change keeps running
   * (and its document); the others are removed or replaced. Returns the data adapters the
   * manager must stop (and whose documents it removes) and those it must start.
   */
  reconfigure(o: AdapterSetOptions): { stop: DataAdapterPlugin[]; start: DataAdapterPlugin[] } {
    const stop: DataAdapterPlugin[] = [];
    for (const [name, text] of [...this.configs]) {
      const next = o.adapters[name];
      if (next && JSON.stringify(next) === text) continue;
      const d = this.data.get(name);
      if (d) stop.push(d);
      this.data.delete(name);
      this.events.delete(name);
      this.configs.delete(name);
    }
    const start: DataAdapterPlugin[] = [];
    for (const c of Object.values(o.adapters)) {
      if (this.configs.has(c.name)) continue;
      this.add(c, o);
      const d = this.data.get(c.name);
      if (d) start.push(d);
    }
    return { stop, start };
  }

  private add(c: AdapterConfig, o: AdapterSetOptions): void {
    this.configs.set(c.name, JSON.stringify(c));
    const t = ADAPTER_TYPES[c.type]!;
    if (c.kind === 'data') {
      this.data.set(
        c.name,
        new DataAdapterPlugin({
          config: c,
          source: t.data!(c.settings),
          client: o.clients.get(c.service!)!,
          activator: o.activator,
          timing: o.timing,
          persistence: o.persistence,
          logger: o.logger,
          onChange: o.onChange,
        }),
      );
    } else {
      this.events.set(
        c.name,
        new EventAdapterRunner({
          config: c,
          mapping: t.event!(c.settings),
          engine: o.engine,
          logDecision: (e) => o.logDecision()?.(e) ?? Promise.resolve(),
          refresh: (name) => this.data.get(name)!.refresh(),
          prepare: (name, input, ms) => this.data.get(name)!.prepareFor(input, ms),
          msPerSecond: o.timing.msPerSecond,
          logger: o.logger,
        }),
      );
    }
  }

  /** Status of each data adapter, for the status document's `adapters`. */
  statuses(): Record<string, BundleStatus> {
    const out: Record<string, BundleStatus> = {};
    for (const [name, p] of this.data) out[name] = p.adapterStatus();
    return out;
  }

  /** Whether the server needs POST /v1/events/<name> (event adapters, push notifications). */
  get hasEvents(): boolean {
    return this.events.size > 0 || [...this.data.values()].some((d) => d.acceptsPush);
  }

  /** `name` is what follows /v1/events/: the adapter's name, then a path token for event adapters that take one. */
  has(name: string): boolean {
    const [adapter, token] = splitName(name);
    if (token !== undefined) return this.events.get(adapter)?.takesPathToken === true;
    return this.events.has(adapter) || this.data.get(adapter)?.acceptsPush === true;
  }

  /** An event for the event adapter `name`, or a push notification for the data adapter `name` (has(name) must hold). */
  handle(name: string, ev: IncomingEvent): Promise<EventReply> {
    const [adapter, pathToken] = splitName(name);
    const e = this.events.get(adapter);
    return e ? e.handle({ ...ev, pathToken }) : Promise.resolve(this.data.get(adapter)!.notify(ev));
  }
}

/** "deploy/s3cret" -> ["deploy", "s3cret"]; adapter names have no "/". */
function splitName(name: string): [string, string | undefined] {
  const i = name.indexOf('/');
  return i < 0 ? [name, undefined] : [name.slice(0, i), name.slice(i + 1)];
}
