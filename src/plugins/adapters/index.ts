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

  constructor(o: AdapterSetOptions) {
    for (const c of Object.values(o.adapters)) {
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
            logger: o.logger,
          }),
        );
      }
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

  has(name: string): boolean {
    return this.events.has(name) || this.data.get(name)?.acceptsPush === true;
  }

  /** An event for the event adapter `name`, or a push notification for the data adapter `name` (has(name) must hold). */
  handle(name: string, ev: IncomingEvent): Promise<EventReply> {
    const e = this.events.get(name);
    return e ? e.handle(ev) : Promise.resolve(this.data.get(name)!.notify(ev));
  }
}
