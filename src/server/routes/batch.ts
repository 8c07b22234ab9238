// POST /v1/batch/data/{path}: {"inputs": {"<id>": input, ...}, "common_input"?: {...}}
// evaluates every input against one snapshot and answers in the shape the @styra/opa SDK's
// evaluateBatch expects: 200 when all succeed, 207 with per-entry http_status_code when
// results are mixed, 500 when all fail.

import { isPlainObject, newPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { App, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { decodeDocument, readBody, nodeIncoming, headerOf } from '../body.js';
import { badRequest, toHttpError } from '../errors.js';
import { remoteAddr } from '../remote.js';
import { route } from '../handler.js';
import { boolParam, dataPathToRef, pathAfter, refText, splitURL } from '../params.js';
import { provenance } from '../provenance.js';
import { envelope, sendJSON } from '../respond.js';

/** Deep merge where the per-request input wins over common_input. */
function merge(common: Value, own: Value): Value {
  if (!isPlainObject(common) || !isPlainObject(own)) return own;
  const out = newPlainObject();
  for (const k of Object.keys(common)) out[k] = common[k]!;
  for (const k of Object.keys(own)) out[k] = Object.hasOwn(common, k) ? merge(common[k]!, own[k]!) : own[k]!;
  return out;
}

export const batchRoutes: RouteFamily = {
  routes: [
    { method: 'POST', path: '/v1/batch/data', answeredBy: 'worker' },
    { method: 'POST', path: '/v1/batch/data/*', answeredBy: 'worker' },
  ],
  mount: registerBatch,
};

export function registerBatch(app: App, ctx: ServerContext): void {
  const handler = route('v1/batch/data', async (c) => {
    const { path, query: q } = splitURL(c.req.url);
    const pretty = boolParam(q, 'pretty');
    const wantMetrics = boolParam(q, 'metrics');
    const instrument = boolParam(q, 'instrument');
    const strict = boolParam(q, 'strict-builtin-errors');
    const buf = await readBody(c.req.raw, ctx.limits, undefined, nodeIncoming(c.env));
    const body = decodeDocument(c.req.raw, buf, ctx.limits, 'body contains malformed input document', nodeIncoming(c.env));
    if (!isPlainObject(body ?? null)) throw badRequest('body contains malformed input document: expected {"inputs": {...}}');
    const inputs = (body as PlainObject)['inputs'];
    if (!isPlainObject(inputs ?? null)) throw badRequest('body contains malformed input document: "inputs" must be an object');
    const common = (body as PlainObject)['common_input'];
    const ref = dataPathToRef(pathAfter(path, '/v1/batch/data'));
    const snapshot = ctx.engine.store.snapshot();
    const batchId = ctx.decisionId();
    const by = remoteAddr(c.env);
    const entries = Object.entries(inputs as PlainObject);
    const settled = await Promise.all(
      entries.map(async ([id, own]) => {
        const input = common === undefined ? own : merge(common, own);
        const decisionId = ctx.decisionId();
        const ndCache = decisionId ? ctx.ndCache() : undefined;
        try {
          const res = await ctx.engine.evaluate(ref, { input, strictBuiltinErrors: strict, metrics: wantMetrics, instrument, snapshot, ndBuiltinCache: ndCache });
          if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, path: refText(ref), input, result: res.result, metrics: res.metrics, ndCache });
          const out: PlainObject = newPlainObject();
          if (decisionId) out['decision_id'] = decisionId;
          if (wantMetrics || instrument) out['metrics'] = (res.metrics ?? {}) as PlainObject;
          if (boolParam(q, 'provenance')) out['provenance'] = provenance(ctx, snapshot);
          if (res.result !== undefined) out['result'] = res.result;
          return { id, ok: true, out };
        } catch (e) {
          const err = toHttpError(e);
          if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, path: refText(ref), input, error: err.body, ndCache });
          const out: PlainObject = newPlainObject();
          out['code'] = err.body.code;
          out['message'] = err.body.message;
          if (err.body.errors) out['errors'] = err.body.errors as Value[];
          if (decisionId) out['decision_id'] = decisionId;
          return { id, ok: false, out };
        }
      }),
    );
    const failures = settled.filter((s) => !s.ok).length;
    const status = failures === 0 ? 200 : failures === settled.length ? 500 : 207;
    const responses = newPlainObject();
    for (const s of settled) {
      if (status !== 200) s.out['http_status_code'] = s.ok ? '200' : '500';
      responses[s.id] = s.out;
    }
    const text = envelope(
      [
        ['batch_decision_id', batchId],
        ['responses', responses],
      ],
      pretty,
    );
    return sendJSON(text, { status, gzip: { settings: ctx.gzip, acceptEncoding: headerOf(c.req.raw, nodeIncoming(c.env), 'accept-encoding') } });
  });
  app.post('/v1/batch/data', handler);
  app.post('/v1/batch/data/*', handler);
}
