// Errors as the engine reports them to the server, the CLI and the plugins: one kind per
// stage (parse, compile, eval...) with the OPA-shaped error details of that stage.

import { RegoParseError } from '../lang/index.js';
import { RegoCompileError } from '../compiler/index.js';
import { RegoEvalError } from '../eval/errors.js';
import { PartialError, UnknownError } from '../partial/index.js';

export interface ErrorLocation {
  file: string;
  row: number;
  col: number;
}

/** A parse, compile or evaluation error as OPA reports it in `errors[]`. */
export interface AstError {
  code: string;
  message: string;
  location?: ErrorLocation;
  details?: unknown;
}

export type EngineErrorKind =
  /** The text could not be parsed (module or query). */
  | 'parse'
  /** Parsed, but compiling failed (including: other modules depend on a deleted one). */
  | 'compile'
  /** Evaluation failed (conflicts, built-in errors under strict mode, limits...). */
  | 'eval'
  /** The request itself is unusable (e.g. an empty module). */
  | 'bad_request'
  /** The engine does not implement this yet (e.g. partial evaluation). */
  | 'unimplemented';

export class EngineError extends Error {
  readonly kind: EngineErrorKind;
  readonly errors: AstError[];
  constructor(kind: EngineErrorKind, message: string, errors: AstError[] = []) {
    super(message);
    this.name = 'EngineError';
    this.kind = kind;
    this.errors = errors;
  }
}

/** A parse, compile or evaluation error of the layers below as an EngineError; anything else unchanged. */
export function toEngineError(e: unknown): unknown {
  if (e instanceof RegoParseError) return new EngineError('parse', e.message, e.errors);
  if (e instanceof RegoCompileError) return new EngineError('compile', e.message, e.errors);
  if (e instanceof RegoEvalError) return new EngineError('eval', e.message, [e.toJSON()]);
  if (e instanceof UnknownError) return new EngineError('bad_request', e.message);
  if (e instanceof PartialError) {
    const loc = e.location ? { file: e.location.file, row: e.location.row, col: e.location.col } : undefined;
    return new EngineError('eval', e.message, [{ code: 'eval_internal_error', message: e.message, ...(loc ? { location: loc } : {}) }]);
  }
  return e;
}
