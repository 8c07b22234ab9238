// Set operations: and (&), or (|), intersection, union, and the deprecated set_diff
// (difference is otherwise `minus`).

import { RSet, type Value } from '../../value/index.js';
import { operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

function set(v: Value, pos: number): RSet {
  if (!(v instanceof RSet)) throw operandError(pos, 'set', v);
  return v;
}

function intersect(a: RSet, b: RSet): RSet {
  // Iterate the smaller set, probe the larger.
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const out = new RSet();
  for (const v of small.values()) if (large.has(v)) out.add(v);
  return out;
}

function unite(a: RSet, b: RSet): RSet {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  const out = new RSet();
  for (const v of a.values()) out.add(v);
  for (const v of b.values()) out.add(v);
  return out;
}

function difference(a: RSet, b: RSet): RSet {
  const out = new RSet();
  for (const v of a.values()) if (!b.has(v)) out.add(v);
  return out;
}

function intersection(args: Value[]): Value {
  const s = set(args[0]!, 1);
  if (s.size === 0) return new RSet();
  let result: RSet | undefined;
  for (const x of s.values()) {
    const n = set(x, 1);
    result = result === undefined ? n : intersect(result, n);
  }
  return result!;
}

function union(args: Value[]): Value {
  const s = set(args[0]!, 1);
  const out = new RSet();
  for (const x of s.values()) for (const v of set(x, 1).values()) out.add(v);
  return out;
}

registerBuiltins([
  { name: 'and', fn: (a) => intersect(set(a[0]!, 1), set(a[1]!, 2)) },
  { name: 'or', fn: (a) => unite(set(a[0]!, 1), set(a[1]!, 2)) },
  { name: 'intersection', fn: intersection },
  { name: 'union', fn: union },
  // Deprecated (undefined in v1 modules); kept for v0 policies.
  { name: 'set_diff', fn: (a) => difference(set(a[0]!, 1), set(a[1]!, 2)) },
]);
