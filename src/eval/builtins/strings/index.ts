// String built-ins. Indexes and lengths are in code points (Go runes), as OPA counts them.

import { BigNum, RSet, isPlainObject, objectEntries, toDecimal, toRegoString, typeName, type Value } from '../../../value/index.js';
import { BuiltinError, builtinError, operandError, type BuiltinErrorCode } from '../errors.js';
import { registerBuiltins, type BuiltinImpl } from '../registry.js';
import { sprintf } from './sprintf.js';
import { renderTemplate } from './template.js';
import { int, num, oneOfError, runeLength, runes, str, typeError } from '../args.js';

/**
 * Go's strings.ToLower/ToUpper: rune by rune with the simple case mappings (unicode.ToLower
 * / ToUpper). JavaScript applies the full mappings, which differ: multi-rune expansions
 * (ß -> SS), the final-sigma rule (Σ at the end of a word -> ς), and letters whose simple
 * mapping is another single rune while the full one expands (ᾳ -> ᾼ, not ΑΙ).
 */
function mapCase(s: string, upper: boolean): string {
  const whole = upper ? s.toUpperCase() : s.toLowerCase();
  // Fast path: the mapping kept the length in code units, so no rune expanded.
  if (whole.length === s.length && !/[\u0130\u0131\u017f\u212a\u212b\u03c2\u03a3\u1e9e]/.test(s)) return whole;
  let out = '';
  for (const r of s) {
    const simple = upper ? simpleUpper(r.codePointAt(0)!) : undefined;
    if (simple !== undefined) {
      out += String.fromCodePoint(simple);
      continue;
    }
    const m = upper ? r.toUpperCase() : r.toLowerCase();
    if (runeLength(m) === 1) out += m;
    // Multi-rune special casings (ß -> SS) have no simple mapping: Go keeps the rune,
    // except İ whose simple lower case is i.
    else out += upper ? r : Array.from(m)[0]!;
  }
  return out;
}

/** Simple upper-case mappings where JavaScript's full mapping expands to several runes. */
function simpleUpper(cp: number): number | undefined {
  // ᾀ-ᾇ, ᾐ-ᾗ, ᾠ-ᾧ -> ᾈ-ᾏ, ᾘ-ᾟ, ᾨ-ᾯ
  if ((cp >= 0x1f80 && cp <= 0x1f87) || (cp >= 0x1f90 && cp <= 0x1f97) || (cp >= 0x1fa0 && cp <= 0x1fa7)) return cp + 8;
  if (cp === 0x1fb3) return 0x1fbc;
  if (cp === 0x1fc3) return 0x1fcc;
  if (cp === 0x1ff3) return 0x1ffc;
  return undefined;
}

/** Go's unicode.IsSpace. */
const SPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);
function isSpace(cp: number): boolean {
  return SPACE.has(cp) || (cp >= 0x2000 && cp <= 0x200a);
}

function trimFn(s: string, drop: (cp: number) => boolean, left: boolean, right: boolean): string {
  const rs = runes(s);
  let a = 0;
  let b = rs.length;
  if (left) while (a < b && drop(rs[a]!.codePointAt(0)!)) a++;
  if (right) while (b > a && drop(rs[b - 1]!.codePointAt(0)!)) b--;
  return a === 0 && b === rs.length ? s : rs.slice(a, b).join('');
}

function cutset(c: string): (cp: number) => boolean {
  const set = new Set(runes(c).map((r) => r.codePointAt(0)!));
  return (cp) => set.has(cp);
}

