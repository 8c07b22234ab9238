// What a custom built-in returns, as a Rego value. Rego values are plain JSON plus RSet,
// RObject and BigNum (src/value), so most results pass through untouched; JavaScript's own
// collections and big integers are converted, and anything else is refused with the path
// to the offending part (a built-in error, as a Go built-in returning a bad term is).

import { BigNum, fromBigInt, isPlainObject, makeObject, newPlainObject, RObject, RSet, type Value } from '../value/index.js';

export class ResultError extends Error {}

/**
 * JSON.stringify's view of `undefined` inside a result (an object member left out, an
 * array element null); `Set` -> set, `Map` -> object (any keys), `bigint` -> number.
 */
export function toRegoValue(x: unknown, at = 'result'): Value {
  switch (typeof x) {
    case 'string':
    case 'boolean':
      return x;
    case 'number':
      if (!Number.isFinite(x)) throw new ResultError(`${at} is ${x}, which is not a Rego number`);
      return x;
    case 'bigint':
      return fromBigInt(x);
    case 'object':
      break;
    default:
      throw new ResultError(`${at} is a ${typeof x}, which is not a Rego value`);
  }
  if (x === null || x instanceof BigNum || x instanceof RSet || x instanceof RObject) return x;
  if (Array.isArray(x)) {
    let out: Value[] | undefined;
    for (let i = 0; i < x.length; i++) {
      const e: unknown = x[i];
      const v = e === undefined ? null : toRegoValue(e, `${at}[${i}]`);
      if (v !== e && !out) out = x.slice(0, i) as Value[];
      if (out) out.push(v);
    }
    return out ?? (x as Value[]);
  }
  if (x instanceof Set) return RSet.from([...x].map((e: unknown, i) => toRegoValue(e, `${at} (set element ${i})`)));
  if (x instanceof Map) return makeObject([...x].map(([k, v]: [unknown, unknown]) => [toRegoValue(k, `${at} (map key)`), toRegoValue(v, `${at}[${String(k)}]`)]));
  if (!isPlainObject(x as Value)) {
    const kind = (x as object).constructor?.name ?? 'object';
    throw new ResultError(`${at} is a ${kind}, which is not a Rego value (plain objects, arrays, Set, Map, strings, numbers, booleans and null are)`);
  }
  const o = x as Record<string, unknown>;
  let out: Record<string, Value> | undefined;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    const e = o[k];
    const v = e === undefined ? undefined : toRegoValue(e, `${at}.${k}`);
    if ((v !== e || e === undefined) && !out) {
      out = newPlainObject();
      for (const j in o) {
        if (j === k) break;
        if (Object.hasOwn(o, j)) out[j] = o[j] as Value;
      }
    }
    if (out && v !== undefined) out[k] = v;
  }
  return (out ?? o) as Value;
}
