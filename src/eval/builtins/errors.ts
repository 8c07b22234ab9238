// Errors raised by built-ins. The evaluator prefixes the built-in's name, giving OPA's
// messages, e.g. "count: operand 1 must be one of {array, object, set, string} but got null".

import { typeName, type Value } from '../../value/index.js';

export type BuiltinErrorCode = 'eval_builtin_error' | 'eval_type_error' | 'eval_conflict_error';

export class BuiltinError extends Error {
  readonly code: BuiltinErrorCode;
  constructor(message: string, code: BuiltinErrorCode = 'eval_builtin_error') {
    super(message);
    this.code = code;
  }
}

/** `operand N must be EXPECTED but got TYPE` (eval_type_error). Positions are 1-based. */
export function operandError(pos: number, expected: string, got: Value): BuiltinError {
  return new BuiltinError(`operand ${pos} must be ${expected} but got ${typeName(got)}`, 'eval_type_error');
}

/** Any other failure of a built-in (eval_builtin_error). */
export function builtinError(message: string): BuiltinError {
  return new BuiltinError(message, 'eval_builtin_error');
}

/** Runs `f`; an error of class `kind` (a parser's or a library's own) becomes the built-in's error, with its message. */
export function withBuiltinErrors<R>(kind: abstract new (...args: never[]) => Error, f: () => R): R {
  try {
    return f();
  } catch (e) {
    if (e instanceof kind) throw builtinError(e.message);
    throw e;
  }
}
