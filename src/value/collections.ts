// Looking up and iterating Rego collections (arrays, objects, sets) the way refs do.
// Object keys are visited in sorted order, as OPA does; the sorted key list of a plain
// object is cached for the evaluation, so iterating a large base document is cheap.

import { RObject, RSet, BigNum, sortedKeys, type Value, type PlainObject } from './index.js';

const insertionOrdered = new WeakSet<object>();

/**
 * Documents assembled from rule outputs iterate in the order rules produced them (as
 * OPA evaluates rules in order when a ref iterates over them), not in key order.
 */
export function markInsertionOrdered(o: object): void {
  insertionOrdered.add(o);
}

export function sortedKeysCached(o: PlainObject): string[] {
  // The value model's per-evaluation cache: a caller may change an input object between
  // two evaluations, so a permanent cache could iterate stale keys.
  return sortedKeys(o);
}

/** coll[key], or undefined. */
export function lookup(coll: Value | undefined, key: Value): Value | undefined {
  if (coll === null || typeof coll !== 'object') return undefined;
  // The common case first: a string key into a plain object. Reading `constructor` costs
  // a few ns where each `instanceof` below costs ~15 (measured on JSON.parse objects); an
  // object with its own "constructor" key, or none, simply takes the general path.
  if (typeof key === 'string' && (coll as { constructor?: unknown }).constructor === Object)
    return Object.hasOwn(coll, key) ? (coll as PlainObject)[key] : undefined;
  if (Array.isArray(coll)) {
    let i: number;
    if (typeof key === 'number') i = key;
    else if (key instanceof BigNum) i = key.toDouble();
    else return undefined;
    if (!Number.isInteger(i) || i < 0 || i >= coll.length) return undefined;
    return coll[i];
  }
  if (coll instanceof RSet) return coll.has(key) ? key : undefined;
  if (coll instanceof RObject) return coll.get(key);
  if (coll instanceof BigNum) return undefined;
  if (typeof key !== 'string') return undefined;
  return Object.hasOwn(coll, key) ? (coll as PlainObject)[key] : undefined;
}

/** Calls fn(key, value) for each element; stops (returning true) when fn returns true. */
export function iterate(coll: Value | undefined, fn: (k: Value, v: Value) => boolean): boolean {
  if (coll === null || typeof coll !== 'object') return false;
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) if (fn(i, coll[i]!)) return true;
    return false;
  }
  if (coll instanceof RSet) {
    for (const v of coll.values()) if (fn(v, v)) return true;
    return false;
  }
  if (coll instanceof RObject) {
    for (const [k, v] of coll.entries()) if (fn(k, v)) return true;
    return false;
  }
  if (coll instanceof BigNum) return false;
  const o = coll as PlainObject;
  const keys = insertionOrdered.has(o) ? Object.keys(o) : sortedKeysCached(o);
  for (const k of keys) if (fn(k, o[k]!)) return true;
  return false;
}

/**
 * Like iterate, in whatever order is cheapest: set members as added, object keys in
 * insertion order. Only for callers whose result cannot depend on the order.
 */
export function iterateAnyOrder(coll: Value | undefined, fn: (k: Value, v: Value) => boolean): boolean {
  if (coll instanceof RSet) {
    const items = coll.unordered();
    for (let i = 0; i < items.length; i++) if (fn(items[i]!, items[i]!)) return true;
    return false;
  }
  if (coll === null || typeof coll !== 'object' || Array.isArray(coll) || coll instanceof RObject || coll instanceof BigNum) return iterate(coll, fn);
  const o = coll as PlainObject;
  for (const k in o) if (Object.hasOwn(o, k) && fn(k, o[k]!)) return true;
  return false;
}

export function isCollection(v: Value | undefined): boolean {
  return v !== null && typeof v === 'object' && !(v instanceof BigNum);
}
