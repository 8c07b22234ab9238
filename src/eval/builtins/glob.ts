// glob.match with gobwas/glob syntax (as OPA uses it): `*` any run of non-delimiter
// characters, `**` any run including delimiters, `?` one non-delimiter character,
// `[abc]` / `[a-z]` / `[!...]` character classes, `{a,b}` alternatives, `\` escapes.
// Delimiters: [] means the default ["."], null means none. Compiled globs are cached.

import { typeName, type Value } from '../../value/index.js';
import { builtinError } from './errors.js';
import { registerBuiltins, type BuiltinImpl } from './registry.js';
import { str, typeError } from './args.js';

const MAX = 1000;
const cache = new Map<string, RegExp | Error>();

function escapeRe(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Translates a glob into an anchored JS regular expression. */
function translate(pattern: string, delims: string[]): string {
  const cs = Array.from(pattern);
  const notDelim = delims.length ? `[^${delims.map(escapeRe).join('')}]` : '[^]';
  let i = 0;
  const parse = (inTerms: boolean): string => {
    let out = '';
    while (i < cs.length) {
      const c = cs[i]!;
      if (inTerms && (c === ',' || c === '}')) return out;
      i++;
      switch (c) {
        case '\\':
          if (i >= cs.length) throw new Error('unexpected end of input after escape');
          out += escapeRe(cs[i++]!);
          break;
        case '*':
          if (cs[i] === '*') {
            while (cs[i] === '*') i++;
            out += '[^]*';
          } else out += notDelim + '*';
          break;
        case '?':
          out += notDelim;
          break;
        case '[': {
          let neg = false;
          if (cs[i] === '!') {
            neg = true;
            i++;
          }
          let cls = '';
          while (i < cs.length && cs[i] !== ']') {
            let ch = cs[i++]!;
            if (ch === '\\' && i < cs.length) ch = cs[i++]!;
            if (cs[i] === '-' && i + 1 < cs.length && cs[i + 1] !== ']') {
              let hi = cs[i + 1]!;
              i += 2;
              if (hi === '\\' && i < cs.length) hi = cs[i++]!;
              if (hi.codePointAt(0)! < ch.codePointAt(0)!) throw new Error('hi character should be greater than lo character');
              cls += escapeRe(ch) + '-' + escapeRe(hi);
            } else cls += escapeRe(ch);
          }
          if (i >= cs.length) throw new Error('unexpected end of input');
          i++;
          if (!cls) throw new Error('empty character class');
          out += `[${neg ? '^' : ''}${cls}]`;
          break;
        }
        case '{': {
          const alts: string[] = [];
          for (;;) {
            alts.push(parse(true));
            if (i >= cs.length) throw new Error('unexpected end of input');
            if (cs[i++] === '}') break;
          }
          out += `(?:${alts.join('|')})`;
          break;
        }
        default:
          out += escapeRe(c);
      }
    }
    if (inTerms) throw new Error('unexpected end of input');
    return out;
  };
  return '^' + parse(false) + '$';
}

function compileGlob(pattern: string, delims: string[]): RegExp {
  const key = JSON.stringify([pattern, delims]);
  let hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
  } else {
    try {
      hit = new RegExp(translate(pattern, delims), 'u');
    } catch (e) {
      hit = new Error((e as Error).message);
    }
    cache.set(key, hit);
    if (cache.size > MAX) cache.delete(cache.keys().next().value!);
  }
  if (hit instanceof Error) throw builtinError(hit.message);
  return hit;
}

function delimiters(v: Value): string[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw typeError(`operand 2 must be one of {array, null} but got ${typeName(v)}`);
  const out: string[] = [];
  for (const d of v) {
    if (typeof d !== 'string') throw typeError(`operand 2 must be array of strings but got array containing ${typeName(d)}`);
    out.push(...Array.from(d));
  }
  return out.length ? out : ['.'];
}

/** gobwas/glob QuoteMeta: escapes * ? \ [ ] { }. */
function quoteMeta(s: string): string {
  return s.replace(/[*?\\[\]{}]/g, '\\$&');
}

const defs: BuiltinImpl[] = [
  {
    name: 'glob.match',
    fn: (a) => {
      const pattern = str(a, 0);
      const delims = delimiters(a[1]!);
      const match = str(a, 2);
      return compileGlob(pattern, delims).test(match);
    },
  },
  { name: 'glob.quote_meta', fn: (a) => quoteMeta(str(a, 0)) },
];

registerBuiltins(defs);