/** Go's strings.Split: an empty separator splits into runes. */
export function goSplit(s: string, sep: string, n = -1): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const rs = runes(s);
    if (n < 0 || n >= rs.length) return rs;
    return [...rs.slice(0, n - 1), rs.slice(n - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** Go's strings.ReplaceAll (an empty `old` matches before every rune and at the end). */
function replaceAll(s: string, old: string, repl: string): string {
  if (old === '') return repl + runes(s).map((r) => r + repl).join('');
  return s.split(old).join(repl);
}

/** Code-point index of `sub` in `s` at or after code-unit position `from`, as a code-unit index. */
function runeIndexOf(s: string, unitIndex: number): number {
  return runeLength(s.slice(0, unitIndex));
}

/** The members of a string/array/set operand, checking element types as OPA does. */
function stringsOperand(v: Value, pos: number): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) || v instanceof RSet) {
    const items = Array.isArray(v) ? v : v.values();
    const kind = Array.isArray(v) ? 'array' : 'set';
    for (const x of items)
      if (typeof x !== 'string') throw typeError(`operand ${pos} must be ${kind} of strings but got ${kind} containing ${typeName(x)}`);
    return items as string[];
  }
  throw oneOfError(pos, ['string', 'set', 'array'], v);
}

/** Truncates a number toward zero, exactly. */
function truncToBigInt(v: number | BigNum): bigint {
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  const d = toDecimal(v);
  return d.exp >= 0 ? d.mant * 10n ** BigInt(d.exp) : d.mant / 10n ** BigInt(-d.exp);
}

/** strings.NewReplacer(...).Replace: leftmost match; at one position the first pair (in order) wins. */
function replacer(s: string, pairs: [string, string][]): string {
  if (pairs.length === 0) return s;
  let out = '';
  let i = 0;
  while (i <= s.length) {
    let hit: [string, string] | undefined;
    for (const p of pairs)
      if (s.startsWith(p[0], i)) {
        hit = p;
        break;
      }
    if (hit) {
      out += hit[1];
      if (hit[0] !== '') {
        i += hit[0].length;
        continue;
      }
    }
    if (i === s.length) break;
    const cp = s.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    out += s.slice(i, i + w);
    i += w;
  }
  return out;
}

