// Wraps a route handler: sets the Prometheus handler label and turns every thrown error
// into OPA's error shape, so no request can escape without a well-formed answer.

import type { Context } from 'hono';
import type { Env } from './context.js';
import { errorResponse, toHttpError, type ErrorContext } from './errors.js';
import { nodeIncoming } from './body.js';
import { setHandler } from './observe.js';

/** Names the request's Prometheus `handler` label. */
export function label(c: Context<Env>, name: string): void {
  setHandler(nodeIncoming(c.env), name);
}

export type RouteFn = (c: Context<Env>) => Promise<Response> | Response;

export function route(name: string, fn: RouteFn, errCtx: ErrorContext = 'data') {
  return async (c: Context<Env>): Promise<Response> => {
    setHandler(nodeIncoming(c.env), name);
    try {
      return await fn(c);
    } catch (e) {
      return errorResponse(toHttpError(e, errCtx));
    }
  };
}

/** Nanoseconds since `start` (from process.hrtime.bigint()). */
export function since(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}
