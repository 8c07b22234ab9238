// Compile API: POST /v1/compile. The request is decoded and validated here; the partial
// evaluation itself is the engine's (EngineError 'unimplemented' -> 501 until it exists).

import { isPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { Context } from 'hono';
import type { App, Env, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { decodeJSON, DecodeError, readBody, nodeIncoming, headerOf } from '../body.js';
import { badRequest, toHttpError } from '../errors.js';
import { route, since } from '../handler.js';
import { boolParam, explainParam, splitURL } from '../params.js';
import { envelope, sendJSON } from '../respond.js';
import type { CompileRequest } from '../../engine/types.js';

const DECODE = 'error(s) occurred while decoding request';

function stringArray(v: Value | undefined, what: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw badRequest(`${DECODE}: "${what}" must be an array of strings`);
  return v as string[];
}

export function parseCompileRequest(body: Value | undefined): CompileRequest {
  if (body === undefined) throw badRequest(`${DECODE}: EOF`);
  if (body !== null && !isPlainObject(body)) throw badRequest(`${DECODE}: body must be an object`);
  const b = (body ?? {}) as PlainObject;
  const query = b['query'] ?? '';
  if (typeof query !== 'string') throw badRequest(`${DECODE}: "query" must be a string`);
  if (query.trim() === '') throw badRequest("missing required 'query' value");
  const opts = b['options'];
  if (opts !== undefined && opts !== null && !isPlainObject(opts)) throw badRequest(`${DECODE}: "options" must be an object`);
  const o = (opts ?? {}) as PlainObject;
  const nd = o['nondeterministicBuiltins'];
  return {
    query,
    input: b['input'] === null ? undefined : b['input'],
    unknowns: stringArray(b['unknowns'], 'unknowns'),
    options: {
      disableInlining: stringArray(o['disableInlining'], 'options.disableInlining'),
      nondeterministicBuiltins: nd === true,
    },
  };
}

/** The body of a data-filtering request: like a compile request, with the query given by the path. */
export function parseFilterRequest(body: Value | undefined, path: string[], accept: string | undefined): CompileRequest {
  const b = body === undefined || body === null ? {} : body;
  if (!isPlainObject(b)) throw badRequest(`${DECODE}: body must be an object`);
  const o = (b['options'] ?? {}) as PlainObject;
  if (!isPlainObject(o)) throw badRequest(`${DECODE}: "options" must be an object`);
  const mask = o['maskRule'];
  if (mask !== undefined && mask !== null && typeof mask !== 'string') throw badRequest(`${DECODE}: "options.maskRule" must be a string`);
  const mappings = o['targetSQLTableMappings'];
  if (mappings !== undefined && mappings !== null && !isPlainObject(mappings)) throw badRequest(`${DECODE}: "options.targetSQLTableMappings" must be an object`);
  const base = parseCompileRequest({ ...b, query: `data.${path.join('.') || 'x'}` });
  return {
    ...base,
    unknowns: stringArray(b['unknowns'], 'unknowns'),
    options: {
      ...base.options,
      targetDialects: stringArray(o['targetDialects'], 'options.targetDialects'),
      targetSQLTableMappings: mappings ?? undefined,
      maskRule: typeof mask === 'string' ? mask : undefined,
    },
    path,
    accept,
  };
}

/** The filter rule's path from /v1/compile/<a>/<b>: percent-decoded segments. */
function filterPath(url: string): string[] {
  const rest = splitURL(url).path.replace(/^\/v1\/compile\/?/, '');
  const segs = rest.split('/').filter((x) => x !== '');
  try {
    return segs.map(decodeURIComponent);
  } catch {
    throw badRequest('invalid path: bad percent-encoding');
  }
}

export const compileRoutes: RouteFamily = {
  routes: [
    { method: 'POST', path: '/v1/compile', answeredBy: 'worker' },
    { method: 'POST', path: '/v1/compile/*', answeredBy: 'worker' },
    { method: 'GET', path: '/v1/compile/*', answeredBy: 'worker' },
  ],
  mount: registerCompile,
};

export function registerCompile(app: App, ctx: ServerContext): void {
  app.post(
    '/v1/compile',
    route(
      'v1/compile',
      async (c) => {
        const start = process.hrtime.bigint();
        const q = splitURL(c.req.url).query;
        const buf = await readBody(c.req.raw, ctx.limits, undefined, nodeIncoming(c.env));
        let body: Value | undefined;
        try {
          body = decodeJSON(buf, ctx.limits);
        } catch (e) {
          if (e instanceof DecodeError) throw badRequest(`${DECODE}: ${e.message}`);
          throw e;
        }
        const req = parseCompileRequest(body);
        return answer(c, ctx, req, q, start);
      },
      'query',
    ),
  );
  // Data filtering (OPA 1.9+): the query is data.<path>; the Accept header picks the target.
  const filter = route(
    'v1/compile',
    async (c) => {
      const start = process.hrtime.bigint();
      const q = splitURL(c.req.url).query;
      const path = filterPath(c.req.url);
      if (!path.length) throw badRequest('invalid path: the filter rule is missing (/v1/compile/<package>/<rule>)');
      let body: Value | undefined;
      if (c.req.method === 'POST') {
        const buf = await readBody(c.req.raw, ctx.limits, undefined, nodeIncoming(c.env));
        try {
          body = buf.length ? decodeJSON(buf, ctx.limits) : undefined;
        } catch (e) {
          if (e instanceof DecodeError) throw badRequest(`${DECODE}: ${e.message}`);
          throw e;
        }
      } else {
        const input = q.get('input');
        if (input !== undefined && input !== null) {
          try {
            body = { input: JSON.parse(input) as Value };
          } catch (e) {
            throw badRequest(`${DECODE}: input: ${(e as Error).message}`);
          }
        }
      }
      const req = parseFilterRequest(body, path, headerOf(c.req.raw, nodeIncoming(c.env), 'accept') ?? undefined);
      return answer(c, ctx, req, q, start);
    },
    'query',
  );
  app.post('/v1/compile/*', filter);
  app.get('/v1/compile/*', filter);
}

/** Runs a compile request and writes the answer (pretty, metrics, gzip as on the other endpoints). */
async function answer(c: Context<Env>, ctx: ServerContext, req: CompileRequest, q: URLSearchParams, start: bigint): Promise<Response> {
  try {
    ctx.engine.validateQuery(req.query);
  } catch (e) {
    throw toHttpError(e, 'query');
  }
  const pretty = boolParam(q, 'pretty');
  const instrument = boolParam(q, 'instrument');
  const wantMetrics = boolParam(q, 'metrics');
  let res;
  try {
    res = await ctx.engine.compile(req, {
      metrics: wantMetrics,
      instrument,
      explain: explainParam(q),
      pretty,
      snapshot: ctx.engine.store.snapshot(),
    });
  } catch (e) {
    // Compile errors of the modules involved are reported as in OPA's v1CompilePost.
    throw toHttpError(e, 'module');
  }
  const metrics = wantMetrics || instrument ? ({ ...res.metrics, timer_server_handler_ns: since(start) } as PlainObject) : undefined;
  const text = envelope(
    [
      ['result', res.result],
      ['metrics', metrics],
      ['explanation', res.explanation],
    ],
    pretty,
  );
  return sendJSON(text, { contentType: res.contentType, gzip: { settings: ctx.gzip, acceptEncoding: headerOf(c.req.raw, nodeIncoming(c.env), 'accept-encoding') } });
}
