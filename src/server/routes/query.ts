// Query API: GET /v1/query?q=... and POST /v1/query {query, input}. A `watch` parameter
// asks for streaming, which is not implemented (501), as the seed allows.

import type { Context } from 'hono';
import { isPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { App, Env, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { decodeJSON, DecodeError, readBody, nodeIncoming } from '../body.js';
import { badRequest, Code, HttpError, toHttpError } from '../errors.js';
import { remoteAddr } from '../remote.js';
import { route, since } from '../handler.js';
import { boolParam, explainParam, splitURL } from '../params.js';
import { envelope, sendJSON } from '../respond.js';

async function runQuery(c: Context<Env>, ctx: ServerContext, query: string, input: Value | undefined, start: bigint): Promise<Response> {
  const q = splitURL(c.req.url).query;
  if (q.has('watch')) throw new HttpError(501, Code.invalidOperation, 'streaming not implemented');
  const pretty = boolParam(q, 'pretty');
  const wantMetrics = boolParam(q, 'metrics');
  const instrument = boolParam(q, 'instrument');
  const explain = explainParam(q);
  const decisionId = ctx.decisionId();
  const by = remoteAddr(c.env);
  const ndCache = decisionId ? ctx.ndCache() : undefined;
  let res;
  try {
    res = await ctx.engine.query(query, {
      input,
      metrics: wantMetrics,
      instrument,
      explain,
      pretty,
      snapshot: ctx.engine.store.snapshot(),
      ndBuiltinCache: ndCache,
    });
  } catch (e) {
    const err = toHttpError(e, 'query');
    if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, query, input, error: err.body, ndCache });
    throw err;
  }
  const metrics = wantMetrics || instrument ? ({ ...res.metrics, timer_server_handler_ns: since(start) } as PlainObject) : undefined;
  if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, query, input, result: res.result as Value[], ndCache });
  const text = envelope(
    [
      ['explanation', res.explanation],
      ['metrics', metrics],
      // OPA omits an empty result set (omitempty).
      ['result', res.result.length ? (res.result as Value[]) : undefined],
    ],
    pretty,
  );
  return sendJSON(text);
}

/** `/v1/query/*` has no handler, but is a known resource: every method there answers 405. */
export const queryRoutes: RouteFamily = {
  routes: [
    { method: 'GET', path: '/v1/query', answeredBy: 'worker' },
    { method: 'POST', path: '/v1/query', answeredBy: 'worker' },
  ],
  resources: ['/v1/query', '/v1/query/*'],
  mount: registerQuery,
};

export function registerQuery(app: App, ctx: ServerContext): void {
  app.get(
    '/v1/query',
    route(
      'v1/query',
      (c) => {
        const start = process.hrtime.bigint();
        const all = splitURL(c.req.url).query.getAll('q');
        if (all.length === 0) throw badRequest("missing parameter 'q'");
        return runQuery(c, ctx, all[all.length - 1]!, undefined, start);
      },
      'query',
    ),
  );
  app.post(
    '/v1/query',
    route(
      'v1/query',
      async (c) => {
        const start = process.hrtime.bigint();
        const buf = await readBody(c.req.raw, ctx.limits, undefined, nodeIncoming(c.env));
        let body: Value | undefined;
        try {
          body = decodeJSON(buf, ctx.limits);
        } catch (e) {
          if (e instanceof DecodeError) throw badRequest(`error(s) occurred while decoding request: ${e.message}`);
          throw e;
        }
        if (body === undefined) throw badRequest('error(s) occurred while decoding request: EOF');
        if (body !== null && !isPlainObject(body)) throw badRequest('error(s) occurred while decoding request: body must be an object');
        const query = body === null ? '' : (body['query'] ?? '');
        if (typeof query !== 'string') throw badRequest('error(s) occurred while decoding request: "query" must be a string');
        const input = body !== null && Object.hasOwn(body, 'input') && body['input'] !== null ? body['input'] : undefined;
        return runQuery(c, ctx, query, input, start);
      },
      'query',
    ),
  );
}
