// Operand helpers shared by the string-like built-ins (strings, regex, glob, encoding,
// json, yaml). They raise OPA's operand errors (eval_type_error).

import { BigNum, RSet, toBigInt, typeName, type Value } from '../../value/index.js';
import { BuiltinError, operandError } from './errors.js';

export function str(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v !== 'string') throw operandError(i + 1, 'string', v);
  return v;
}

export function num(args: Value[], i: number): number | BigNum {
  const v = args[i]!;
  if (typeof v !== 'number' && !(v instanceof BigNum)) throw operandError(i + 1, 'number', v);
  return v;
}

/** OPA's IntOperand: a number that is an integer fitting a Go int. */
export function int(args: Value[], i: number): number {
  const v = num(args, i);
  const b = toBigInt(v);
  if (b === undefined) throw typeError(`operand ${i + 1} must be integer number but got floating-point number`);
  return Number(b);
}

export function typeError(message: string): BuiltinError {
  return new BuiltinError(message, 'eval_type_error');
}

/** `operand N must be one of {a, b} but got T` */
export function oneOfError(pos: number, expected: string[], got: Value): BuiltinError {
  return typeError(`operand ${pos} must be one of {${expected.join(', ')}} but got ${typeName(got)}`);
}

/** Code points of a string (Go runes). */
export function runes(s: string): string[] {
  return Array.from(s);
}

/** Number of code points. */
export function runeLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Strings of an array or set operand (for concat and friends). */
export function stringMembers(v: Value): string[] | undefined {
  const items = Array.isArray(v) ? v : v instanceof RSet ? v.values() : undefined;
  if (!items) return undefined;
  for (const x of items) if (typeof x !== 'string') return undefined;
  return items as string[];
}

/** Go's utf8 byte length. */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
