// --authorization=basic: every request, whatever its route, is decided first by the
// authorization policy (data.system.authz.allow) over OPA's input document. True lets the
// request through; false (or {"allowed": false}) is 401 "request rejected by administrative
// policy", or the policy's own {"reason": ...}; an undefined decision or a decision that
// fails to evaluate is a 500 — never a pass. The policy lives in the same store as every
// other policy, so it can only be changed by a request it allows.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzip } from 'node:zlib';
import type { Value } from '../../value/index.js';
import type { ServerContext } from '../context.js';
import { collectBody, decodeJSON, decodeYAML, PREREAD } from '../body.js';
import { Code, errorReply, HttpError, toHttpError } from '../errors.js';
import { writeReply } from '../reply.js';
import { authenticate, type AuthenticationMode } from './authn.js';
import { expectsBody, headersOf, InputError, paramsOf, pathSegments } from './input.js';

export type AuthorizationMode = 'off' | 'basic';

export interface AccessOptions {
  authentication?: AuthenticationMode;
  authorization?: AuthorizationMode;
  /** The decision to query (default data.system.authz.allow). */
  decision?: string[];
}

export const UNAUTHORIZED = 'request rejected by administrative policy';
export const UNDEFINED = 'authorization policy missing or undefined';

/** Lets the request through (next) or answers it, telling `refused` its status (for the request log). */
export type Gate = (inc: IncomingMessage, res: ServerResponse, next: () => void, refused: (status: number) => void) => void;

function refuse(res: ServerResponse, refused: (status: number) => void, e: HttpError): void {
  if (res.headersSent) return;
  refused(e.status);
  writeReply(res, errorReply(e));
}

/** The request body for the policy input, kept on the request for the route that serves it. */
function readBody(inc: IncomingMessage, ctx: ServerContext, done: (err: HttpError | undefined, body: Value | undefined) => void): void {
  collectBody(inc, ctx.limits, (err, raw) => {
    if (err) return done(err, undefined);
    const finish = (buf: Buffer) => {
      (inc as unknown as Record<symbol, Buffer>)[PREREAD] = raw;
      if (!buf.length) return done(undefined, undefined);
      try {
        const yaml = (inc.headers['content-type'] ?? '').includes('yaml');
        done(undefined, yaml ? decodeYAML(buf, ctx.limits) : decodeJSON(buf, ctx.limits));
      } catch (e) {
        done(new HttpError(400, Code.invalidParameter, `error(s) occurred while decoding request: ${(e as Error).message}`), undefined);
      }
    };
    if ((inc.headers['content-encoding'] ?? '').toLowerCase() !== 'gzip') return finish(raw);
    gunzip(raw, { maxOutputLength: ctx.limits.gzipMaxLength }, (e, out) => (e ? done(new HttpError(400, Code.invalidParameter, 'could not decompress the body'), undefined) : finish(out)));
  });
}

export function createGate(ctx: ServerContext, o: AccessOptions): Gate | undefined {
  if ((o.authorization ?? 'off') === 'off') return undefined;
  const mode = o.authentication ?? 'off';
  const decision = o.decision ?? ['system', 'authz', 'allow'];
  return (inc, res, next, refused) => {
    const deny = (status: number, code: string, message: string) => refuse(res, refused, new HttpError(status, code, message));
    const url = inc.url ?? '/';
    const q = url.indexOf('?');
    const method = (inc.method ?? 'GET').toUpperCase();
    let path: string[];
    try {
      path = pathSegments(q < 0 ? url : url.slice(0, q));
    } catch (e) {
      return deny(400, Code.invalidParameter, (e as InputError).message);
    }
    const decide = (body: Value | undefined) => {
      const who = authenticate(mode, inc);
      const input: Record<string, Value> = { path, method, params: paramsOf(q < 0 ? '' : url.slice(q + 1)), headers: headersOf(inc) };
      if (body !== undefined) input['body'] = body;
      if (who.identity !== undefined) input['identity'] = who.identity;
      if (who.clientCertificates) input['client_certificates'] = who.clientCertificates;
      const verdict = (result: Value | undefined) => {
        if (result === true) return next();
        if (result === undefined) return deny(500, Code.internal, UNDEFINED);
        if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
          const r = result as Record<string, Value>;
          if (!('allowed' in r)) return deny(500, Code.internal, UNDEFINED);
          if (r['allowed'] === true) return next();
          if (typeof r['reason'] === 'string') return deny(401, Code.unauthorized, r['reason']);
        }
        deny(401, Code.unauthorized, UNAUTHORIZED);
      };
      const failed = (e: unknown) => {
        const h = toHttpError(e);
        refuse(res, refused, h.status < 500 ? new HttpError(500, Code.internal, h.message) : h);
      };
      try {
        const r = ctx.engine.evaluate(decision, { input, snapshot: ctx.engine.store.snapshot() });
        if (r instanceof Promise) r.then((x) => verdict(x.result), failed);
        else verdict(r.result);
      } catch (e) {
        failed(e);
      }
    };
    if (!expectsBody(method, path)) return decide(undefined);
    readBody(inc, ctx, (err, body) => (err ? refuse(res, refused, err) : decide(body)));
  };
}
