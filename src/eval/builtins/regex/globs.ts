// regex.globs_match: whether two "glob-like" patterns can match a common string. OPA uses
// yashtewari/glob-intersection (v0.2.0), whose syntax is a sequence of single-character
// tokens -- a character, an escaped character `\\x` (always that character itself), `.` (any
// character) or a set `[abc]` / `[a-z]` (no negation: `^` is a member) -- each optionally
// followed by `+` or `*`. Everything else (`?`, `(`, `|`, `{`, `$` ...) is a plain character.
// Malformed input fails with that library's messages. The answer comes from a search over
// the product of the two patterns' automata.

import { builtinError } from '../errors.js';

/** A set of code points: sorted, disjoint [lo, hi] ranges. */
type CharSet = [number, number][];

const MAX_CP = 0x10ffff;
const ANY: CharSet = [[0, MAX_CP]];

interface Token {
  set: CharSet;
  q: '' | '*' | '+';
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

/**
 * Go's fmt.Errorf over the library's format string "input:<input>, pos:<n>, <message>": the
 * input is part of the format, so a `%` in it is read as a verb, as in Go.
 */
function goErrorf(format: string, args: (string | { error: string })[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const verb = format[++i];
    if (verb === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[next++]!;
    const isErr = typeof arg !== 'string';
    const text = isErr ? arg.error : arg;
    if (verb === 's' || verb === 'v' || (verb === 'w' && isErr)) out += text;
    else if (verb === 'q') out += JSON.stringify(text);
    else out += `%!${verb}(${isErr ? `*errors.errorString=&{${text}}` : `string=${text}`})`;
  }
  if (next < args.length) {
    out += '%!(EXTRA ' + args.slice(next).map((a) => (typeof a === 'string' ? `string=${a}` : `*errors.errorString=${a.error}`)).join(', ') + ')';
  }
  return out;
}

const INVALID = { error: 'the input provided is invalid' };

function invalid(input: number[], pos: number, message: string, ...args: string[]): Error {
  const format = `input:${String.fromCodePoint(...input)}, pos:${pos}, ${message}: %w`;
  return builtinError(goErrorf(format, [...args, INVALID]));
}

const END = Symbol('end of input');

/** One rune at i: [next index, rune, escaped], END at the end; a trailing backslash fails. */
function nextRune(input: number[], i: number): [number, number, boolean] | typeof END {
  if (i >= input.length) return END;
  if (input[i] === 0x5c) {
    if (i < input.length - 1) return [i + 2, input[i + 1]!, true];
    throw invalid(input, i, 'input ends with a \\ (escape) character');
  }
  return [i + 1, input[i]!, false];
}

/** The set starting after `[` at i: [its characters, index after `]`]. */
function parseSet(input: number[], i: number): [CharSet, number] {
  const ranges: [number, number][] = [];
  let prev = 0;
  let prevExists = false;
  let pos = i;
  for (;;) {
    const r = nextRune(input, pos);
    if (r === END) throw invalid(input, pos, 'found [ without matching ]');
    let [ni, c, escaped] = r;
    pos = ni;
    if (!escaped && c === 0x2d) {
      if (!prevExists) throw invalid(input, pos, "range character '-' must be preceded by a Unicode character");
      if (pos >= input.length - 1) throw invalid(input, pos, "range character '-' must be followed by a Unicode character");
      const h = nextRune(input, pos);
      if (h === END) throw invalid(input, pos, 'found [ without matching ]'); // unreachable: checked above
      [ni, c, escaped] = h;
      pos = ni;
      if (!escaped && (c === 0x5d || c === 0x2d)) throw invalid(input, pos, "range character '-' cannot be followed by a special symbol");
      if (c < prev) {
        throw invalid(input, pos, "range is out of order: '%s' comes before '%s' in Unicode", String.fromCodePoint(c), String.fromCodePoint(prev));
      }
      ranges.push([prev, c]);
      prevExists = false;
    } else if (!escaped && c === 0x5d) {
      return [normalize(ranges), pos];
    } else {
      ranges.push([c, c]);
      prev = c;
      prevExists = true;
    }
  }
}

function parse(p: string): Token[] {
  const input = Array.from(p, (ch) => ch.codePointAt(0)!);
  const out: Token[] = [];
  let pos = 0;
  for (;;) {
    const r = nextRune(input, pos);
    if (r === END) return out;
    const [ni, c, escaped] = r;
    pos = ni;
    let set: CharSet;
    if (!escaped && c === 0x2e) set = ANY;
    else if (!escaped && c === 0x5d) throw invalid(input, pos, "set-close ']' with no preceding '['");
    else if (!escaped && c === 0x5b) [set, pos] = parseSet(input, pos);
    else if (!escaped && (c === 0x2a || c === 0x2b)) {
      throw invalid(input, pos, "flag '%s' must be preceded by a non-flag", String.fromCodePoint(c));
    } else set = [[c, c]];
    let q: Token['q'] = '';
    const f = nextRune(input, pos);
    if (f !== END && !f[2] && (f[1] === 0x2a || f[1] === 0x2b)) {
      q = f[1] === 0x2a ? '*' : '+';
      pos = f[0];
    }
    out.push({ set, q });
  }
}

/** Positions reachable from `i` without consuming a character. */
function closure(ts: Token[], i: number): number[] {
  const out = [i];
  while (i < ts.length && ts[i]!.q === '*') out.push(++i);
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
