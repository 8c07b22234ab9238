// Regular-expression built-ins with Go's regexp (RE2) semantics, via the re2 package.

import { builtinError } from '../errors.js';
import { registerBuiltins, type BuiltinImpl } from '../registry.js';
import { compileRegex, expandTemplate, findAll, isValidRegex, namedGroups, quoteMeta } from './cache.js';
import { globsMatch } from './globs.js';
import { int, str } from '../args.js';
import type { Value } from '../../../value/index.js';

function matches(pattern: string, value: string): boolean {
  const re = compileRegex(pattern);
  re.lastIndex = 0;
  return re.test(value);
}

/** Go's Regexp.ReplaceAllString. */
function replaceAll(s: string, pattern: string, repl: string): string {
  const re = compileRegex(pattern);
  let out = '';
  let lastEnd = 0;
  let pos = 0;
  while (pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) break;
    const start = m.index;
    const end = start + m[0]!.length;
    out += s.slice(lastEnd, start);
    // No replacement for an empty match right after the previous match.
    if (end > lastEnd || start === 0) {
      const groups = Array.from(m);
      out += expandTemplate(repl, groups, namedGroups(re, groups));
    }
    lastEnd = end;
    const cp = s.codePointAt(pos);
    const width = cp === undefined ? 1 : cp > 0xffff ? 2 : 1;
    pos = pos + width > end ? pos + width : end;
  }
  return out + s.slice(lastEnd);
}

/** Go's Regexp.Split(s, -1). */
function split(pattern: string, s: string): string[] {
  const re = compileRegex(pattern);
  if (pattern.length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of findAll(re, s, -1)) {
    end = m.start;
    if (m.end !== 0) out.push(s.slice(beg, end));
    beg = m.end;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** Go's %q of a string (strconv.Quote). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };
    if (named[ch] !== undefined) out += named[ch];
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd'; // Go sees U+FFFD, which prints as itself
    else if (cp !== 0x20 && /[\p{C}\p{Z}]/u.test(ch)) out += cp > 0xffff ? '\\U' + cp.toString(16).padStart(8, '0') : '\\u' + cp.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** Byte positions of the outermost delimiter pairs, as in OPA's (gorilla/mux-derived) template parser. */
function delimiterIndices(s: string, open: string, close: string): number[] {
  let level = 0;
  let idx = 0;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === open) {
      if (++level === 1) idx = i;
    } else if (s[i] === close) {
      if (--level === 0) out.push(idx, i + 1);
      else if (level < 0) throw builtinError(`unbalanced braces in ${goQuote(s)}`);
    }
  }
  if (level !== 0) throw builtinError(`unbalanced braces in ${goQuote(s)}`);
  return out;
}

function templateMatch(tpl: string, value: string, open: string, close: string): boolean {
  const idxs = delimiterIndices(tpl, open, close);
  let pattern = '^';
  let end = 0;
  for (let i = 0; i < idxs.length; i += 2) {
    const raw = tpl.slice(end, idxs[i]);
    end = idxs[i + 1]!;
    const patt = tpl.slice(idxs[i]! + 1, end - 1);
    compileRegex(`^${patt}$`); // each part must be a valid expression by itself
    pattern += `${quoteMeta(raw)}(${patt})`;
  }
  pattern += quoteMeta(tpl.slice(end)) + '$';
  return matches(pattern, value);
}

const defs: BuiltinImpl[] = [
  { name: 'regex.match', fn: (a) => matches(str(a, 0), str(a, 1)) },
  { name: 're_match', fn: (a) => matches(str(a, 0), str(a, 1)) },
  {
    name: 'regex.is_valid',
    // A non-string is simply not a valid pattern (OPA answers false, not an error).
    fn: (a) => typeof a[0] === 'string' && isValidRegex(a[0]),
  },
  {
    name: 'regex.find_n',
    fn: (a) => {
      const re = compileRegex(str(a, 0));
      const s = str(a, 1);
      return findAll(re, s, int(a, 2)).map((m) => s.slice(m.start, m.end));
    },
  },
  {
    name: 'regex.find_all_string_submatch_n',
    fn: (a) => {
      const re = compileRegex(str(a, 0));
      const s = str(a, 1);
      return findAll(re, s, int(a, 2)).map((m) => m.groups.map((g) => g ?? ''));
    },
  },
  { name: 'regex.replace', fn: (a) => replaceAll(str(a, 0), str(a, 1), str(a, 2)) },
  { name: 'regex.split', fn: (a) => split(str(a, 0), str(a, 1)) },
  {
    name: 'regex.template_match',
    fn: (a) => {
      const tpl = str(a, 0);
      const value = str(a, 1);
      const open = str(a, 2);
      const close = str(a, 3);
      const ob = Buffer.byteLength(open);
      const cb = Buffer.byteLength(close);
      if (ob !== 1) throw builtinError(`start delimiter has to be exactly one character long but is ${ob} long`);
      // OPA reports the start delimiter's length here.
      if (cb !== 1) throw builtinError(`end delimiter has to be exactly one character long but is ${ob} long`);
      return templateMatch(tpl, value, open, close);
    },
  },
  { name: 'regex.globs_match', fn: (a) => globsMatch(str(a, 0), str(a, 1)) as Value },
];

registerBuiltins(defs);
