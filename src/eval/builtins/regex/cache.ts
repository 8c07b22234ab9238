// Compiled RE2 patterns, kept in a bounded LRU cache, and the Go regexp operations the
// regex built-ins need (FindAll with Go's empty-match rules, ReplaceAllString expansion).

import RE2 from 're2';
import { builtinError } from '../errors.js';

const MAX = 1000;
const cache = new Map<string, RE2 | Error>();

// RE2 (C++) error texts and the words Go's regexp/syntax uses for the same errors.
const GO_ERRORS: [string, string][] = [
  ['missing )', 'missing closing )'],
  ['missing ]', 'missing closing ]'],
  ['unexpected )', 'unexpected )'],
  ['bad repetition operator', 'invalid nested repetition operator'],
  ['no argument for repetition operator', 'missing argument to repetition operator'],
  ['invalid repetition size', 'invalid repeat count'],
  ['invalid perl operator', 'invalid or unsupported Perl syntax'],
  ['invalid named capture group', 'invalid named capture'],
  ['bad UTF-8', 'invalid UTF-8'],
  ['trailing \\', 'trailing backslash at end of expression'],
  ['pattern too large - compile failed', 'expression too large'],
];

/** Go's "error parsing regexp: <code>: `<fragment>`" text for an RE2 error. */
function goErrorText(message: string): string {
  for (const [cpp, go] of GO_ERRORS) {
    if (message === cpp) return `error parsing regexp: ${go}: \`\``;
    if (message.startsWith(cpp + ': ')) return `error parsing regexp: ${go}: \`${message.slice(cpp.length + 2)}\``;
  }
  const i = message.indexOf(': ');
  if (i > 0) return `error parsing regexp: ${message.slice(0, i)}: \`${message.slice(i + 2)}\``;
  return `error parsing regexp: ${message}`;
}

/** Compiles (or fetches) a pattern; throws the Go-style error as an eval_builtin_error. */
export function compileRegex(pattern: string): RE2 {
  let hit = cache.get(pattern);
  if (hit !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, hit);
  } else {
    try {
      hit = new RE2(pattern, 'gu');
    } catch (e) {
      hit = new Error(goErrorText((e as Error).message));
    }
    cache.set(pattern, hit);
    if (cache.size > MAX) cache.delete(cache.keys().next().value!);
  }
  if (hit instanceof Error) throw builtinError(hit.message);
  return hit;
}

export function isValidRegex(pattern: string): boolean {
  try {
    compileRegex(pattern);
    return true;
  } catch {
    return false;
  }
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
    if (accept) out.push({ start, end, groups: Array.from(m), named: m.groups });
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
