// GET /ui/api/replay: what "open in playground" needs to replay a logged decision as the
// server made it — the server's modules (under bundle-relative names), its base data (the
// store's documents; data.system, where the bundle manifests live, left out as OPA's
// policies cannot shadow it anyway) and each bundle's active revision, so the page can say
// when the revision that decided is gone. The server keeps no earlier revision: the data
// is always the current one. The Rego version the server parses its policies with comes
// along, so the playground reads them the same way (--v0-compatible: v0). So does the time
// the policies or data last changed since the console started (changed-at.ts).

import { isPlainObject as isObject, toJSONText, type Value } from '../../value/index.js';
import type { App, ServerContext } from '../../server/context.js';
import type { RouteDecl } from '../../server/route-table.js';
import { route } from '../../server/handler.js';
import { sendJSON } from '../../server/respond.js';
import { moduleNames } from '../playground/module-names.js';
import { watchChanges } from './changed-at.js';
import type { ConsoleOptions } from '../options.js';

/** The primary holds the store every worker replicates. */
export const replayRoutes: readonly RouteDecl[] = [{ method: 'GET', path: '/ui/api/replay', answeredBy: 'primary' }];

export interface ReplayReply {
  modules: Record<string, string>;
  data: Value;
  bundles: Record<string, Value>;
  rego_version: 'v0' | 'v1';
  /** When the policies or data outside data.system last changed (ISO time), if they have since the console started. */
  changed_at?: string;
}

/** The reply: modules by shown name, the base data, name -> { revision } of the active bundles, and the Rego version. */
export function replayState(ctx: ServerContext, regoVersion: 'v0' | 'v1' = 'v1', changedAt?: string): ReplayReply {
  const root = ctx.engine.store.read([]);
  const data: Record<string, Value> = isObject(root) ? { ...root } : {};
  const sys = data['system'];
  const manifests = isObject(sys) && isObject(sys['bundles']) ? sys['bundles'] : {};
  delete data['system'];
  const bundles: Record<string, Value> = {};
  for (const [name, b] of Object.entries(manifests)) {
    const m = isObject(b) ? b['manifest'] : undefined;
    const rev = isObject(m) ? m['revision'] : undefined;
    bundles[name] = typeof rev === 'string' ? { revision: rev } : {};
  }
  const policies = ctx.engine.listPolicies();
  const names = moduleNames(policies.map((p) => p.id), Object.keys(bundles));
  const modules: Record<string, string> = {};
  for (const p of policies) modules[names.get(p.id)!] = p.raw;
  return { modules, data, bundles, rego_version: regoVersion, ...(changedAt ? { changed_at: changedAt } : {}) };
}

export function registerUiReplay(app: App, ctx: ServerContext, c: ConsoleOptions): void {
  const changedAt = watchChanges(ctx.engine.store);
  app.get('/ui/api/replay', route('ui/api/replay', () => sendJSON(toJSONText(replayState(ctx, c.regoVersion, changedAt()) as unknown as Value))));
}
