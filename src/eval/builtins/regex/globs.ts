// regex.globs_match: whether two "glob-like" regular expressions (OPA uses
// yashtewari/glob-intersection) can match a common string. The supported syntax is a
// sequence of single-character matchers (a literal, an escaped character, `.`, or a
// class `[a-z]`/`[^...]`), each optionally followed by `*`, `+` or `?`.
// The answer comes from a search over the product of the two patterns' automata.

import { builtinError } from '../errors.js';

/** A set of code points: sorted, disjoint [lo, hi] ranges. */
type CharSet = [number, number][];

const MAX_CP = 0x10ffff;
const ANY: CharSet = [[0, MAX_CP]];

interface Token {
  set: CharSet;
  q: '' | '*' | '+' | '?';
}

function normalize(rs: [number, number][]): CharSet {
  rs.sort((a, b) => a[0] - b[0]);
  const out: CharSet = [];
  for (const r of rs) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

function complement(s: CharSet): CharSet {
  const out: CharSet = [];
  let next = 0;
  for (const [lo, hi] of s) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]![1] < b[j]![0]) i++;
    else if (b[j]![1] < a[i]![0]) j++;
    else return true;
  }
  return false;
}

const CLASS_ESCAPES: Record<string, CharSet> = {
  d: [[48, 57]],
  w: normalize([[48, 57], [65, 90], [95, 95], [97, 122]]),
  s: normalize([[9, 10], [12, 13], [32, 32]]),
};

function escapeSet(c: string): CharSet {
  const lower = c.toLowerCase();
  if (lower in CLASS_ESCAPES) return c === lower ? CLASS_ESCAPES[lower]! : complement(CLASS_ESCAPES[lower]!);
  const map: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11 };
  const cp = map[c] ?? c.codePointAt(0)!;
  return [[cp, cp]];
}

function parse(p: string): Token[] {
  const cs = Array.from(p);
  const out: Token[] = [];
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    let set: CharSet;
    if (c === '\\') {
      if (i + 1 >= cs.length) throw builtinError(`invalid glob pattern ${JSON.stringify(p)}: trailing backslash`);
      set = escapeSet(cs[++i]!);
    } else if (c === '.') set = ANY;
    else if (c === '[') {
      let neg = false;
      i++;
      if (cs[i] === '^') {
        neg = true;
        i++;
      }
      const ranges: [number, number][] = [];
      let first = true;
      while (i < cs.length && (cs[i] !== ']' || first)) {
        first = false;
        let lo: number;
        if (cs[i] === '\\' && i + 1 < cs.length) {
          const e = escapeSet(cs[++i]!);
          if (e.length !== 1 || e[0]![0] !== e[0]![1]) {
            ranges.push(...e);
            i++;
            continue;
          }
          lo = e[0]![0];
        } else lo = cs[i]!.codePointAt(0)!;
        let hi = lo;
        if (cs[i + 1] === '-' && i + 2 < cs.length && cs[i + 2] !== ']') {
          hi = cs[i + 2] === '\\' && i + 3 < cs.length ? cs[(i += 1) + 2]!.codePointAt(0)! : cs[i + 2]!.codePointAt(0)!;
          i += 2;
          if (hi < lo) throw builtinError(`invalid glob pattern ${JSON.stringify(p)}: invalid character class range`);
        }
        ranges.push([lo, hi]);
        i++;
      }
      if (i >= cs.length) throw builtinError(`invalid glob pattern ${JSON.stringify(p)}: missing closing ]`);
      set = normalize(ranges);
      if (neg) set = complement(set);
    } else if (c === '*' || c === '+' || c === '?') {
      throw builtinError(`invalid glob pattern ${JSON.stringify(p)}: modifier ${c} without a preceding character`);
    } else if ('()|{}^$'.includes(c)) {
      throw builtinError(`invalid glob pattern ${JSON.stringify(p)}: unsupported syntax ${JSON.stringify(c)}`);
    } else {
      const cp = c.codePointAt(0)!;
      set = [[cp, cp]];
    }
    let q: Token['q'] = '';
    const next = cs[i + 1];
    if (next === '*' || next === '+' || next === '?') {
      q = next;
      i++;
    }
    out.push({ set, q });
  }
  return out;
}

/** Positions reachable from `i` without consuming a character. */
function closure(ts: Token[], i: number): number[] {
  const out = [i];
  while (i < ts.length && (ts[i]!.q === '*' || ts[i]!.q === '?')) out.push(++i);
  return out;
}

/** Consuming one character at position i leads to these positions. */
function steps(ts: Token[], i: number): number[] {
  const t = ts[i]!;
  return t.q === '*' || t.q === '+' ? [i, i + 1] : [i + 1];
}

export function globsMatch(a: string, b: string): boolean {
  const x = parse(a);
  const y = parse(b);
  const seen = new Set<number>();
  const width = y.length + 1;
  const stack: [number, number][] = [];
  const push = (i: number, j: number) => {
    for (const ci of closure(x, i))
      for (const cj of closure(y, j)) {
        const key = ci * width + cj;
        if (!seen.has(key)) {
          seen.add(key);
          stack.push([ci, cj]);
        }
      }
  };
  push(0, 0);
  while (stack.length) {
    const [i, j] = stack.pop()!;
    if (i === x.length && j === y.length) return true;
    if (i === x.length || j === y.length) continue;
    if (!intersects(x[i]!.set, y[j]!.set)) continue;
    for (const ni of steps(x, i)) for (const nj of steps(y, j)) push(ni, nj);
  }
  return false;
}
