// Webhook-style reads with unwrapped bodies: POST /v0/data/{path} and POST / (the
// default decision, data.system.main unless configured). The body is the input itself;
// the answer is the document itself, or 404 undefined_document when it is undefined.

import type { Context } from 'hono';
import type { Value } from '../../value/index.js';
import type { App, Env, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { decodeDocument, readBody, nodeIncoming, headerOf } from '../body.js';
import { Code, HttpError, Msg, toHttpError } from '../errors.js';
import { remoteAddr } from '../remote.js';
import { route } from '../handler.js';
import { boolParam, dataPathToRef, pathAfter, refText, splitURL } from '../params.js';
import { sendJSON, valueText } from '../respond.js';

async function evaluateV0(c: Context<Env>, ctx: ServerContext, ref: Value[], compress: boolean): Promise<Response> {
  const { query: q } = splitURL(c.req.url);
  const buf = await readBody(c.req.raw, ctx.limits, 'unexpected parse error for input: could not decompress the body', nodeIncoming(c.env));
  const input = decodeDocument(c.req.raw, buf, ctx.limits, 'unexpected parse error for input: body contains malformed input document', nodeIncoming(c.env));
  const decisionId = ctx.decisionId();
  const by = remoteAddr(c.env);
  const path = refText(ref);
  const ndCache = decisionId ? ctx.ndCache() : undefined;
  let res;
  try {
    res = await ctx.engine.evaluate(ref, { input, snapshot: ctx.engine.store.snapshot(), ndBuiltinCache: ndCache });
  } catch (e) {
    const err = toHttpError(e);
    if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, path, input, error: err.body, ndCache });
    throw err;
  }
  if (res.result === undefined) {
    const kind = ctx.engine.hasRulesAt(ref) ? Msg.foundUndefined : Msg.missing;
    const err = new HttpError(404, Code.undefinedDocument, `${kind}: ${path}`);
    if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, path, input, error: err.body, ndCache });
    throw err;
  }
  if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, path, input, result: res.result, ndCache });
  const text = valueText(res.result, boolParam(q, 'pretty'));
  return sendJSON(text, compress ? { gzip: { settings: ctx.gzip, acceptEncoding: headerOf(c.req.raw, nodeIncoming(c.env), 'accept-encoding') } } : {});
}

export const v0Routes: RouteFamily = {
  routes: [
    { method: 'POST', path: '/v0/data', answeredBy: 'worker' },
    { method: 'POST', path: '/v0/data/*', answeredBy: 'worker' },
    { method: 'POST', path: '/', answeredBy: 'worker' },
  ],
  resources: ['/v0/data', '/v0/data/*'],
  mount: registerV0,
};

export function registerV0(app: App, ctx: ServerContext): void {
  const v0 = route('v0/data', (c) => evaluateV0(c, ctx, dataPathToRef(pathAfter(splitURL(c.req.url).path, '/v0/data')), true));
  app.post('/v0/data', v0);
  app.post('/v0/data/*', v0);
  app.post(
    '/',
    route('index', (c) => evaluateV0(c, ctx, ctx.defaultDecision, false)),
  );
}