const defs: BuiltinImpl[] = [
  {
    name: 'concat',
    fn: (args) => {
      const delim = str(args, 0);
      const coll = args[1]!;
      if (!Array.isArray(coll) && !(coll instanceof RSet)) throw oneOfError(2, ['set', 'array'], coll);
      return stringsOperand(coll, 2).join(delim);
    },
  },
  { name: 'contains', fn: (a) => str(a, 0).includes(str(a, 1)) },
  { name: 'startswith', fn: (a) => str(a, 0).startsWith(str(a, 1)) },
  { name: 'endswith', fn: (a) => str(a, 0).endsWith(str(a, 1)) },
  {
    name: 'format_int',
    fn: (args) => {
      const n = num(args, 0);
      const base = int(args, 1);
      if (![2, 8, 10, 16].includes(base)) throw typeError('operand 2 must be one of {2, 8, 10, 16}');
      return truncToBigInt(n).toString(base);
    },
  },
  {
    name: 'indexof',
    fn: (args) => {
      const s = str(args, 0);
      const sub = str(args, 1);
      if (sub === '') throw builtinError('empty search character');
      const i = s.indexOf(sub);
      return i < 0 ? -1 : runeIndexOf(s, i);
    },
  },
  {
    name: 'indexof_n',
    fn: (args) => {
      const s = str(args, 0);
      const sub = str(args, 1);
      if (sub === '') throw builtinError('empty search character');
      const out: Value[] = [];
      // Overlapping matches, as OPA reports them.
      for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + 1)) out.push(runeIndexOf(s, i));
      return out;
    },
  },
  { name: 'lower', fn: (a) => mapCase(str(a, 0), false) },
  { name: 'upper', fn: (a) => mapCase(str(a, 0), true) },
  { name: 'replace', fn: (a) => replaceAll(str(a, 0), str(a, 1), str(a, 2)) },
  { name: 'split', fn: (a) => goSplit(str(a, 0), str(a, 1)) },
  { name: 'sprintf', fn: (a) => sprintfBuiltin(a) },
  {
    name: 'strings.any_prefix_match',
    fn: (args) => {
      const xs = stringsOperand(args[0]!, 1);
      const ps = stringsOperand(args[1]!, 2);
      return xs.some((x) => ps.some((p) => x.startsWith(p)));
    },
  },
  {
    name: 'strings.any_suffix_match',
    fn: (args) => {
      const xs = stringsOperand(args[0]!, 1);
      const ps = stringsOperand(args[1]!, 2);
      return xs.some((x) => ps.some((p) => x.endsWith(p)));
    },
  },
  {
    name: 'strings.count',
    fn: (args) => {
      const s = str(args, 0);
      const sub = str(args, 1);
      if (sub === '') return runeLength(s) + 1;
      return s.split(sub).length - 1;
    },
  },
  {
    name: 'strings.render_template',
    fn: (args) => {
      const tmpl = str(args, 0);
      const vars = args[1]!;
      if (!isPlainObject(vars)) {
        if (vars !== null && typeof vars === 'object' && !Array.isArray(vars) && !(vars instanceof RSet) && !(vars instanceof BigNum))
          throw builtinError('template variables must have string keys');
        throw operandError(2, 'object', vars);
      }
      return renderTemplate(tmpl, vars);
    },
  },
  {
    name: 'strings.replace_n',
    fn: (args) => {
      const pat = args[0]!;
      if (!(pat !== null && typeof pat === 'object' && !Array.isArray(pat) && !(pat instanceof RSet) && !(pat instanceof BigNum)))
        throw operandError(1, 'object', pat);
      const pairs: [string, string][] = [];
      for (const [k, v] of objectEntries(pat)) {
        if (typeof k !== 'string') throw typeError('operand 1 non-string key found in pattern object');
        if (typeof v !== 'string') throw typeError('operand 1 non-string value found in pattern object');
        pairs.push([k, v]);
      }
      return replacer(str(args, 1), pairs);
    },
  },
  {
    name: 'strings.split_n',
    fn: (a) => goSplit(str(a, 0), str(a, 1), int(a, 2)),
  },
  { name: 'strings.reverse', fn: (a) => runes(str(a, 0)).reverse().join('') },
  {
    name: 'substring',
    fn: (args) => {
      const s = str(args, 0);
      const start = int(args, 1);
      const len = int(args, 2);
      if (start < 0) throw builtinError('negative offset');
      const rs = runes(s);
      if (start >= rs.length) return '';
      return (len < 0 ? rs.slice(start) : rs.slice(start, start + len)).join('');
    },
  },
  { name: 'trim', fn: (a) => trimFn(str(a, 0), cutset(str(a, 1)), true, true) },
  { name: 'trim_left', fn: (a) => trimFn(str(a, 0), cutset(str(a, 1)), true, false) },
  { name: 'trim_right', fn: (a) => trimFn(str(a, 0), cutset(str(a, 1)), false, true) },
  {
    name: 'trim_prefix',
    fn: (a) => {
      const s = str(a, 0);
      const p = str(a, 1);
      return s.startsWith(p) ? s.slice(p.length) : s;
    },
  },
  {
    name: 'trim_suffix',
    fn: (a) => {
      const s = str(a, 0);
      const p = str(a, 1);
      return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
    },
  },
  { name: 'trim_space', fn: (a) => trimFn(str(a, 0), isSpace, true, true) },
  {
    name: 'internal.template_string',
    fn: (args) => {
      const parts = args[0]!;
      if (!Array.isArray(parts)) throw operandError(1, 'array', parts);
      let out = '';
      for (const p of parts) {
        let v: Value = p;
        if (p instanceof RSet) {
          if (p.size === 0) {
            out += '<undefined>';
            continue;
          }
          // A template string must have one value per expression.
          if (p.size > 1)
            throw new BuiltinError('template-strings must not produce multiple outputs', 'eval_conflict_error' as BuiltinErrorCode);
          v = p.values()[0]!;
        }
        out += typeof v === 'string' ? v : toRegoString(v);
      }
      return out;
    },
  },
];

function sprintfBuiltin(args: Value[]): Value {
  const format = str(args, 0);
  const list = args[1]!;
  if (!Array.isArray(list)) throw operandError(2, 'array', list);
  return sprintf(format, list);
}

registerBuiltins(defs);
