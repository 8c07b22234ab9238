// Calling a built-in directly in tests: its result, its JSON text as OPA prints it, its error.
import { expect } from 'vitest';
import { BuiltinError } from '../../../src/eval/builtins/errors.js';
import { parseNumber, toJSONText, type Value } from '../../../src/value/index.js';
import { callBuiltin } from './fake-context.js';

export const call = (name: string, ...args: Value[]): Value | undefined => callBuiltin(name, args);

/** A number from its literal text (BigNum when a double cannot hold it). */
export const n = (text: string): Value => parseNumber(text)!;

/** The JSON text of a built-in's result, as OPA would print it. */
export const text = (name: string, ...args: Value[]): string => {
  const v = call(name, ...args);
  return v === undefined ? 'undefined' : toJSONText(v);
};

export function expectError(fn: () => unknown, code: 'eval_type_error' | 'eval_builtin_error', message: string): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(BuiltinError);
  expect((err as BuiltinError).code).toBe(code);
  expect((err as BuiltinError).message).toBe(message);
}
