// Data API reads: GET and POST /v1/data/{path}. The response envelope carries result
// (omitted when undefined), metrics, provenance, explanation, decision_id and, on POST
// without an input, OPA's api_usage_warning. answerDataRead() evaluates an input already
// read and returns a Reply (synchronously when it can); the Hono route reaches it through
// dataRead(), the decision fast path (fast-decision.ts) directly, so both answer with the
// same bytes.

import type { IncomingMessage } from 'node:http';
import { inputText, isPlainObject, stringText, toJSONText, type JSONNeeds, type PlainObject, type Value } from '../../value/index.js';
import type { Snapshot } from '../../storage/index.js';
import type { EvalResult, ExplainMode } from '../../engine/types.js';
import type { App, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { decodeDocument, isYAML, readBody, nodeIncoming, headerOf, type RequestHead } from '../body.js';
import { badRequest, toHttpError, type ErrorBody, type HttpError } from '../errors.js';
import { remoteAddr } from '../remote.js';
import { setDecisionId } from '../observe.js';
import { route, since } from '../handler.js';
import { boolParam, dataPathToRef, explainParam, pathAfter, refText, splitURL } from '../params.js';
import { parseJSON, JSONParseError } from '../../value/index.js';
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
  /** The request's head (Node's request, or one read below Node's HTTP layer). */
  incoming?: RequestHead;
}

const MALFORMED_INPUT = 'body contains malformed input document';

/**
 * Shorter bodies are parsed whole either way (readNeeded reads texts under 2,000 characters
 * with parseJSON): asking the engine what the decision reads would cost a plan lookup per
 * request for nothing. Bytes >= characters, so the test is safe for any UTF-8 text.
 */
const SPARSE_MIN_BYTES = 2000;

/**
 * A decoded POST body (undefined when empty); 400 unless it is an object. Built whole, or only
 * where `needs` says (the rest checked, not built).
 */
function postDocument(req: DataReadRequest, body: Buffer, ctx: ServerContext, needs: JSONNeeds | undefined): PlainObject | undefined {
  const doc = decodeDocument(req.req, body, ctx.limits, MALFORMED_INPUT, req.incoming, needs);
  if (doc === undefined || doc === null) return undefined;
  if (!isPlainObject(doc)) {
    throw badRequest(`${MALFORMED_INPUT}: request body must be an object with an "input" key`);
  }
  return doc;
}

/**
 * Answers a POST data read whose body has been read.
 *
 * A large body is built only where the decision can read (for an explanation, which may show
 * any of it, whole). With decisions logged the log holds the whole input, so it is built
 * whole, unless the logger takes the input's text from the body (`decisionLoggerReadsBody`)
 * and that text can be copied (value/json-input-text.ts): then the body is read as without
 * logging, with every other top-level member kept as an empty shell so that "input is the one
 * key" can be checked. When the body is a JSON object whose one key is "input" and its text can
 * be copied, the log is given that text instead of writing the value again.
 */
export function answerPost(ctx: ServerContext, r: DataReadRequest, p: DataReadParams, body: Buffer): Reply | Promise<Reply> {
  const logs = ctx.opts.decisionLogger !== undefined;
  const large = body.length >= SPARSE_MIN_BYTES;
  // a JSON body, which may be read sparsely or copied (a YAML one is neither; asked only when it matters)
  const json = (logs || large) && !isYAML(r.req, r.incoming);
  // the input's text for the log, found before the body is read: it decides how it is read
  const text = logs && json ? inputText(body) : undefined;
  let needs: JSONNeeds | undefined;
  if (p.explain === undefined && large && json) {
    if (!logs) needs = bodyNeeds(ctx, r.path, false);
    else if (ctx.opts.decisionLoggerReadsBody && text !== undefined) needs = bodyNeeds(ctx, r.path, true);
  }
  let doc = postDocument(r, body, ctx, needs);
  // the text stands for the input only when "input" is the body's one key
  const sole = text !== undefined && doc !== undefined && Object.hasOwn(doc, 'input') && onlyKey(doc);
  if (needs !== undefined && logs && !sole) {
    // the log needs the whole input and cannot copy its text: read it whole after all
    doc = postDocument(r, body, ctx, undefined);
    needs = undefined;
  }
  const input = doc !== undefined && Object.hasOwn(doc, 'input') ? doc['input'] : undefined;
  return answerDataRead(ctx, r, p, input, p.start ? since(p.start) : 0, sole ? text : undefined, needs !== undefined && logs);
}

