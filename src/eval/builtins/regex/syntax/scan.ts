// The lexical part of Go's regexp/syntax parser: escapes, character classes and repeat
// counts, each checked as Go checks it. Every scanner takes the pattern and an index and
// returns the index after what it read (or throws Go's error).

import RE2 from 're2';
import { fail } from './errors.js';

const POSIX = new Set(['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'word', 'xdigit']);

const unicodeNames = new Map<string, boolean>();
/** Whether Go knows the Unicode class name (RE2 has the same category and script tables). */
function knownUnicodeName(name: string): boolean {
  let ok = unicodeNames.get(name);
  if (ok === undefined) {
    ok = name !== '' && !/[{}\\^]/.test(name);
    if (ok) {
      try {
        new RE2(`\\p{${name}}`, 'u');
      } catch {
        ok = false;
      }
    }
    if (unicodeNames.size > 1000) unicodeNames.clear();
    unicodeNames.set(name, ok);
  }
  return ok;
}

const isAlnum = (c: string): boolean => /^[0-9A-Za-z]$/.test(c);
const unhex = (c: string | undefined): number => (c !== undefined && /^[0-9A-Fa-f]$/.test(c) ? parseInt(c, 16) : -1);

/** The code point (as a string) at i, or '' at the end. */
export function runeAt(s: string, i: number): string {
  const cp = s.codePointAt(i);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}

/** Go's parseInt: digits without a leading zero; -1 when too big. */
function parseInt10(s: string, i: number): [number, number] | undefined {
  if (!/[0-9]/.test(s[i] ?? '')) return undefined;
  if (s[i] === '0' && /[0-9]/.test(s[i + 1] ?? '')) return undefined;
  let j = i;
  while (/[0-9]/.test(s[j] ?? '')) j++;
  let n = 0;
  for (let k = i; k < j; k++) {
    if (n >= 1e8) {
      n = -1;
      break;
    }
    n = n * 10 + (s.charCodeAt(k) - 48);
  }
  return [n, j];
}
/** {min}, {min,} or {min,max} at i: [min, max, end] or undefined (then `{` is a literal). */
export function parseRepeat(s: string, i: number): [number, number, number] | undefined {
  const a = parseInt10(s, i + 1);
  if (!a) return undefined;
  let [min, j] = a;
  let max: number;
  if (j >= s.length) return undefined;
  if (s[j] !== ',') max = min;
  else {
    j++;
    if (j >= s.length) return undefined;
    if (s[j] === '}') max = -1;
    else {
      const b = parseInt10(s, j);
      if (!b) return undefined;
      [max, j] = b;
      if (max < 0) min = -1;
    }
  }
  if (s[j] !== '}') return undefined;
  return [min, max, j + 1];
}

/** An escape at i (s[i] is `\`): the index after it. */
export function parseEscape(s: string, i: number): number {
  let t = i + 1;
  if (t >= s.length) throw fail('trailing backslash at end of expression', '');
  const c = runeAt(s, t);
  t += c.length;
  const bad = () => fail('invalid escape sequence', s.slice(i, t));
  if (c < '\x80' && !isAlnum(c)) return t;
  if (c >= '1' && c <= '7') {
    if (!/[0-7]/.test(s[t] ?? '')) throw bad(); // a backreference: not supported
  }
  if (c >= '0' && c <= '7') {
    for (let k = 1; k < 3 && /[0-7]/.test(s[t] ?? ''); k++) t++;
    return t;
  }
  if (c === 'x') {
    if (t >= s.length) throw bad();
    const d = runeAt(s, t);
    t += d.length;
    if (d === '{') {
      let nhex = 0;
      let r = 0;
      for (;;) {
        if (t >= s.length) throw bad();
        const e = runeAt(s, t);
        t += e.length;
        if (e === '}') break;
        const v = unhex(e);
        if (v < 0) throw bad();
        r = r * 16 + v;
        if (r > 0x10ffff) throw bad();
        nhex++;
      }
      if (nhex === 0) throw bad();
      return t;
    }
    const e = runeAt(s, t);
    t += e.length;
    if (unhex(d) < 0 || unhex(e) < 0) throw bad();
    return t;
  }
  if ('afnrtv'.includes(c)) return t;
  throw bad();
}

/** \p{Name}, \pN, \P... at i: the index after it, or -1 when s[i..] is not one. */
export function parseUnicodeClass(s: string, i: number): number {
  if (s[i] !== '\\' || (s[i + 1] !== 'p' && s[i + 1] !== 'P')) return -1;
  let t = i + 2;
  const c = runeAt(s, t);
  t += c.length;
  let seqEnd: number;
  let name: string;
  if (c !== '{') {
    seqEnd = t;
    name = c;
  } else {
    const end = s.indexOf('}', i);
    if (end < 0) throw fail('invalid character class range', s.slice(i));
    seqEnd = end + 1;
    name = s.slice(i + 3, end);
  }
  if (name.startsWith('^')) name = name.slice(1);
  if (!knownUnicodeName(name)) throw fail('invalid character class range', s.slice(i, seqEnd));
  return seqEnd;
}

export function perlClass(s: string, i: number): boolean {
  return s[i] === '\\' && 'dDsSwW'.includes(s[i + 1] ?? '') && s[i + 1] !== undefined;
}

/** A class at i (s[i] is `[`): the index after its `]`. */
export function parseClass(s: string, i: number): number {
  const whole = s.slice(i);
  let t = i + 1;
  if (s[t] === '^') t++;
  let first = true;
  while (t >= s.length || s[t] !== ']' || first) {
    first = false;
    if (t + 2 < s.length && s[t] === '[' && s[t + 1] === ':') {
      const j = s.indexOf(':]', t + 2);
      if (j >= 0) {
        const name = s.slice(t, j + 2);
        const inner = name.slice(2, -2);
        if (!POSIX.has(inner.startsWith('^') ? inner.slice(1) : inner)) throw fail('invalid character class range', name);
        t = j + 2;
        continue;
      }
    }
    const u = parseUnicodeClass(s, t);
    if (u >= 0) {
      t = u;
      continue;
    }
    if (perlClass(s, t)) {
      t += 2;
      continue;
    }
    const rng = t;
    const classChar = (k: number): [number, number] => {
      if (k >= s.length) throw fail('missing closing ]', whole);
      if (s[k] === '\\') {
        const end = parseEscape(s, k);
        return [escapeValue(s.slice(k, end)), end];
      }
      const ch = runeAt(s, k);
      return [ch.codePointAt(0)!, k + ch.length];
    };
    const [lo, afterLo] = classChar(t);
    t = afterLo;
    if (t + 1 < s.length && s[t] === '-' && s[t + 1] !== ']') {
      const [hi, afterHi] = classChar(t + 1);
      t = afterHi;
      if (hi < lo) throw fail('invalid character class range', s.slice(rng, t));
    }
  }
  return t + 1;
}


/** The code point an escape (already checked) stands for. */
function escapeValue(e: string): number {
  const c = e[1]!;
  if (c >= '0' && c <= '7') return parseInt(e.slice(1), 8);
  if (c === 'x') return parseInt(e[2] === '{' ? e.slice(3, -1) : e.slice(2), 16);
  const named: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
  return named[c] ?? e.codePointAt(1)!;
}
