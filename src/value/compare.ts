// OPA's total order over values: null < boolean < number < string < array < object < set,
// and structural equality consistent with it.

import { BigNum, compareNumbers } from './number.js';
import { RSet } from './set.js';
import { RObject, isPlainObject, sortedKeys } from './object.js';
import type { PlainObject, TypeName, Value } from './types.js';

const RANK: Record<TypeName, number> = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5, set: 6 };

export function typeName(v: Value): TypeName {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      if (v === null) return 'null';
      if (Array.isArray(v)) return 'array';
      if (v instanceof RSet) return 'set';
      if (v instanceof BigNum) return 'number';
      return 'object';
  }
}

/** Compares strings by their UTF-8 bytes, as Go does (differs from UTF-16 order only past the BMP). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x < y ? -1 : 1;
    // A surrogate (code point >= 0x10000) sorts after every BMP character in UTF-8.
    return xs ? 1 : -1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function compare(a: Value, b: Value): number {
  if (a === b) return 0;
  const ta = typeName(a);
  const tb = typeName(b);
  if (ta !== tb) return RANK[ta] < RANK[tb] ? -1 : 1;
  switch (ta) {
    case 'null':
      return 0;
    case 'boolean':
      return a === b ? 0 : a ? 1 : -1;
    case 'number':
      return compareNumbers(a as number | BigNum, b as number | BigNum);
    case 'string':
      return compareStrings(a as string, b as string);
    case 'array': {
      const x = a as Value[];
      const y = b as Value[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i]!, y[i]!);
        if (c !== 0) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    case 'set': {
      const x = (a as RSet).values();
      const y = (b as RSet).values();
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i]!, y[i]!);
        if (c !== 0) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    case 'object': {
      if (!(a instanceof RObject) && !(b instanceof RObject)) return comparePlainObjects(a as PlainObject, b as PlainObject);
      const x = entriesOf(a as PlainObject | RObject);
      const y = entriesOf(b as PlainObject | RObject);
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        let c = compare(x[i]![0], y[i]![0]);
        if (c !== 0) return c;
        c = compare(x[i]![1], y[i]![1]);
        if (c !== 0) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
  }
}

// Key by key, then value, then size: OPA's object order, without building entry arrays.
function comparePlainObjects(a: PlainObject, b: PlainObject): number {
  const x = sortedKeys(a);
  const y = sortedKeys(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const kx = x[i]!;
    const ky = y[i]!;
    if (kx !== ky) return compareStrings(kx, ky);
    const c = compare(a[kx]!, b[ky]!);
    if (c !== 0) return c;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

function entriesOf(o: PlainObject | RObject): [Value, Value][] {
  if (o instanceof RObject) return o.entries();
  return sortedKeys(o).map((k) => [k, o[k]!]);
}

export function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (a instanceof RSet) {
    if (!(b instanceof RSet) || a.size !== b.size || a.hash() !== b.hash()) return false;
    for (const v of a.values()) if (!b.has(v)) return false;
    return true;
  }
  if (a instanceof BigNum) return b instanceof BigNum && a.mant === b.mant && a.exp === b.exp;
  if (a instanceof RObject) {
    if (!(b instanceof RObject) || a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const w = b.get(k);
      if (w === undefined || !equal(v, w)) return false;
    }
    return true;
  }
  if (!isPlainObject(b)) return false;
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k)) continue;
    if (!Object.hasOwn(b, k) || !equal(a[k]!, b[k]!)) return false;
    n++;
  }
  for (const k in b) if (Object.hasOwn(b, k)) n--;
  return n === 0;
}
