// OPA's nd_builtin_cache: every non-deterministic built-in answers once per query for the
// same arguments, and the answers are kept, keyed by built-in name and by the arguments as
// JSON array text, so that decision logs can record them ({"time.now_ns": {"[]": 17...}}).

import { newPlainObject, toJSONText, type PlainObject, type Value } from '../../value/index.js';
import type { BuiltinContext, BuiltinFn } from './registry.js';

/** The cache key OPA uses: the operands as one JSON array. */
export function ndKey(args: Value[]): string {
  // time.now_ns and the like take no operands: no text to build
  return args.length === 0 ? '[]' : toJSONText(args as Value);
}

/**
 * Wraps a non-deterministic built-in: a repeated call with equal arguments in one query
 * returns the recorded answer; a successful answer is recorded. Errors (and suspensions
 * while waiting on I/O) pass through unrecorded, as in OPA.
 */
export function ndRecorded(name: string, fn: BuiltinFn): BuiltinFn {
  return (args: Value[], ctx: BuiltinContext): Value | undefined => {
    const key = ndKey(args);
    const seen = ctx.ndCache.get(name)?.get(key);
    if (seen !== undefined) return seen;
    const out = fn(args, ctx);
    if (out === undefined) return out;
    let perName = ctx.ndCache.get(name);
    if (!perName) {
      perName = new Map();
      ctx.ndCache.set(name, perName);
    }
    perName.set(key, out);
    return out;
  };
}

/**
 * The cache as OPA writes it in a decision log event, or undefined when no
 * non-deterministic built-in ran (OPA then leaves the field out).
 */
export function ndBuiltinCacheValue(cache: Map<string, Map<string, Value>>): PlainObject | undefined {
  if (cache.size === 0) return undefined;
  const out = newPlainObject();
  for (const name of [...cache.keys()].sort()) {
    const entries = newPlainObject();
    for (const [k, v] of cache.get(name)!) entries[k] = v;
    out[name] = entries;
  }
  return out;
}
