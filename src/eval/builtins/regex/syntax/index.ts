// A checker for Go's regexp/syntax (Perl flags, as regexp.Compile uses it). RE2-the-library
// accepts a few things Go rejects (\C, \cX, \u0041, deep nesting) and rejects a few Go accepts
// (duplicate group names), and words its errors differently, so every pattern is first walked
// here the way Go's parser walks it: the first error found is Go's, with Go's code and the
// same offending fragment ("error parsing regexp: missing closing ]: `[a`"). A valid pattern
// comes back as the source to hand to RE2 (group names taken out) and its group names.
//
// This file is the parser's main loop and its groups; `scan.ts` reads escapes, classes and
// repeat counts, `tree.ts` keeps the parse stack and Go's limits.

import { fail } from './errors.js';
import { parseClass, parseEscape, parseRepeat, parseUnicodeClass, perlClass, runeAt } from './scan.js';
import { MAX_REPEAT, ParseStack } from './tree.js';

export { GoRegexError } from './errors.js';

export interface GoRegex {
  /** The pattern for RE2: the same expression with group names removed. */
  source: string;
  /** Name of each group (index 0 is the whole match). */
  names: (string | undefined)[];
}

export function parseGoRegex(s: string): GoRegex {
  const stack = new ParseStack(s);
  const groups = new Groups(s, stack);
  let lastRepeat = -1;
  let t = 0;
  while (t < s.length) {
    let repeatAt = -1;
    const c = s[t]!;
    switch (c) {
      case '(':
        if (s[t + 1] === '?') {
          t = groups.perlFlags(t);
          break;
        }
        groups.open();
        t++;
        break;
      case '|':
        stack.bar();
        t++;
        break;
      case ')':
        stack.closeGroup();
        t++;
        break;
      case '^':
      case '$':
      case '.':
        stack.leaf();
        t++;
        break;
      case '[':
        t = parseClass(s, t);
        stack.leaf('class');
        break;
      case '*':
      case '+':
      case '?': {
        const op = c === '*' ? 'star' : c === '+' ? 'plus' : 'quest';
        repeatAt = t;
        t = stack.repeat(op, 0, 0, t, t + 1, lastRepeat);
        break;
      }
      case '{': {
        const r = parseRepeat(s, t);
        if (!r) {
          stack.leaf('lit');
          t++;
          break;
        }
        const [min, max, after] = r;
        if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) {
          throw fail('invalid repeat count', s.slice(t, after));
        }
        repeatAt = t;
        t = stack.repeat('rep', min, max, t, after, lastRepeat);
        break;
      }
      case '\\':
        t = escape(s, t, stack);
        break;
      default:
        t += runeAt(s, t).length;
        stack.leaf('lit');
    }
    lastRepeat = repeatAt;
  }
  stack.finish();
  return { source: groups.source(), names: groups.names };
}

/** A backslash at t outside a class: an assertion, a quoted literal, a class or an escaped character. */
function escape(s: string, t: number, stack: ParseStack): number {
  const d = s[t + 1];
  if (d === 'A' || d === 'b' || d === 'B' || d === 'z') {
    stack.leaf();
    return t + 2;
  }
  if (d === 'C') throw fail('invalid escape sequence', '\\C');
  if (d === 'Q') {
    const end = s.indexOf('\\E', t + 2);
    const lit = end < 0 ? s.slice(t + 2) : s.slice(t + 2, end);
    for (const _ of lit) stack.leaf('lit');
    return end < 0 ? s.length : end + 2;
  }
  const u = parseUnicodeClass(s, t);
  if (u >= 0) {
    stack.leaf('class');
    return u;
  }
  if (perlClass(s, t)) {
    stack.leaf('class');
    return t + 2;
  }
  const after = parseEscape(s, t);
  stack.leaf('lit');
  return after;
}

/** The groups: their names, and the source for RE2 with the names taken out. */
class Groups {
  readonly names: (string | undefined)[] = [undefined];
  private out = '';
  private copied = 0; // s[copied..] has not been copied to out yet

  constructor(
    private readonly s: string,
    private readonly stack: ParseStack,
  ) {}

  /** A plain capturing `(`. */
  open(): void {
    this.names.push(undefined);
    this.stack.openGroup(this.names.length - 1, undefined);
  }

  source(): string {
    return this.out + this.s.slice(this.copied);
  }

  /** (?flags), (?flags:, (?P<name>, (?<name> at i. */
  perlFlags(i: number): number {
    const s = this.s;
    const rest = s.slice(i);
    const startsWithP = rest.length > 4 && rest[2] === 'P' && rest[3] === '<';
    const startsWithName = rest.length > 3 && rest[2] === '<';
    if (startsWithP || startsWithName) {
      const exprStart = startsWithP ? 4 : 3;
      const end = rest.indexOf('>');
      if (end < 0) throw fail('invalid named capture', rest);
      const name = rest.slice(exprStart, end);
      if (name === '' || !/^[0-9A-Za-z_]+$/.test(name)) throw fail('invalid named capture', rest.slice(0, end + 1));
      this.names.push(name);
      this.stack.openGroup(this.names.length - 1, name);
      // RE2 rejects duplicate names, Go does not: hand RE2 a plain group.
      this.out += s.slice(this.copied, i) + '(';
      this.copied = i + end + 1;
      return i + end + 1;
    }
    let t = i + 2;
    let sign = 1;
    let sawFlag = false;
    while (t < s.length) {
      const c = runeAt(s, t);
      t += c.length;
      if ('imsU'.includes(c)) {
        sawFlag = true;
        continue;
      }
      if (c === '-') {
        if (sign < 0) break;
        sign = -1;
        sawFlag = false;
        continue;
      }
      if (c === ':' || c === ')') {
        if (sign < 0 && !sawFlag) break;
        if (c === ':') this.stack.openGroup(0, undefined);
        return t;
      }
      break;
    }
    throw fail('invalid or unsupported Perl syntax', s.slice(i, t));
  }
}
