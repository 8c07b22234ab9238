// Evaluation errors in OPA's shape: {code, message, location}. Also the private signals
// used to unwind evaluation (I/O suspension).

import type { Location } from '../lang/ast.js';

export type EvalErrorCode =
  | 'eval_conflict_error'
  | 'eval_builtin_error'
  | 'eval_type_error'
  | 'eval_cancel_error'
  | 'eval_internal_error'
  | 'eval_depth_error'
  | 'eval_io_error';

export class RegoEvalError extends Error {
  readonly code: EvalErrorCode;
  readonly location?: { file: string; row: number; col: number };
  constructor(code: EvalErrorCode, message: string, location?: Location) {
    super(location ? `${location.file}:${location.row}: ${code}: ${message}` : `${code}: ${message}`);
    this.name = 'RegoEvalError';
    this.code = code;
    this.rawMessage = message;
    if (location) this.location = { file: location.file, row: location.row, col: location.col };
  }
  readonly rawMessage: string;

  toJSON(): { code: string; message: string; location?: { file: string; row: number; col: number } } {
    const o: { code: string; message: string; location?: { file: string; row: number; col: number } } = { code: this.code, message: this.rawMessage };
    if (this.location) o.location = this.location;
    return o;
  }
}

export function conflict(message: string, loc?: Location): RegoEvalError {
  return new RegoEvalError('eval_conflict_error', message, loc);
}

/** Thrown by ctx.awaitIO when a result is not there yet; caught by the async entry point. */
export class Suspend {
  constructor(readonly pending: Promise<unknown>) {}
}
