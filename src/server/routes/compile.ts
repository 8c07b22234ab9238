// Compile API: POST /v1/compile. The request is decoded and validated here; the partial
// evaluation itself is the engine's (EngineError 'unimplemented' -> 501 until it exists).

import { isPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { App, ServerContext } from '../context.js';
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
        return sendJSON(text, { gzip: { settings: ctx.gzip, acceptEncoding: headerOf(c.req.raw, nodeIncoming(c.env), 'accept-encoding') } });
      },
      'query',
    ),
  );
}
