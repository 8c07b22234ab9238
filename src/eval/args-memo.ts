// Memo of one function's results by argument values. Keyed by a hash of the arguments
// and confirmed with structural equality, so a call never serialises its arguments (the
// hashes of large objects are cached per evaluation, see value/hash.ts).

import { equal, hashValue, type Value } from './value/index.js';

interface Entry {
  args: Value[];
  result: unknown;
}

export class ArgsMemo {
  private readonly byHash = new Map<number, Entry | Entry[]>();

  static hash(args: Value[], n: number): number {
    let h = 0x2f6b1c35 ^ n;
    for (let i = 0; i < n; i++) {
      h = Math.imul(h ^ hashValue(args[i]!), 0x5bd1e995);
      h ^= h >>> 13;
    }
    return h | 0;
  }

  /** The memoised result for these arguments (undefined when not seen yet). */
  get(h: number, args: Value[], n: number): unknown {
    const e = this.byHash.get(h);
    if (e === undefined) return undefined;
    if (!Array.isArray(e)) return sameArgs(e.args, args, n) ? e.result : undefined;
    for (const x of e) if (sameArgs(x.args, args, n)) return x.result;
    return undefined;
  }

  set(h: number, args: Value[], result: unknown): void {
    const entry: Entry = { args, result };
    const e = this.byHash.get(h);
    if (e === undefined) this.byHash.set(h, entry);
    else if (Array.isArray(e)) e.push(entry);
    else this.byHash.set(h, [e, entry]);
  }
}

function sameArgs(a: Value[], b: Value[], n: number): boolean {
  for (let i = 0; i < n; i++) if (!equal(a[i]!, b[i]!)) return false;
  return true;
}
