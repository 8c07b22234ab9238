// Wraps a route handler: sets the Prometheus handler label and turns every thrown error
// into OPA's error shape, so no request can escape without a well-formed answer.

import type { Context } from 'hono';
import type { Env } from './context.js';
import { errorResponse, toHttpError, type ErrorContext } from './errors.js';

export type RouteFn = (c: Context<Env>) => Promise<Response> | Response;

export function route(label: string, fn: RouteFn, errCtx: ErrorContext = 'data') {
  return async (c: Context<Env>): Promise<Response> => {
    c.set('handler', label);
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
