// Compiled patterns (glob, regex) kept in a bounded LRU cache. A pattern that does not
// compile is remembered as its error, so asking again fails the same way without
// compiling again.

import { builtinError } from './errors.js';

export class PatternCache<T> {
  private readonly entries = new Map<string, T | Error>();

  constructor(private readonly max: number) {}

  /** The compiled pattern under `key`; `compile` runs on a miss. An Error is the built-in's error. */
  get(key: string, compile: () => T | Error): T {
    let hit = this.entries.get(key);
    if (hit !== undefined) {
      // Most recently used last: the first key is the one to drop.
      this.entries.delete(key);
      this.entries.set(key, hit);
    } else {
      hit = compile();
      this.entries.set(key, hit);
      if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    }
    if (hit instanceof Error) throw builtinError(hit.message);
    return hit;
  }
}
