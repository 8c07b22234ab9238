// Objects. A Rego object whose keys are all strings is a plain JS object (so parsed
// JSON needs no conversion). RObject holds an object with at least one non-string key.
// Helpers here work on both forms.

import { compare, compareStrings, equal } from './compare.js';
import { hashValue, hashString } from './hash.js';
import { EpochCache } from './epoch.js';
import type { PlainObject, Value } from './types.js';

export class RObject {
  private byHash = new Map<number, [Value, Value][]>();
  private count = 0;
  private sortedCache: [Value, Value][] | undefined;
  private hashCache: number | undefined;

  get size(): number {
    return this.count;
  }

  /** Sets a key. Only for building: an object is immutable once shared. */
  set(k: Value, v: Value): void {
    const h = hashValue(k);
    const bucket = this.byHash.get(h);
    this.sortedCache = undefined;
    this.hashCache = undefined;
    if (bucket) {
      for (const e of bucket)
        if (equal(e[0], k)) {
          e[1] = v;
          return;
        }
      bucket.push([k, v]);
    } else this.byHash.set(h, [[k, v]]);
    this.count++;
  }

  get(k: Value): Value | undefined {
    const bucket = this.byHash.get(hashValue(k));
    if (!bucket) return undefined;
    for (const e of bucket) if (equal(e[0], k)) return e[1];
    return undefined;
  }

  /** Entries sorted by key. Shared: do not modify. */
  entries(): [Value, Value][] {
    if (this.sortedCache) return this.sortedCache;
    const out: [Value, Value][] = [];
    for (const b of this.byHash.values()) for (const e of b) out.push(e);
    out.sort((a, b) => compare(a[0], b[0]));
    this.sortedCache = out;
    return out;
  }

  hash(): number {
    if (this.hashCache !== undefined) return this.hashCache;
    let h = 0x7f4a7c15;
    for (const [k, v] of this.entries()) {
      let x = Math.imul(hashValue(k) ^ hashValue(v), 0x5bd1e995);
      x ^= x >>> 15;
      h = (h + x) | 0;
    }
    this.hashCache = h;
    return h;
  }
}

/** A fresh plain object with no prototype (so a key like "__proto__" is just a key). */
export function newPlainObject(): PlainObject {
  return Object.create(null) as PlainObject;
}

export function isPlainObject(v: Value | undefined): v is PlainObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function isObject(v: Value | undefined): v is PlainObject | RObject {
  return v instanceof RObject || isPlainObject(v);
}

/** Sorted string keys of a plain object (Go's byte order). */
const sortedKeyCache = new EpochCache<PlainObject, string[]>();

/** Sorted string keys of a plain object (Go's byte order). Shared: do not modify. */
export function sortedKeys(o: PlainObject): string[] {
  let keys = sortedKeyCache.get(o);
  if (keys === undefined) {
    keys = Object.keys(o);
    if (keys.length > 1) keys.sort(compareStrings);
    sortedKeyCache.set(o, keys);
  }
  return keys;
}

/** Looks a key up in either kind of object. */
export function objectGet(o: PlainObject | RObject, k: Value): Value | undefined {
  if (o instanceof RObject) return o.get(k);
  if (typeof k !== 'string') return undefined;
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

export function objectSize(o: PlainObject | RObject): number {
  return o instanceof RObject ? o.size : Object.keys(o).length;
}

/** Entries of either kind of object, sorted by key. */
export function objectEntries(o: PlainObject | RObject): [Value, Value][] {
  if (o instanceof RObject) return o.entries();
  return sortedKeys(o).map((k) => [k, o[k]!]);
}

/**
 * A plain object with Object.prototype, as JSON.parse makes them: V8 keeps it in fast
 * mode (property reads through inline caches), where Object.create(null) starts in
 * dictionary mode. "__proto__" is defined as an own key, as JSON.parse does.
 */
function fastObject(list: [string, Value][]): PlainObject {
  const o: PlainObject = {};
  for (const [k, v] of list) {
    if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
    else o[k] = v;
  }
  return o;
}

/**
 * Builds an object from entries, choosing the representation by the invariant
 * (plain when every key is a string). Later entries overwrite earlier ones.
 */
export function makeObject(entries: Iterable<[Value, Value]>): PlainObject | RObject {
  const list = Array.isArray(entries) ? (entries as [Value, Value][]) : [...entries];
  if (list.every((e) => typeof e[0] === 'string')) return fastObject(list as [string, Value][]);
  const r = new RObject();
  for (const [k, v] of list) r.set(k, v);
  return r;
}

export { hashString };
