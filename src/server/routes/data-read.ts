// Data API reads: GET and POST /v1/data/{path}. The response envelope carries result
// (omitted when undefined), metrics, provenance, explanation, decision_id and, on POST
// without an input, OPA's api_usage_warning.

import type { Context } from 'hono';
import { isPlainObject, type PlainObject, type Value } from '../../eval/value/index.js';
import type { App, Env, ServerContext } from '../context.js';
import { decodeDocument, readBody, nodeIncoming, headerOf } from '../body.js';
import { badRequest, toHttpError } from '../errors.js';
import { remoteAddr } from '../remote.js';
import { route, since } from '../handler.js';
import { boolParam, dataPathToRef, explainParam, pathAfter, refText, splitURL } from '../params.js';
import { parseJSON, JSONParseError } from '../../storage/index.js';
import { provenance } from '../provenance.js';
import { envelope, sendJSON } from '../respond.js';

const WARNING: PlainObject = { code: 'api_usage_warning', message: "'input' key missing from the request" };

async function readPostInput(c: Context<Env>, ctx: ServerContext): Promise<Value | undefined> {
  const buf = await readBody(c.req.raw, ctx.limits, undefined, nodeIncoming(c.env));
  const doc = decodeDocument(c.req.raw, buf, ctx.limits, 'body contains malformed input document', nodeIncoming(c.env));
  if (doc === undefined || doc === null) return undefined;
  if (!isPlainObject(doc)) {
    throw badRequest('body contains malformed input document: request body must be an object with an "input" key');
  }
  return Object.hasOwn(doc, 'input') ? doc['input'] : undefined;
}

function readGetInput(q: URLSearchParams, ctx: ServerContext): Value | undefined {
  const all = q.getAll('input');
  if (all.length === 0) return undefined;
  try {
    return parseJSON(all[all.length - 1]!, { maxDepth: ctx.limits.maxDepth });
  } catch (e) {
    if (e instanceof JSONParseError) throw badRequest(`parameter contains malformed input document: ${e.message}`);
    throw e;
  }
}

export function registerDataRead(app: App, ctx: ServerContext): void {
  const handle = (method: 'GET' | 'POST') =>
    route('v1/data', async (c) => {
      const start = process.hrtime.bigint();
      const { path, query: q } = splitURL(c.req.url);
      const pretty = boolParam(q, 'pretty');
      const wantMetrics = boolParam(q, 'metrics');
      const instrument = boolParam(q, 'instrument');
      const explain = explainParam(q);
      const t0 = process.hrtime.bigint();
      const input = method === 'GET' ? readGetInput(q, ctx) : await readPostInput(c, ctx);
      const inputParse = since(t0);
      const ref = dataPathToRef(pathAfter(path, '/v1/data'));
      const snapshot = ctx.engine.store.snapshot();
      const decisionId = ctx.decisionId();
      const by = remoteAddr(c.env);
      let res;
      try {
        res = await ctx.engine.evaluate(ref, {
          input,
          strictBuiltinErrors: boolParam(q, 'strict-builtin-errors'),
          metrics: wantMetrics,
          instrument,
          explain,
          pretty,
          snapshot,
        });
      } catch (e) {
        const err = toHttpError(e);
        if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, path: refText(ref), input, error: err.body });
        throw err;
      }
      let metrics: Value | undefined;
      if (wantMetrics || instrument) {
        metrics = { ...res.metrics, timer_rego_input_parse_ns: inputParse, timer_server_handler_ns: since(start) } as PlainObject;
      }
      const text = envelope(
        [
          ['provenance', boolParam(q, 'provenance') ? provenance(ctx, snapshot) : undefined],
          ['metrics', metrics],
          ['result', res.result],
          ['warning', method === 'POST' && input === undefined ? WARNING : undefined],
          ['decision_id', decisionId],
          ['explanation', res.result === undefined && explain !== 'full' ? undefined : res.explanation],
        ],
        pretty,
      );
      if (decisionId) {
        ctx.logDecision({ decision_id: decisionId, requested_by: by, path: refText(ref), input, result: res.result, metrics: res.metrics });
      }
      return sendJSON(text, { gzip: { settings: ctx.gzip, acceptEncoding: headerOf(c.req.raw, nodeIncoming(c.env), 'accept-encoding') } });
    });
  app.get('/v1/data', handle('GET'));
  app.get('/v1/data/*', handle('GET'));
  app.post('/v1/data', handle('POST'));
  app.post('/v1/data/*', handle('POST'));
}
