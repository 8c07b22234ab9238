// Memo of one function's results by argument values. Keyed by a hash of the arguments
// and confirmed with structural equality, so a call never serialises its arguments (the
// hashes of large objects are cached per evaluation, see value/hash.ts).

import { equal, hashValue, type Value } from '../value/index.js';

interface Entry {
  args: Value[];
  result: unknown;
}

/** How many calls with composite arguments the identity memo remembers (per function and evaluation). */
const RECENT = 8;

export class ArgsMemo {
  private readonly byHash = new Map<number, Entry | Entry[]>();
  /** Calls with composite arguments, by argument identity (a ring of the last RECENT). */
  private recent: Entry[] | undefined;
  private next = 0;

  /** The result memoised for these very argument values (=== each), or undefined. */
  getSame(args: Value[], n: number): unknown {
    const r = this.recent;
    if (r === undefined) return undefined;
    outer: for (let j = 0; j < r.length; j++) {
      const a = r[j]!.args;
      for (let i = 0; i < n; i++) if (a[i] !== args[i]) continue outer;
      return r[j]!.result;
    }
    return undefined;
  }

  setSame(args: Value[], result: unknown): void {
    const e: Entry = { args, result };
    const r = (this.recent ??= []);
    if (r.length < RECENT) r.push(e);
    else {
      r[this.next] = e;
      this.next = (this.next + 1) % RECENT;
    }
  }

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
