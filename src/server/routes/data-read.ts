// Data API reads: GET and POST /v1/data/{path}. The response envelope carries result
// (omitted when undefined), metrics, provenance, explanation, decision_id and, on POST
// without an input, OPA's api_usage_warning. dataRead() does the work on plain request
// facts and returns a Reply, so that the Hono route and the decision fast path
// (fast-decision.ts) answer with the same bytes.

import type { IncomingMessage } from 'node:http';
import { isPlainObject, type PlainObject, type Value } from '../../eval/value/index.js';
import type { App, ServerContext } from '../context.js';
import { decodeDocument, readBody, nodeIncoming, headerOf } from '../body.js';
import { badRequest, errorReply, toHttpError } from '../errors.js';
import { remoteAddr } from '../remote.js';
import { route, since } from '../handler.js';
import { boolParam, dataPathToRef, explainParam, pathAfter, refText, splitURL } from '../params.js';
import { parseJSON, JSONParseError } from '../../storage/index.js';
import { provenance } from '../provenance.js';
import { envelope, encodeJSON } from '../respond.js';
import { toResponse, type Reply } from '../reply.js';

const WARNING: PlainObject = { code: 'api_usage_warning', message: "'input' key missing from the request" };

/** What a data read needs of the request, whoever received it. */
export interface DataReadRequest {
  method: 'GET' | 'POST';
  /** The raw (still escaped) URL path and its parsed query. */
  path: string;
  query: URLSearchParams;
  /** The web request (Hono) and/or the Node request behind it. */
  req?: Request;
  incoming?: IncomingMessage;
}

async function readPostInput(r: DataReadRequest, ctx: ServerContext): Promise<Value | undefined> {
  const buf = await readBody(r.req, ctx.limits, undefined, r.incoming);
  const doc = decodeDocument(r.req, buf, ctx.limits, 'body contains malformed input document', r.incoming);
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

const REFS_MAX = 1000;
const refs = new Map<string, Value[]>();

/** data.<ref> of a /v1/data/... path, remembered per path (decisions repeat a few paths). */
function refOf(path: string): Value[] {
  let ref = refs.get(path);
  if (!ref) {
    ref = Object.freeze(dataPathToRef(pathAfter(path, '/v1/data'))) as Value[];
    if (refs.size >= REFS_MAX) refs.clear();
    refs.set(path, ref);
  }
  return ref;
}

/** Answers one data read; errors thrown here are shaped by the caller (route or fast path). */
export async function dataRead(ctx: ServerContext, r: DataReadRequest): Promise<Reply> {
  const q = r.query;
  // No query string (the common decision request): every parameter is off.
  const hasQuery = q.size > 0;
  const pretty = hasQuery && boolParam(q, 'pretty');
  const wantMetrics = hasQuery && boolParam(q, 'metrics');
  const instrument = hasQuery && boolParam(q, 'instrument');
  const explain = hasQuery ? explainParam(q) : undefined;
  // Clock reads only when the response reports timers.
  const timed = wantMetrics || instrument;
  const start = timed ? process.hrtime.bigint() : 0n;
  const input = r.method === 'GET' ? readGetInput(q, ctx) : await readPostInput(r, ctx);
  const inputParse = timed ? since(start) : 0;
  const ref = refOf(r.path);
  const snapshot = ctx.engine.store.snapshot();
  const decisionId = ctx.decisionId();
  const by = decisionId ? remoteAddr({ incoming: r.incoming }) : undefined;
  const ndCache = decisionId ? ctx.ndCache() : undefined;
  let res;
  try {
    res = await ctx.engine.evaluate(ref, {
      input,
      strictBuiltinErrors: hasQuery && boolParam(q, 'strict-builtin-errors'),
      metrics: wantMetrics,
      instrument,
      explain,
      pretty,
      snapshot,
      ndBuiltinCache: ndCache,
    });
  } catch (e) {
    const err = toHttpError(e);
    if (decisionId) ctx.logDecision({ decision_id: decisionId, requested_by: by, path: refText(ref), input, error: err.body, ndCache });
    throw err;
  }
  let metrics: Value | undefined;
  if (wantMetrics || instrument) {
    metrics = { ...res.metrics, timer_rego_input_parse_ns: inputParse, timer_server_handler_ns: since(start) } as PlainObject;
  }
  const text = envelope(
    [
      ['provenance', hasQuery && boolParam(q, 'provenance') ? provenance(ctx, snapshot) : undefined],
      ['metrics', metrics],
      ['result', res.result],
      ['warning', r.method === 'POST' && input === undefined ? WARNING : undefined],
      ['decision_id', decisionId],
      ['explanation', res.result === undefined && explain !== 'full' ? undefined : res.explanation],
    ],
    pretty,
  );
  if (decisionId) {
    ctx.logDecision({ decision_id: decisionId, requested_by: by, path: refText(ref), input, result: res.result, metrics: res.metrics, ndCache });
  }
  return encodeJSON(text, { gzip: { settings: ctx.gzip, acceptEncoding: headerOf(r.req, r.incoming, 'accept-encoding') } });
}

/** dataRead with errors in OPA's shape, as a Reply (for the fast path). */
export async function dataReadReply(ctx: ServerContext, r: DataReadRequest): Promise<Reply> {
  try {
    return await dataRead(ctx, r);
  } catch (e) {
    return errorReply(toHttpError(e, 'data'));
  }
}

export function registerDataRead(app: App, ctx: ServerContext): void {
  const handle = (method: 'GET' | 'POST') =>
    route('v1/data', async (c) => {
      const { path, query } = splitURL(c.req.url);
      return toResponse(await dataRead(ctx, { method, path, query, req: c.req.raw, incoming: nodeIncoming(c.env) }));
    });
  app.get('/v1/data', handle('GET'));
  app.get('/v1/data/*', handle('GET'));
  app.post('/v1/data', handle('POST'));
  app.post('/v1/data/*', handle('POST'));
}
