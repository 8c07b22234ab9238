// OPA's HTTP error shape { code, message, errors? } and the mapping from storage and
// engine errors to status codes (OPA's writer.ErrorAuto).

import { StorageError } from '../storage/index.js';
import { EngineError, type AstError } from '../engine/types.js';
import { toResponse, type Reply } from './reply.js';

export const Code = {
  internal: 'internal_error',
  evaluation: 'evaluation_error',
  unauthorized: 'unauthorized',
  invalidParameter: 'invalid_parameter',
  invalidOperation: 'invalid_operation',
  resourceNotFound: 'resource_not_found',
  resourceConflict: 'resource_conflict',
  undefinedDocument: 'undefined_document',
} as const;

export const Msg = {
  compileModule: 'error(s) occurred while compiling module(s)',
  parseQuery: 'error(s) occurred while parsing query',
  compileQuery: 'error(s) occurred while compiling query',
  evaluation: 'error(s) occurred while evaluating query',
  undefined: 'document missing or undefined',
  missing: 'document missing',
  foundUndefined: 'document undefined',
  decodingLimit: 'request body too large',
  decodingGzipLimit: 'compressed request body too large',
} as const;

export interface ErrorBody {
  code: string;
  message: string;
  errors?: unknown[];
}

/** An error that already knows its HTTP status and OPA-shaped body. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  constructor(status: number, code: string, message: string, errors?: unknown[]) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.body = errors && errors.length ? { code, message, errors } : { code, message };
  }
}

export function badRequest(message: string, errors?: unknown[]): HttpError {
  return new HttpError(400, Code.invalidParameter, message, errors);
}

/** OPA writes error bodies indented by two spaces, always, with a trailing newline. */
export function errorText(body: ErrorBody): string {
  const ordered: ErrorBody = { code: body.code, message: body.message };
  if (body.errors && body.errors.length) ordered.errors = body.errors;
  return JSON.stringify(ordered, null, 2) + '\n';
}

export function errorReply(err: HttpError): Reply {
  return { status: err.status, headers: { 'content-type': 'application/json' }, body: errorText(err.body) };
}

export function errorResponse(err: HttpError): Response {
  return toResponse(errorReply(err));
}

function astErrors(errs: AstError[]): unknown[] {
  return errs.map((e) => {
    const o: Record<string, unknown> = { code: e.code, message: e.message };
    if (e.location) o['location'] = e.location;
    if (e.details !== undefined) o['details'] = e.details;
    return o;
  });
}

export type ErrorContext = 'module' | 'module-delete' | 'query' | 'data';

/** Maps any thrown value to an HttpError the way OPA's handlers do. */
export function toHttpError(e: unknown, ctx: ErrorContext = 'data'): HttpError {
  if (e instanceof HttpError) return e;
  if (e instanceof StorageError) {
    switch (e.code) {
      case 'storage_write_conflict_error':
        return new HttpError(404, Code.resourceConflict, e.message);
      case 'storage_invalid_patch_error':
        return new HttpError(400, Code.invalidParameter, e.message);
      case 'storage_not_found_error':
        return new HttpError(404, Code.resourceNotFound, e.message);
      default:
        return new HttpError(500, Code.internal, e.message);
    }
  }
  if (e instanceof EngineError) {
    const errs = astErrors(e.errors);
    switch (e.kind) {
      case 'parse':
        if (ctx === 'query') return new HttpError(400, Code.invalidParameter, Msg.parseQuery, errs);
        return new HttpError(400, Code.invalidParameter, Msg.compileModule, errs);
      case 'compile':
        if (ctx === 'query') return new HttpError(400, Code.invalidParameter, Msg.compileQuery, errs);
        if (ctx === 'module-delete') return new HttpError(400, Code.invalidOperation, Msg.compileModule, errs);
        if (ctx === 'module') return new HttpError(400, Code.invalidParameter, Msg.compileModule, errs);
        return new HttpError(400, Code.invalidParameter, e.message, errs);
      case 'bad_request':
        return new HttpError(400, Code.invalidParameter, e.message, errs);
      case 'unimplemented':
        return new HttpError(501, Code.internal, e.message, errs);
      case 'eval':
        return new HttpError(500, Code.internal, Msg.evaluation, errs.length ? errs : [{ message: e.message }]);
    }
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new HttpError(500, Code.internal, msg);
}