/** Whether `o` has one own key (the one its caller knows it has). */
function onlyKey(o: PlainObject): boolean {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k) && ++n > 1) return false;
  return n === 1;
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
const refs = new Map<string, DataRef>();

/** data.<ref> of a /v1/data/... path, and its text for decision logs. */
interface DataRef {
  ref: Value[];
  text: string;
}

/** The body's needs (`{"input": <what the decision reads>}`), made once per input needs. */
const bodyNeedsOf = new WeakMap<JSONNeeds, JSONNeeds>();
/** The same, with every other top-level member kept (as an empty shell): they are counted. */
const countedBodyNeedsOf = new WeakMap<JSONNeeds, JSONNeeds>();
const SHELL: JSONNeeds = { all: false, keys: new Map(), any: undefined };

function bodyNeeds(ctx: ServerContext, path: string, counted: boolean): JSONNeeds | undefined {
  const n = ctx.engine.inputNeeds?.(refOf(path).ref);
  if (n === undefined) return undefined;
  const of = counted ? countedBodyNeedsOf : bodyNeedsOf;
  let b = of.get(n);
  if (b === undefined) of.set(n, (b = { all: false, keys: new Map([['input', n]]), any: counted ? SHELL : undefined }));
  return b;
}

/** The ref of a /v1/data/... path, remembered per path (decisions repeat a few paths). */
function refOf(path: string): DataRef {
  let ref = refs.get(path);
  if (!ref) {
    const r = Object.freeze(dataPathToRef(pathAfter(path, '/v1/data'))) as Value[];
    ref = { ref: r, text: refText(r) };
    if (refs.size >= REFS_MAX) refs.clear();
    refs.set(path, ref);
  }
  return ref;
}

/** The query parameters of a data read. */
export interface DataReadParams {
  pretty: boolean;
  metrics: boolean;
  instrument: boolean;
  explain: ExplainMode | undefined;
  strict: boolean;
  provenance: boolean;
  /** When the request started (process.hrtime.bigint()), only when it reports timers. */
  start: bigint;
}

/** A request without a query string (the common decision request): every parameter off. */
export const NO_PARAMS: DataReadParams = Object.freeze({
  pretty: false,
  metrics: false,
  instrument: false,
  explain: undefined,
  strict: false,
  provenance: false,
  start: 0n,
});

export function dataReadParams(q: URLSearchParams): DataReadParams {
  if (q.size === 0) return NO_PARAMS;
  const metrics = boolParam(q, 'metrics');
  const instrument = boolParam(q, 'instrument');
  return {
    pretty: boolParam(q, 'pretty'),
    metrics,
    instrument,
    explain: explainParam(q),
    strict: boolParam(q, 'strict-builtin-errors'),
    provenance: boolParam(q, 'provenance'),
    // Clock reads only when the response reports timers.
    start: metrics || instrument ? process.hrtime.bigint() : 0n,
  };
}

/**
 * Answers one data read (Hono route), its body still to be read from `stream` (Node's
 * request) or from the web request; errors thrown here are shaped by the caller.
 */
export async function dataRead(ctx: ServerContext, r: DataReadRequest, stream?: IncomingMessage): Promise<Reply> {
  const p = dataReadParams(r.query);
  if (r.method === 'GET') return answerDataRead(ctx, r, p, readGetInput(r.query, ctx), p.start ? since(p.start) : 0);
  return answerPost(ctx, r, p, await readBody(r.req, ctx.limits, undefined, stream));
}

/**
 * Evaluates data.<path> for an input already read and answers with OPA's envelope.
 * Synchronous unless evaluation waits on I/O or the reply is gzipped, so that the fast
 * path can answer in the tick the body arrived. Errors are thrown as HttpErrors.
 */
export function answerDataRead(
  ctx: ServerContext,
  r: DataReadRequest,
  p: DataReadParams,
  input: Value | undefined,
  inputParseNs: number,
  inputText?: Buffer,
  inputPartial = false,
): Reply | Promise<Reply> {
  const d = new Decision(ctx, r, p, input, inputParseNs, inputText, inputPartial);
  let res: EvalResult | Promise<EvalResult>;
  try {
    res = ctx.engine.evaluate(d.ref, {
      input,
      strictBuiltinErrors: p.strict,
      metrics: p.metrics,
      instrument: p.instrument,
      explain: p.explain,
      pretty: p.pretty,
      snapshot: d.snapshot,
      ndBuiltinCache: d.ndCache,
    });
  } catch (e) {
    throw d.failed(e);
  }
  if (res instanceof Promise) {
    return res.then(
      (out) => d.reply(out),
      (e: unknown) => {
        throw d.failed(e);
      },
    );
  }
  return d.reply(res);
}

