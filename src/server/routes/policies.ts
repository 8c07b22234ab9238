// Policy API: list, get, put (parse + compile + install, atomically) and delete
// (refused with 400 when other modules depend on the module).

import type { App, ServerContext } from '../context.js';
import { readRaw, nodeIncoming } from '../body.js';
import { route } from '../handler.js';
import { boolParam, pathAfter, splitURL } from '../params.js';
import { pathUnescape, StorageError } from '../../storage/index.js';
import { envelope, sendJSON } from '../respond.js';
import type { PolicyModule } from '../engine.js';
import type { PlainObject, Value } from '../../eval/value/index.js';

function policyId(url: string): string {
  return pathUnescape(pathAfter(splitURL(url).path, '/v1/policies/'));
}

function policyValue(p: PolicyModule): Value {
  return { id: p.id, raw: p.raw, ast: p.ast } as PlainObject;
}

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
        // Re-uploading the same text is a no-op, as in OPA.
        if (engine.getPolicy(id)?.raw !== raw) {
          metrics = (await engine.putPolicy(id, raw, { metrics: wantMetrics })).metrics;
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
        const res = await engine.deletePolicy(id, { metrics: wantMetrics });
        const m = wantMetrics ? ((res.metrics ?? {}) as PlainObject) : undefined;
        return sendJSON(envelope([['metrics', m]], boolParam(q, 'pretty')));
      },
      'module-delete',
    ),
  );
}
