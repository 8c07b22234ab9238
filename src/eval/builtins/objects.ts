// object.get, object.keys, object.remove, object.filter, object.union, object.union_n,
// object.subset.

import {
  RObject,
  RSet,
  compare,
  equal,
  isNumber,
  isObject,
  isPlainObject,
  makeObject,
  newPlainObject,
  objectEntries,
  objectGet,
  toBigInt,
  typeName,
  type PlainObject,
  type Value,
} from '../../value/index.js';
import { BuiltinError, operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

type Obj = PlainObject | RObject;

function obj(v: Value, pos: number): Obj {
  if (!isObject(v)) throw operandError(pos, 'object', v);
  return v;
}

/** Follows a path of keys (OPA's Value.Find): object keys, array indices, set members. */
function find(v: Value, path: Value[], i: number): Value | undefined {
  for (; i < path.length; i++) {
    const k = path[i]!;
    if (Array.isArray(v)) {
      const n = isNumber(k) ? toBigInt(k) : undefined;
      if (n === undefined || n < 0n || n >= BigInt(v.length)) return undefined;
      v = v[Number(n)]!;
    } else if (v instanceof RSet) {
      if (!v.has(k)) return undefined;
      v = k;
    } else if (isObject(v)) {
      const next = objectGet(v, k);
      if (next === undefined) return undefined;
      v = next;
    } else return undefined;
  }
  return v;
}

function objectGetFn(args: Value[]): Value {
  const o = obj(args[0]!, 1);
  const key = args[1]!;
  if (!Array.isArray(key)) return objectGet(o, key) ?? args[2]!;
  if (key.length === 0) return o;
  return find(o, key, 0) ?? args[2]!;
}

function keys(args: Value[]): Value {
  const o = obj(args[0]!, 1);
  if (o instanceof RObject) return RSet.from(o.entries().map((e) => e[0]));
  const out = new RSet();
  for (const k in o) if (Object.hasOwn(o, k)) out.add(k);
  return out;
}

/** The keys named by operand 2: an array, a set, or an object's keys. */
function keySet(v: Value): RSet {
  if (Array.isArray(v)) return RSet.from(v);
  if (v instanceof RSet) return v;
  if (isObject(v)) return keys([v]) as RSet;
  throw operandError(2, 'one of {object, set, array}', v);
}

function filterKeys(o: Obj, ks: RSet, keep: boolean): Obj {
  if (isPlainObject(o)) {
    const out = newPlainObject();
    for (const k in o) if (Object.hasOwn(o, k) && ks.has(k) === keep) out[k] = o[k]!;
    return out;
  }
  return makeObject(o.entries().filter((e) => ks.has(e[0]) === keep));
}

function remove(args: Value[]): Value {
  const o = obj(args[0]!, 1);
  return filterKeys(o, keySet(args[1]!), false);
}

function filter(args: Value[]): Value {
  const o = obj(args[0]!, 1);
  return filterKeys(o, keySet(args[1]!), true);
}

/** b's entries over a's; where both values are objects they are merged the same way. */
function merge(a: Obj, b: Obj): Obj {
  if (isPlainObject(a) && isPlainObject(b)) {
    const out = newPlainObject();
    for (const k in a) if (Object.hasOwn(a, k)) out[k] = a[k]!;
    for (const k in b) {
      if (!Object.hasOwn(b, k)) continue;
      const v2 = b[k]!;
      const v1 = Object.hasOwn(a, k) ? a[k] : undefined;
      out[k] = v1 !== undefined && isObject(v1) && isObject(v2) ? merge(v1, v2) : v2;
    }
    return out;
  }
  const entries: [Value, Value][] = objectEntries(a).slice();
  const index = new RObject();
  entries.forEach((e, i) => index.set(e[0], i));
  for (const [k, v2] of objectEntries(b)) {
    const at = index.get(k);
    if (at === undefined) {
      entries.push([k, v2]);
      continue;
    }
    const v1 = entries[at as number]![1];
    entries[at as number] = [k, isObject(v1) && isObject(v2) ? merge(v1, v2) : v2];
  }
  return makeObject(entries);
}

function union(args: Value[]): Value {
  const a = obj(args[0]!, 1);
  const b = obj(args[1]!, 2);
  if (equal(a, b)) return a;
  return merge(a, b);
}

function unionN(args: Value[]): Value {
  const list = args[0]!;
  if (!Array.isArray(list)) throw operandError(1, 'array', list);
  // OPA walks the list from the back, so the last non-object is the one reported.
  for (let i = list.length - 1; i >= 0; i--)
    if (!isObject(list[i]!))
      throw new BuiltinError(`operand 1 must be array of objects but got array containing ${typeName(list[i]!)}`, 'eval_type_error');
  let acc: Obj = newPlainObject();
  for (const o of list) acc = merge(acc, o as Obj);
  return acc;
}

// --- object.subset ---

function objectSubset(sup: Obj, sub: Obj): boolean {
  for (const [k, subV] of objectEntries(sub)) {
    const supV = objectGet(sup, k);
    if (supV === undefined) return false;
    if (equal(subV, supV)) continue;
    if (isObject(supV) && isObject(subV)) {
      if (!objectSubset(supV, subV)) return false;
    } else if (supV instanceof RSet && subV instanceof RSet) {
      if (!setSubset(supV, subV)) return false;
    } else if (Array.isArray(supV) && Array.isArray(subV)) {
      if (!arraySubset(supV, subV)) return false;
    } else return false;
  }
  return true;
}

function setSubset(sup: RSet, sub: RSet): boolean {
  for (const v of sub.values()) if (!sup.has(v)) return false;
  return true;
}

/** sub appears as a contiguous run in sup (OPA's naive search, restarting one further). */
function arraySubset(sup: Value[], sub: Value[]): boolean {
  if (sub.length > sup.length) return false;
  let start = 0;
  let j = 0;
  for (;;) {
    if (j === sub.length) return true;
    if (start + j === sup.length) return false;
    if (compare(sup[start + j]!, sub[j]!) === 0) j++;
    else {
      start++;
      j = 0;
    }
  }
}

/** Every member of sub occurs in sup (OPA counts matches, so duplicates in sup count twice). */
function arraySetSubset(sup: Value[], sub: RSet): boolean {
  let unmatched = sub.size;
  for (const v of sup) {
    if (sub.has(v)) unmatched--;
    if (unmatched === 0) return true;
  }
  return false;
}

function subset(args: Value[]): Value {
  const sup = args[0]!;
  const sub = args[1]!;
  if (isObject(sup) && isObject(sub)) return objectSubset(sup, sub);
  if (sup instanceof RSet && sub instanceof RSet) return setSubset(sup, sub);
  if (Array.isArray(sup) && Array.isArray(sub)) return arraySubset(sup, sub);
  if (Array.isArray(sup) && sub instanceof RSet) return arraySetSubset(sup, sub);
  throw new BuiltinError('both arguments object.subset must be of the same type or array and set', 'eval_type_error');
}

registerBuiltins([
  { name: 'object.get', fn: objectGetFn },
  { name: 'object.keys', fn: keys },
  { name: 'object.remove', fn: remove },
  { name: 'object.filter', fn: filter },
  { name: 'object.union', fn: union },
  { name: 'object.union_n', fn: unionN },
  { name: 'object.subset', fn: subset },
]);
