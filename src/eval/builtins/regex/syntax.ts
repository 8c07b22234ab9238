// A checker for Go's regexp/syntax (Perl flags, as regexp.Compile uses it). RE2-the-library
// accepts a few things Go rejects (\C, \cX, \u0041, deep nesting) and rejects a few Go accepts
// (duplicate group names), and words its errors differently, so every pattern is first walked
// here the way Go's parser walks it: the first error found is Go's, with Go's code and the
// same offending fragment ("error parsing regexp: missing closing ]: `[a`"). A valid pattern
// comes back as the source to hand to RE2 (group names taken out) and its group names.

import RE2 from 're2';

export class GoRegexError extends Error {}

const fail = (code: string, expr: string): GoRegexError => new GoRegexError(`error parsing regexp: ${code}: \`${expr}\``);

const MAX_REPEAT = 1000;
const MAX_HEIGHT = 1000;
const MAX_SIZE = Math.floor((128 << 20) / 40);

/** A parse-tree node, only as much of Go's as its limits need. */
interface Node {
  op: 'lit' | 'class' | 'leaf' | 'cap' | 'rep' | 'star' | 'plus' | 'quest' | 'concat' | 'alt' | 'empty';
  min: number;
  max: number;
  subs: Node[];
  height: number;
  size: number;
}

/** Stack entries: nodes, or the pseudo-operators "(" and "|". */
type Item = Node | { op: 'lparen'; cap: number; name: string | undefined } | { op: 'bar' };

const isPseudo = (it: Item): boolean => it.op === 'lparen' || it.op === 'bar';
const isCharClass = (it: Item): boolean => it.op === 'lit' || it.op === 'class';

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
function runeAt(s: string, i: number): string {
  const cp = s.codePointAt(i);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}

export interface GoRegex {
  /** The pattern for RE2: the same expression with group names removed. */
  source: string;
  /** Name of each group (index 0 is the whole match). */
  names: (string | undefined)[];
}

