// Caches of derived facts about plain JS values (sorted keys, hashes). Plain objects and
// arrays carry no fields of their own, and a library caller may legitimately mutate an
// input object between two evaluations, so each cached fact is stamped with the epoch it
// was computed in and every evaluation starts a new epoch: within one evaluation values
// are immutable (DESIGN.md), across evaluations nothing stale is ever read.

let epoch = 0;

/** Starts a new epoch; called once at the start of each evaluation. */
export function nextValueEpoch(): void {
  epoch = (epoch + 1) | 0;
}

export class EpochCache<K extends object, V> {
  private readonly map = new WeakMap<K, { e: number; v: V }>();
  /** The last epoch anything was stored in: before the first store of an epoch, nothing can hit. */
  private lastSet = -1;

  get(k: K): V | undefined {
    if (this.lastSet !== epoch) return undefined;
    const hit = this.map.get(k);
    return hit !== undefined && hit.e === epoch ? hit.v : undefined;
  }

  set(k: K, v: V): void {
    this.lastSet = epoch;
    this.map.set(k, { e: epoch, v });
  }
}