/** One decision of a data read: what its reply and its decision-log event need. */
class Decision {
  readonly ref: Value[];
  private readonly refText: string;
  readonly snapshot: Snapshot;
  readonly decisionId: string | undefined;
  readonly ndCache: Map<string, Map<string, Value>> | undefined;

  constructor(
    private readonly ctx: ServerContext,
    private readonly r: DataReadRequest,
    private readonly p: DataReadParams,
    private readonly input: Value | undefined,
    private readonly inputParseNs: number,
    private readonly inputText: Buffer | undefined,
    private readonly inputPartial: boolean,
  ) {
    const ref = refOf(r.path);
    this.ref = ref.ref;
    this.refText = ref.text;
    this.snapshot = ctx.engine.store.snapshot();
    this.decisionId = ctx.decisionId();
    setDecisionId(r.incoming, this.decisionId);
    this.ndCache = this.decisionId ? ctx.ndCache() : undefined;
  }

  /** An evaluation error as an HttpError, logged as a decision when decision logging is on. */
  failed(e: unknown): HttpError {
    const err = toHttpError(e);
    if (this.decisionId) this.log(undefined, undefined, undefined, err.body);
    return err;
  }

  reply(res: EvalResult): Reply | Promise<Reply> {
    const { p, r } = this;
    const warning = r.method === 'POST' && this.input === undefined ? WARNING : undefined;
    let text: string;
    let resultJSON: string | undefined;
    if (p === NO_PARAMS && warning === undefined && res.explanation === undefined) {
      // The common decision: only the result and the decision id (what envelope() writes for these fields).
      if (res.result !== undefined) resultJSON = toJSONText(res.result);
      const id = this.decisionId === undefined ? undefined : '"decision_id":' + stringText(this.decisionId);
      if (resultJSON === undefined) text = id === undefined ? '{}' : '{' + id + '}';
      else text = '{"result":' + resultJSON + (id === undefined ? '}' : ',' + id + '}');
    } else {
      let metrics: Value | undefined;
      if (p.metrics || p.instrument) {
        metrics = { ...res.metrics, timer_rego_input_parse_ns: this.inputParseNs, timer_server_handler_ns: since(p.start) } as PlainObject;
      }
      text = envelope(
        [
          ['provenance', p.provenance ? provenance(this.ctx, this.snapshot) : undefined],
          ['metrics', metrics],
          ['result', res.result],
          ['warning', warning],
          ['decision_id', this.decisionId],
          ['explanation', res.result === undefined && p.explain !== 'full' ? undefined : res.explanation],
        ],
        p.pretty,
      );
    }
    // The result's text goes to the log with it: serialised once for both.
    if (this.decisionId) this.log(res.result, resultJSON, res.metrics, undefined);
    return encodeJSON(text, { gzip: { settings: this.ctx.gzip, acceptEncoding: headerOf(r.req, r.incoming, 'accept-encoding') } });
  }

  private log(result: Value | undefined, resultJSON: string | undefined, metrics: Record<string, number> | undefined, error: ErrorBody | undefined): void {
    this.ctx.logDecision({
      decision_id: this.decisionId!,
      requested_by: remoteAddr({ incoming: this.r.incoming }),
      path: this.refText,
      input: this.input,
      result,
      result_json: resultJSON,
      input_text: this.inputText,
      input_partial: this.inputPartial || undefined,
      metrics,
      error,
      ndCache: this.ndCache,
    });
  }
}

export const dataReadRoutes: RouteFamily = {
  routes: [
    { method: 'GET', path: '/v1/data', answeredBy: 'worker' },
    { method: 'GET', path: '/v1/data/*', answeredBy: 'worker' },
    { method: 'POST', path: '/v1/data', answeredBy: 'worker' },
    { method: 'POST', path: '/v1/data/*', answeredBy: 'worker' },
  ],
  resources: ['/v1/data', '/v1/data/*'],
  mount: registerDataRead,
};

export function registerDataRead(app: App, ctx: ServerContext): void {
  const handle = (method: 'GET' | 'POST') =>
    route('v1/data', async (c) => {
      const { path, query } = splitURL(c.req.url);
      const incoming = nodeIncoming(c.env);
      return toResponse(await dataRead(ctx, { method, path, query, req: c.req.raw, incoming }, incoming));
    });
  app.get('/v1/data', handle('GET'));
  app.get('/v1/data/*', handle('GET'));
  app.post('/v1/data', handle('POST'));
  app.post('/v1/data/*', handle('POST'));
}
