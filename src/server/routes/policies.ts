// Policy API: list, get, put (parse + compile + install, atomically) and delete
// (refused with 400 when other modules depend on the module). Modules whose package lies
// in a path a bundle owns cannot be replaced, added or deleted (400), as in OPA.

import type { App, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { readRaw, nodeIncoming } from '../body.js';
import { route } from '../handler.js';
import { boolParam, pathAfter, splitURL } from '../params.js';
import { pathUnescape, StorageError } from '../../storage/index.js';
import { envelope, sendJSON } from '../respond.js';
import type { PolicyModule } from '../../engine/types.js';
import { isPlainObject, type PlainObject, type Value } from '../../value/index.js';
import { checkBundleScope } from '../bundle-scope.js';
import type { WriteTxn } from '../../storage/index.js';

function policyId(url: string): string {
  return pathUnescape(pathAfter(splitURL(url).path, '/v1/policies/'));
}

/** The package path of a module from its OPA-shaped AST (`data` dropped); undefined when the AST has none. */
function astPackagePath(ast: Value): string[] | undefined {
  const path = isPlainObject(ast) && isPlainObject(ast['package'] ?? null) ? (ast['package'] as PlainObject)['path'] : undefined;
  if (!Array.isArray(path)) return undefined;
  return path.slice(1).map((t) => String(isPlainObject(t) ? t['value'] : t));
}

const guard = (txn: WriteTxn, packagePath: string[]): void => checkBundleScope(txn.data, packagePath);

function policyValue(p: PolicyModule): Value {
  return { id: p.id, raw: p.raw, ast: p.ast } as PlainObject;
}

/** Reads from any worker; writes to the primary, which holds the one store. */
export const policiesRoutes: RouteFamily = {
  routes: [
    { method: 'GET', path: '/v1/policies', answeredBy: 'worker' },
    { method: 'GET', path: '/v1/policies/*', answeredBy: 'worker' },
    { method: 'PUT', path: '/v1/policies/*', answeredBy: 'primary' },
    { method: 'DELETE', path: '/v1/policies/*', answeredBy: 'primary' },
  ],
  resources: ['/v1/policies', '/v1/policies/*'],
  mount: registerPolicies,
};

export function registerPolicies(app: App, ctx: ServerContext): void {
  const engine = ctx.engine;

  app.get(
    '/v1/policies',
    route('v1/policies', (c) => {
      const pretty = boolParam(splitURL(c.req.url).query, 'pretty');
      const list = engine.listPolicies().map(policyValue);
      return sendJSON(envelope([['result', list]], pretty));
    }),
  );

  app.get(
    '/v1/policies/*',
    route('v1/policies', (c) => {
      const id = policyId(c.req.url);
      const p = engine.getPolicy(id);
      if (!p) throw new StorageError('storage_not_found_error', `policy id ${JSON.stringify(id)}`);
      return sendJSON(envelope([['result', policyValue(p)]], boolParam(splitURL(c.req.url).query, 'pretty')));
    }),
  );

  app.put(
    '/v1/policies/*',
    route(
      'v1/policies',
      async (c) => {
        const start = process.hrtime.bigint();
        const q = splitURL(c.req.url).query;
        const id = policyId(c.req.url);
        const raw = (await readRaw(c.req.raw, ctx.limits, nodeIncoming(c.env))).toString('utf8');
        const wantMetrics = boolParam(q, 'metrics');
        let metrics: Record<string, number> | undefined;
        const existing = engine.getPolicy(id);
        // Scope before the no-op check: re-uploading a bundle's own module is refused too.
        const oldPackage = existing && astPackagePath(existing.ast);
        if (oldPackage) checkBundleScope(engine.store.snapshot().data, oldPackage);
        // Re-uploading the same text is a no-op, as in OPA.
        if (existing?.raw !== raw) {
          metrics = (await engine.putPolicy(id, raw, { metrics: wantMetrics, guard })).metrics;
        }
        const m = wantMetrics ? ({ ...metrics, timer_server_handler_ns: Number(process.hrtime.bigint() - start) } as PlainObject) : undefined;
        return sendJSON(envelope([['metrics', m]], boolParam(q, 'pretty')));
      },
      'module',
    ),
  );

  app.delete(
    '/v1/policies/*',
    route(
      'v1/policies',
      async (c) => {
        const q = splitURL(c.req.url).query;
        const id = policyId(c.req.url);
        const wantMetrics = boolParam(q, 'metrics');
        const res = await engine.deletePolicy(id, { metrics: wantMetrics, guard });
        const m = wantMetrics ? ((res.metrics ?? {}) as PlainObject) : undefined;
        return sendJSON(envelope([['metrics', m]], boolParam(q, 'pretty')));
      },
      'module-delete',
    ),
  );
}
