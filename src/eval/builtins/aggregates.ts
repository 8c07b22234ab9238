// Aggregates: count, sum, product, max, min, sort, and the deprecated all/any.

import { BigNum, RSet, compare, isPlainObject, objectSize, toBigInt, typeName, RObject, type RNumber, type Value } from '../../value/index.js';
import { DEFAULT_PREC, intToNumber, addFloat, floatToNumber, fromDecimal, fromNumber, mulFloat, type BigFloat } from './arithmetic/bigfloat.js';
import { BuiltinError, operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

/** Unicode code points in a string (Go counts runes, not UTF-16 units). */
function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A low surrogate that follows a high one is the second half of one code point.
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = s.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

function count(args: Value[]): Value {
  const a = args[0]!;
  if (typeof a === 'string') return runeCount(a);
  if (Array.isArray(a)) return a.length;
  if (a instanceof RSet) return a.size;
  if (a instanceof RObject || isPlainObject(a)) return objectSize(a);
  throw operandError(1, 'one of {array, object, set, string}', a);
}

function items(a: Value): Value[] {
  if (Array.isArray(a)) return a;
  if (a instanceof RSet) return a.values();
  throw operandError(1, 'one of {set, array}', a);
}

function elementError(a: Value, got: Value): BuiltinError {
  const t = Array.isArray(a) ? 'array' : 'set';
  return new BuiltinError(`operand 1 must be ${t} of numbers but got ${t} containing ${typeName(got)}`, 'eval_type_error');
}

function isNum(v: Value): v is RNumber {
  return typeof v === 'number' || v instanceof BigNum;
}

/** Exact integer accumulation; undefined when some element is not an integer. */
function exactInts(xs: Value[], init: bigint, mul: boolean): bigint | undefined {
  let acc = init;
  for (const x of xs) {
    if (!isNum(x)) return undefined;
    const i = toBigInt(x);
    if (i === undefined) return undefined;
    acc = mul ? acc * i : acc + i;
  }
  return acc;
}

function sum(args: Value[]): Value {
  const a = args[0]!;
  const xs = items(a);
  // Fast path: safe-integer doubles whose running sum stays safe.
  let s = 0;
  let i = 0;
  for (; i < xs.length; i++) {
    const x = xs[i]!;
    if (typeof x !== 'number' || !Number.isSafeInteger(x)) break;
    const t = s + x;
    if (!Number.isSafeInteger(t)) break;
    s = t;
  }
  if (i === xs.length) return s;
  const exact = exactInts(xs, 0n, false);
  if (exact !== undefined) return intToNumber(exact);
  // OPA accumulates in a big.Float at 64 bits.
  let acc: BigFloat = fromDecimal(0n, 0);
  for (const x of xs) {
    if (!isNum(x)) throw elementError(a, x);
    acc = addFloat(acc, fromNumber(x), DEFAULT_PREC);
  }
  return floatToNumber(acc);
}

function product(args: Value[]): Value {
  const a = args[0]!;
  const xs = items(a);
  const exact = exactInts(xs, 1n, true);
  if (exact !== undefined) return intToNumber(exact);
  // OPA starts from big.NewFloat(1), whose precision (53 bits) the product keeps.
  let acc: BigFloat = fromDecimal(1n, 0, 53);
  for (const x of xs) {
    if (!isNum(x)) throw elementError(a, x);
    acc = mulFloat(acc, fromNumber(x), 53);
  }
  return floatToNumber(acc);
}

function max(args: Value[]): Value | undefined {
  const a = args[0]!;
  if (a instanceof RSet) return a.size === 0 ? undefined : a.values()[a.size - 1];
  const xs = items(a);
  if (xs.length === 0) return undefined;
  let m = xs[0]!;
  for (let i = 1; i < xs.length; i++) if (compare(m, xs[i]!) <= 0) m = xs[i]!;
  return m;
}

function min(args: Value[]): Value | undefined {
  const a = args[0]!;
  if (a instanceof RSet) return a.size === 0 ? undefined : a.values()[0];
  const xs = items(a);
  if (xs.length === 0) return undefined;
  let m = xs[0]!;
  for (let i = 1; i < xs.length; i++) if (compare(m, xs[i]!) >= 0) m = xs[i]!;
  return m;
}

function sort(args: Value[]): Value {
  const a = args[0]!;
  if (a instanceof RSet) return a.values().slice();
  if (!Array.isArray(a)) throw operandError(1, 'one of {set, array}', a);
  return a.slice().sort(compare);
}

function all(args: Value[]): Value {
  const a = args[0]!;
  if (a instanceof RSet) return a.size === 0 || (a.size === 1 && a.has(true));
  if (!Array.isArray(a)) throw operandError(1, 'one of {array, set}', a);
  for (const x of a) if (x !== true) return false;
  return true;
}

function any(args: Value[]): Value {
  const a = args[0]!;
  if (a instanceof RSet) return a.has(true);
  if (!Array.isArray(a)) throw operandError(1, 'one of {array, set}', a);
  for (const x of a) if (x === true) return true;
  return false;
}

registerBuiltins([
  {
    name: 'count',
    fn: count,
  },
  { name: 'sum', fn: sum },
  { name: 'product', fn: product },
  { name: 'max', fn: max },
  { name: 'min', fn: min },
  { name: 'sort', fn: sort },
  { name: 'all', fn: all, },
  { name: 'any', fn: any, },
]);
