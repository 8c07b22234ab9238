// Compiled RE2 patterns, kept in a bounded LRU cache, and the Go regexp operations the
// regex built-ins need (FindAll with Go's empty-match rules, ReplaceAllString expansion).

import RE2 from 're2';
import { PatternCache } from '../pattern-cache.js';
import { GoRegexError, parseGoRegex } from './syntax/index.js';

const cache = new PatternCache<RE2>(1000);
const groupNames = new WeakMap<RE2, (string | undefined)[]>();

/** Compiles (or fetches) a pattern; a pattern Go rejects fails with Go's error text (eval_builtin_error). */
export function compileRegex(pattern: string): RE2 {
  return cache.get(pattern, () => {
    try {
      const go = parseGoRegex(pattern);
      try {
        const re = new RE2(go.source, 'gu');
        groupNames.set(re, go.names);
        return re;
      } catch {
        // Valid for Go but beyond RE2's program-size budget.
        return new Error(`error parsing regexp: expression too large: \`${pattern}\``);
      }
    } catch (e) {
      if (!(e instanceof GoRegexError)) throw e;
      return e;
    }
  });
}

/** Whether Go's regexp/syntax parses the pattern (what regex.is_valid asks). */
export function isValidRegex(pattern: string): boolean {
  try {
    parseGoRegex(pattern);
    return true;
  } catch (e) {
    if (e instanceof GoRegexError) return false;
    throw e;
  }
}

/** The named groups of a match, as Go's Expand finds them: the first group of that name that took part. */
export function namedGroups(re: RE2, groups: (string | undefined)[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const names = groupNames.get(re) ?? [];
  names.forEach((name, i) => {
    if (name !== undefined && out[name] === undefined) out[name] = groups[i];
  });
  return out;
}

/** One match: its bounds (UTF-16 units) and the text of each group (undefined when unset). */
export interface Match {
  start: number;
  end: number;
  groups: (string | undefined)[];
  named: Record<string, string | undefined> | undefined;
}

/** Go's FindAll...Index: up to n matches (n < 0 means all); an empty match right after a match is skipped. */
export function findAll(re: RE2, s: string, n: number): Match[] {
  const out: Match[] = [];
  let pos = 0;
  let prevEnd = -1;
  while ((n < 0 || out.length < n) && pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) break;
    const start = m.index;
    const end = start + m[0]!.length;
    let accept = true;
    if (end === start) {
      if (start === prevEnd) accept = false;
      const cp = s.codePointAt(end);
      pos = end + (cp === undefined ? 1 : cp > 0xffff ? 2 : 1);
    } else pos = end;
    prevEnd = end;
    if (accept) {
      const groups = Array.from(m);
      out.push({ start, end, groups, named: namedGroups(re, groups) });
    }
  }
  return out;
}

/** Go's Regexp.Expand template rules for ReplaceAllString: $1, ${1}, $name, ${name}, $$. */
export function expandTemplate(template: string, groups: (string | undefined)[], named: Record<string, string | undefined> | undefined): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const d = template.indexOf('$', i);
    if (d < 0) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, d);
    i = d + 1;
    if (template[i] === '$') {
      out += '$';
      i++;
      continue;
    }
    const brace = template[i] === '{';
    const m = /^[\p{L}\p{Nd}_]+/u.exec(template.slice(brace ? i + 1 : i));
    if (!m || (brace && template[i + 1 + m[0].length] !== '}')) {
      out += '$'; // malformed: the $ is literal text
      continue;
    }
    const name = m[0];
    i += name.length + (brace ? 2 : 0);
    let num = -1;
    if (/^\d+$/.test(name) && !(name.length > 1 && name[0] === '0') && name.length <= 8) num = Number(name);
    if (num >= 0) out += groups[num] ?? '';
    else if (named && Object.hasOwn(named, name)) out += named[name] ?? '';
  }
  return out;
}

/** Go's regexp.QuoteMeta. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}
