// A canonical 32-bit hash consistent with Rego equality: equal values hash equally.
// Sets and non-string-key objects cache theirs; arrays and plain objects are hashed
// on demand (they are plain JS values and carry no cache).

import { BigNum } from './number.js';
import { RSet } from './set.js';
import { RObject } from './object.js';
import type { PlainObject, Value } from './types.js';
import { EpochCache } from './epoch.js';

const objectHashCache = new EpochCache<PlainObject, number>();

export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function hashDouble(n: number): number {
  if (Number.isInteger(n) && Math.abs(n) < 0x7fffffff) return Math.imul(n | 0, 0x9e3779b1) ^ 0x5bd1e995;
  f64[0] = n === 0 ? 0 : n;
  return (Math.imul(u32[0]!, 0x9e3779b1) ^ u32[1]!) | 0;
}

function mix(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x5bd1e995);
  return (h ^ (h >>> 15)) | 0;
}

/** Nodes visited by the hash being computed (decides whether its result is worth caching). */
let work = 0;

export function hashValue(v: Value): number {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof RSet || v instanceof RObject || v instanceof BigNum) return hashOf(v);
  // plain object: cached for the evaluation, but only at the root of a hash and when it
  // was costly (a cache entry costs more than hashing a few fields, and the members of a
  // hashed object are rarely hashed on their own)
  const h = objectHashCache.get(v);
  if (h !== undefined) return h;
  const before = work;
  work++;
  const x = hashPlain(v as PlainObject);
  if (work - before > 24) objectHashCache.set(v, x);
  return x;
}

function hashOf(v: Value): number {
  work++;
  switch (typeof v) {
    case 'string':
      return hashString(v);
    case 'number':
      return hashDouble(v);
    case 'boolean':
      return v ? 0x2545f491 : 0x4f1bbcdc;
    case 'object':
      if (v === null) return 0x1b873593;
      if (Array.isArray(v)) {
        let h = 0x3c6ef372 ^ v.length;
        for (let i = 0; i < v.length; i++) h = mix(h, hashOf(v[i]!));
        return h;
      }
      if (v instanceof RSet || v instanceof RObject) return v.hash();
      if (v instanceof BigNum) return hashString(v.mant.toString() + 'e' + v.exp);
      return hashPlain(v as PlainObject);
    default:
      throw new TypeError('not a Rego value: ' + typeof v);
  }
}

/** A plain object: order-independent sum of entry hashes. */
function hashPlain(v: PlainObject): number {
  // own enumerable keys, as for-in with hasOwn, but from the shape's key cache
  let h = 0x7f4a7c15;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const x = v[k]!;
    let xh: number;
    if (typeof x === 'string') {
      work++;
      xh = hashString(x);
    } else xh = hashOf(x);
    h = (h + mix(hashString(k), xh)) | 0;
  }
  return h;
}
