// A Rego set. Members are kept by hash; primitive members (strings, doubles, booleans,
// null) use a native Set for speed. Iteration is in sorted order, as OPA's is; where the
// order cannot be observed (membership, sets and booleans built from the members) the
// evaluator walks the members as added instead, and never pays for sorting.
//
// The evaluator builds set rules and set comprehensions with addUnchecked: members are
// appended without hashing, and deduplicated the first time anything but unordered()
// looks at the set. unordered() may then repeat a member, which its callers (order-free
// iteration: every consumer there gives the same answer for a repeated solution) accept.
// A rule like RBAC's user_grants, a set of small objects only iterated, is never hashed.

import { compare, equal } from './compare.js';
import { hashValue } from './hash.js';
import type { Value } from './types.js';

type Prim = string | number | boolean | null;

function isPrim(v: Value): v is Prim {
  return v === null || typeof v !== 'object';
}

export class RSet {
  private prims = new Set<Prim>();
  /** First composite member per hash; further members with the same hash in `more`. */
  private composites: Map<number, Value> | undefined;
  private more: Map<number, Value[]> | undefined;
  /** Sum of the composite members' hashes (part of the set's own hash). */
  private compositeSum = 0;
  /** Members in the order they were added. */
  private items: Value[] = [];
  private sortedCache: Value[] | undefined;
  private hashCache: number | undefined;
  /** items from this index on were added unchecked (may repeat members); -1 when none. */
  private unchecked = -1;

  static of(...values: Value[]): RSet {
    return RSet.from(values);
  }

  static from(values: Iterable<Value>): RSet {
    const s = new RSet();
    for (const v of values) s.add(v);
    return s;
  }

  get size(): number {
    if (this.unchecked >= 0) this.settle();
    return this.items.length;
  }

  /** Adds a member without looking for it (see the top of this file). Only for building. */
  addUnchecked(v: Value): void {
    if (this.unchecked < 0) this.unchecked = this.items.length;
    this.items.push(v);
    this.sortedCache = undefined;
    this.hashCache = undefined;
    // bound the repeats a long run of equal solutions can pile up
    if (this.items.length - this.unchecked > 4096) this.settle();
  }

  /**
   * Deduplicates the members added unchecked, keeping the first of each. The members go
   * into a new array: a loop over unordered() may be running (a membership test in its
   * body settles the set), and it must go on over the array it started with.
   */
  private settle(): void {
    const old = this.items;
    const from = this.unchecked;
    this.items = old.slice(0, from);
    this.unchecked = -1;
    for (let i = from; i < old.length; i++) this.add(old[i]!);
  }

  /** Adds a member. Only for building a set: a set is immutable once shared. */
  add(v: Value): boolean {
    if (this.unchecked >= 0) this.settle();
    if (isPrim(v)) {
      if (this.prims.has(v)) return false;
      this.prims.add(v);
    } else {
      const h = hashValue(v);
      this.composites ??= new Map();
      const first = this.composites.get(h);
      if (first === undefined) this.composites.set(h, v);
      else {
        if (equal(first, v)) return false;
        this.more ??= new Map();
        const bucket = this.more.get(h);
        if (bucket) {
          for (const x of bucket) if (equal(x, v)) return false;
          bucket.push(v);
        } else this.more.set(h, [v]);
      }
      this.compositeSum = (this.compositeSum + h) | 0;
    }
    this.items.push(v);
    this.sortedCache = undefined;
    this.hashCache = undefined;
    return true;
  }

  has(v: Value): boolean {
    if (this.unchecked >= 0) this.settle();
    if (isPrim(v)) return this.prims.has(v);
    if (!this.composites) return false;
    const h = hashValue(v);
    const first = this.composites.get(h);
    if (first === undefined) return false;
    if (equal(first, v)) return true;
    const bucket = this.more?.get(h);
    if (bucket) for (const x of bucket) if (equal(x, v)) return true;
    return false;
  }

  /** The members in OPA's sorted order. The array is shared: do not modify it. */
  values(): Value[] {
    if (this.unchecked >= 0) this.settle();
    if (this.sortedCache) return this.sortedCache;
    const out = this.items.slice();
    if (out.length > 1) out.sort(compare);
    this.sortedCache = out;
    return out;
  }

  /**
   * The members in the order they were added, for when neither order nor repeats can be
   * observed (a member added unchecked may appear twice). Shared: do not modify.
   */
  unordered(): Value[] {
    return this.items;
  }

  [Symbol.iterator](): Iterator<Value> {
    return this.values()[Symbol.iterator]();
  }

  hash(): number {
    if (this.unchecked >= 0) this.settle();
    if (this.hashCache !== undefined) return this.hashCache;
    let h = 0x6a09e667 ^ this.items.length;
    for (const p of this.prims) h = (h + hashValue(p)) | 0;
    h = (h + this.compositeSum) | 0;
    this.hashCache = h;
    return h;
  }
}