export function parseGoRegex(s: string): GoRegex {
  const stack: Item[] = [];
  const names: (string | undefined)[] = [undefined];
  let numNodes = 0;
  let out = '';
  let copied = 0; // s[copied..] has not been copied to out yet

  const node = (op: Node['op'], subs: Node[] = [], min = 0, max = 0): Node => {
    numNodes++;
    let height = 1;
    for (const sub of subs) height = Math.max(height, sub.height + 1);
    let size = 0;
    const sub0 = subs[0]?.size ?? 0;
    switch (op) {
      case 'lit':
        size = 1;
        break;
      case 'cap':
      case 'star':
        size = 2 + sub0;
        break;
      case 'plus':
      case 'quest':
        size = 1 + sub0;
        break;
      case 'concat':
        for (const x of subs) size += x.size;
        break;
      case 'alt':
        for (const x of subs) size += x.size;
        size += subs.length - 1;
        break;
      case 'rep':
        size = max === -1 ? (min === 0 ? 2 + sub0 : 1 + min * sub0) : max * sub0 + (max - min);
        break;
      default:
    }
    return { op, min, max, subs, height, size: Math.max(1, size) };
  };
  const checkLimits = (n: Node) => {
    if (n.size > MAX_SIZE) throw fail('expression too large', s);
    if (numNodes >= MAX_HEIGHT && n.height > MAX_HEIGHT) throw fail('expression nests too deeply', s);
  };
  const push = (it: Item) => {
    stack.push(it);
    if (!isPseudo(it)) checkLimits(it as Node);
  };
  const leaf = (op: Node['op'] = 'leaf') => push(node(op));

  /** Replaces the nodes above the topmost pseudo-operator by their concatenation. */
  const concat = () => {
    let i = stack.length;
    while (i > 0 && !isPseudo(stack[i - 1]!)) i--;
    const subs = stack.splice(i) as Node[];
    if (subs.length === 0) push(node('empty'));
    else push(subs.length === 1 ? subs[0]! : node('concat', subs));
  };
  const alternate = () => {
    let i = stack.length;
    while (i > 0 && !isPseudo(stack[i - 1]!)) i--;
    const subs = stack.splice(i) as Node[];
    if (subs.length === 0) push(node('leaf'));
    else push(subs.length === 1 ? subs[0]! : node('alt', subs));
  };
  const swapVerticalBar = (): boolean => {
    const n = stack.length;
    if (n >= 3 && stack[n - 2]!.op === 'bar' && isCharClass(stack[n - 1]!) && isCharClass(stack[n - 3]!)) {
      stack[n - 3] = node('class'); // the two merge into one class
      stack.pop();
      return true;
    }
    if (n >= 2 && stack[n - 2]!.op === 'bar') {
      const top = stack[n - 1]!;
      stack[n - 1] = stack[n - 2]!;
      stack[n - 2] = top;
      return true;
    }
    return false;
  };

  const repeatIsValid = (re: Node, n: number): boolean => {
    if (re.op === 'rep') {
      let m = re.max;
      if (m === 0) return true;
      if (m < 0) m = re.min;
      if (m > n) return false;
      if (m > 0) n = Math.trunc(n / m);
    }
    return re.subs.every((sub) => repeatIsValid(sub, n));
  };

  /** A repetition operator s[before..after); returns the index after it (and its lazy `?`). */
  const repeat = (op: Node['op'], min: number, max: number, before: number, after: number, lastRepeat: number): number => {
    if (s[after] === '?') after++;
    if (lastRepeat >= 0) throw fail('invalid nested repetition operator', s.slice(lastRepeat, after));
    const top = stack[stack.length - 1];
    if (top === undefined || isPseudo(top)) throw fail('missing argument to repetition operator', s.slice(before, after));
    const re = node(op, [top as Node], min, max);
    stack[stack.length - 1] = re;
    checkLimits(re);
    if (op === 'rep' && (min >= 2 || max >= 2) && !repeatIsValid(re, MAX_REPEAT)) {
      throw fail('invalid repeat count', s.slice(before, after));
    }
    return after;
  };

  /** Go's parseInt: digits without a leading zero; -1 when too big. */
  const parseInt10 = (i: number): [number, number] | undefined => {
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
  };
  /** {min}, {min,} or {min,max} at i: [min, max, end] or undefined (then `{` is a literal). */
  const parseRepeat = (i: number): [number, number, number] | undefined => {
    const a = parseInt10(i + 1);
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
        const b = parseInt10(j);
        if (!b) return undefined;
        [max, j] = b;
        if (max < 0) min = -1;
      }
    }
    if (s[j] !== '}') return undefined;
    return [min, max, j + 1];
  };

  /** An escape at i (s[i] is `\`): the index after it. */
  const parseEscape = (i: number): number => {
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
  };

  /** \p{Name}, \pN, \P... at i: the index after it, or -1 when s[i..] is not one. */
  const parseUnicodeClass = (i: number): number => {
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
  };

  const perlClass = (i: number): boolean => s[i] === '\\' && 'dDsSwW'.includes(s[i + 1] ?? '') && s[i + 1] !== undefined;

  /** A class at i (s[i] is `[`): the index after its `]`. */
  const parseClass = (i: number): number => {
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
      const u = parseUnicodeClass(t);
      if (u >= 0) {
        t = u;
        continue;
      }
      if (perlClass(t)) {
        t += 2;
        continue;
      }
      const rng = t;
      const classChar = (k: number): [number, number] => {
        if (k >= s.length) throw fail('missing closing ]', whole);
        if (s[k] === '\\') {
          const end = parseEscape(k);
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
  };

  let lastRepeat = -1;
  let t = 0;
  while (t < s.length) {
    let repeatAt = -1;
    const c = s[t]!;
    switch (c) {
      case '(':
        if (s[t + 1] === '?') {
          t = parsePerlFlags(t);
          break;
        }
        names.push(undefined);
        push({ op: 'lparen', cap: names.length - 1, name: undefined });
        t++;
        break;
      case '|':
        concat();
        if (!swapVerticalBar()) push({ op: 'bar' });
        t++;
        break;
      case ')': {
        concat();
        if (swapVerticalBar()) stack.pop();
        alternate();
        const n = stack.length;
        if (n < 2) throw fail('unexpected )', s);
        const re1 = stack.pop() as Node;
        const re2 = stack.pop()!;
        if (re2.op !== 'lparen') throw fail('unexpected )', s);
        push(re2.cap === 0 ? re1 : node('cap', [re1]));
        t++;
        break;
      }
      case '^':
      case '$':
      case '.':
        leaf();
        t++;
        break;
      case '[':
        t = parseClass(t);
        leaf('class');
        break;
      case '*':
      case '+':
      case '?': {
        const op = c === '*' ? 'star' : c === '+' ? 'plus' : 'quest';
        repeatAt = t;
        t = repeat(op, 0, 0, t, t + 1, lastRepeat);
        break;
      }
      case '{': {
        const r = parseRepeat(t);
        if (!r) {
          leaf('lit');
          t++;
          break;
        }
        const [min, max, after] = r;
        if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) {
          throw fail('invalid repeat count', s.slice(t, after));
        }
        repeatAt = t;
        t = repeat('rep', min, max, t, after, lastRepeat);
        break;
      }
      case '\\': {
        const d = s[t + 1];
        if (d === 'A' || d === 'b' || d === 'B' || d === 'z') {
          leaf();
          t += 2;
          break;
        }
        if (d === 'C') throw fail('invalid escape sequence', '\\C');
        if (d === 'Q') {
          const end = s.indexOf('\\E', t + 2);
          const lit = end < 0 ? s.slice(t + 2) : s.slice(t + 2, end);
          for (const _ of lit) leaf('lit');
          t = end < 0 ? s.length : end + 2;
          break;
        }
        const u = parseUnicodeClass(t);
        if (u >= 0) {
          t = u;
          leaf('class');
          break;
        }
        if (perlClass(t)) {
          t += 2;
          leaf('class');
          break;
        }
        t = parseEscape(t);
        leaf('lit');
        break;
      }
      default:
        t += runeAt(s, t).length;
        leaf('lit');
    }
    lastRepeat = repeatAt;
  }
  concat();
  if (swapVerticalBar()) stack.pop();
  alternate();
  if (stack.length !== 1) throw fail('missing closing )', s);
  return { source: out + s.slice(copied), names };

  /** (?flags), (?flags:, (?P<name>, (?<name> at i. */
  function parsePerlFlags(i: number): number {
    const rest = s.slice(i);
    const startsWithP = rest.length > 4 && rest[2] === 'P' && rest[3] === '<';
    const startsWithName = rest.length > 3 && rest[2] === '<';
    if (startsWithP || startsWithName) {
      const exprStart = startsWithP ? 4 : 3;
      const end = rest.indexOf('>');
      if (end < 0) throw fail('invalid named capture', rest);
      const name = rest.slice(exprStart, end);
      if (name === '' || !/^[0-9A-Za-z_]+$/.test(name)) throw fail('invalid named capture', rest.slice(0, end + 1));
      names.push(name);
      push({ op: 'lparen', cap: names.length - 1, name });
      // RE2 rejects duplicate names, Go does not: hand RE2 a plain group.
      out += s.slice(copied, i) + '(';
      copied = i + end + 1;
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
        if (c === ':') push({ op: 'lparen', cap: 0, name: undefined });
        return t;
      }
      break;
    }
    throw fail('invalid or unsupported Perl syntax', s.slice(i, t));
  }
}

/** The code point an escape (already checked) stands for. */
function escapeValue(e: string): number {
  const c = e[1]!;
  if (c >= '0' && c <= '7') return parseInt(e.slice(1), 8);
  if (c === 'x') return parseInt(e[2] === '{' ? e.slice(3, -1) : e.slice(2), 16);
  const named: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
  return named[c] ?? e.codePointAt(1)!;
}
