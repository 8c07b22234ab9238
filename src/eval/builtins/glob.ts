// glob.match with gobwas/glob (v0.2.3) syntax, as OPA uses it: `*` any run of non-delimiter
// characters, `**` any run, `?` one non-delimiter character, `[abc]` / `[a-z]` / `[!...]`
// (one list or one range per class), `{a,b}` alternatives, `\\` escapes. Delimiters: []
// means the default ["."], null means none. The pattern is read by a port of that library's
// lexer and parser, so malformed patterns fail with its messages and its leniencies are kept
// (an unclosed `{` closes at the end, a trailing `\\` is dropped, a NUL ends the pattern).
// Compiled globs are cached.

import { typeName, type Value } from '../../value/index.js';
import { registerBuiltins, type BuiltinImpl } from './registry.js';
import { PatternCache } from './pattern-cache.js';
import { str, typeError } from './args.js';

const cache = new PatternCache<RegExp>(1000);

function escapeRe(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

type TokKind = 'eof' | 'error' | 'text' | 'any' | 'super' | 'single' | 'not' | 'sep' | 'ropen' | 'rclose' | 'lo' | 'hi' | 'between' | 'topen' | 'tclose';
interface Tok {
  kind: TokKind;
  raw: string;
}

const EOF = 0; // gobwas/glob v0.2.3 uses rune 0 as its end-of-input marker
const TEXT_BREAKERS = [0x3f, 0x2a, 0x5b, 0x7b]; // ? * [ {
const TERMS_BREAKERS = [...TEXT_BREAKERS, 0x7d, 0x2c]; // and } ,

/** The gobwas/glob lexer: tokens are produced one item at a time, an error wins over queued tokens. */
class Lexer {
  private readonly cps: number[];
  private pos = 0;
  private err: string | undefined;
  private readonly queue: Tok[] = [];
  private termsLevel = 0;
  private lastRune = 0;
  private lastSize = 0;
  private hasRune = false;

  constructor(source: string) {
    this.cps = Array.from(source, (ch) => ch.codePointAt(0)!);
  }

  next(): Tok {
    for (;;) {
      if (this.err !== undefined) return { kind: 'error', raw: this.err };
      if (this.queue.length) return this.queue.shift()!;
      this.fetchItem();
    }
  }

  private peek(): [number, number] {
    if (this.pos >= this.cps.length) return [EOF, 0];
    const r = this.cps[this.pos]!;
    // utf8.RuneError, as decoded from a (valid) U+FFFD or a lone surrogate.
    if (r === 0xfffd || (r >= 0xd800 && r <= 0xdfff)) {
      this.err = 'could not read rune';
      return [EOF, 0];
    }
    return [r, 1];
  }

  private read(): number {
    if (this.hasRune) {
      this.hasRune = false;
      this.pos += this.lastSize;
      return this.lastRune;
    }
    const [r, w] = this.peek();
    this.pos += w;
    this.lastRune = r;
    this.lastSize = w;
    return r;
  }

  private unread(): void {
    if (this.hasRune) {
      this.err = 'could not unread rune';
      return;
    }
    this.pos -= this.lastSize;
    this.hasRune = true;
  }

  private push(kind: TokKind, r: number | string): void {
    this.queue.push({ kind, raw: typeof r === 'number' ? String.fromCodePoint(r) : r });
  }

  private fetchItem(): void {
    const r = this.read();
    if (r === EOF) this.push('eof', '');
    else if (r === 0x7b) {
      this.termsLevel++;
      this.push('topen', r);
    } else if (r === 0x2c && this.termsLevel > 0) this.push('sep', r);
    else if (r === 0x7d && this.termsLevel > 0) {
      this.push('tclose', r);
      this.termsLevel--;
    } else if (r === 0x5b) {
      this.push('ropen', r);
      this.fetchRange();
    } else if (r === 0x3f) this.push('single', r);
    else if (r === 0x2a) {
      if (this.read() === 0x2a) this.push('super', '**');
      else {
        this.unread();
        this.push('any', r);
      }
    } else {
      this.unread();
      this.fetchText(this.termsLevel > 0 ? TERMS_BREAKERS : TEXT_BREAKERS);
    }
  }

  private fetchRange(): void {
    let wantHi = false;
    let wantClose = false;
    let seenNot = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) {
        this.err = 'unexpected end of input';
        return;
      }
      if (wantClose) {
        if (r !== 0x5d) this.err = 'expected close range character';
        else this.push('rclose', r);
        return;
      }
      if (wantHi) {
        this.push('hi', r);
        wantClose = true;
        continue;
      }
      if (!seenNot && r === 0x21) {
        this.push('not', r);
        seenNot = true;
        continue;
      }
      const [n, w] = this.peek();
      if (n === 0x2d) {
        this.pos += w;
        this.push('lo', r);
        this.push('between', n);
        wantHi = true;
        continue;
      }
      this.unread();
      this.fetchText([0x5d]);
      wantClose = true;
    }
  }

  private fetchText(breakers: number[]): void {
    const data: number[] = [];
    let escaped = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) break;
      if (!escaped) {
        if (r === 0x5c) {
          escaped = true;
          continue;
        }
        if (breakers.includes(r)) {
          this.unread();
          break;
        }
      }
      escaped = false;
      data.push(r);
    }
    if (data.length) this.push('text', String.fromCodePoint(...data));
  }
}

type GlobNode =
  | { kind: 'pattern' | 'anyof'; children: GlobNode[]; parent: GlobNode | undefined }
  | { kind: 'text'; text: string }
  | { kind: 'any' | 'super' | 'single' }
  | { kind: 'list'; chars: string; not: boolean }
  | { kind: 'range'; lo: number; hi: number; not: boolean };
type Container = Extract<GlobNode, { children: GlobNode[] }>;

/** gobwas/glob's parser (syntax/ast): the pattern tree, or its error message. */
function parseGlob(pattern: string): Container {
  const lex = new Lexer(pattern);
  const root: Container = { kind: 'pattern', children: [], parent: undefined };
  let tree = root;
  for (;;) {
    const tok = lex.next();
    switch (tok.kind) {
      case 'eof':
        return root;
      case 'error':
        throw new Error(tok.raw);
      case 'text':
        tree.children.push({ kind: 'text', text: tok.raw });
        break;
      case 'any':
      case 'super':
      case 'single':
        tree.children.push({ kind: tok.kind });
        break;
      case 'topen': {
        const anyOf: Container = { kind: 'anyof', children: [], parent: tree };
        tree.children.push(anyOf);
        const p: Container = { kind: 'pattern', children: [], parent: anyOf };
        anyOf.children.push(p);
        tree = p;
        break;
      }
      case 'sep': {
        const anyOf = tree.parent!;
        const p: Container = { kind: 'pattern', children: [], parent: anyOf };
        (anyOf as Container).children.push(p);
        tree = p;
        break;
      }
      case 'tclose':
        tree = (tree.parent as Container).parent as Container;
        break;
      case 'ropen':
        tree.children.push(parseRange(lex));
        break;
      default:
        throw new Error(`unexpected token: ${tok.kind}<${JSON.stringify(tok.raw)}>`);
    }
  }
}

function parseRange(lex: Lexer): GlobNode {
  let not = false;
  let lo = 0;
  let hi = 0;
  let chars = '';
  for (;;) {
    const tok = lex.next();
    switch (tok.kind) {
      case 'eof':
        throw new Error('unexpected end');
      case 'error':
        throw new Error(tok.raw);
      case 'not':
        not = true;
        break;
      case 'lo':
        lo = tok.raw.codePointAt(0)!;
        break;
      case 'between':
        break;
      case 'hi':
        hi = tok.raw.codePointAt(0)!;
        if (hi < lo) throw new Error(`hi character '${tok.raw}' should be greater than lo '${String.fromCodePoint(lo)}'`);
        break;
      case 'text':
        chars = tok.raw;
        break;
      case 'rclose': {
        const isRange = lo !== 0 && hi !== 0;
        if ((chars !== '') === isRange) throw new Error('could not parse range');
        return isRange ? { kind: 'range', lo, hi, not } : { kind: 'list', chars, not };
      }
      default:
    }
  }
}

const cpEscape = (cp: number): string => `\\u{${cp.toString(16)}}`;

/** The tree as an anchored JS regular expression. */
function translate(pattern: string, delims: string[]): string {
  const notDelim = delims.length ? `[^${delims.map(escapeRe).join('')}]` : '[^]';
  const emit = (n: GlobNode): string => {
    switch (n.kind) {
      case 'pattern':
        return n.children.map(emit).join('');
      case 'anyof':
        return `(?:${n.children.map(emit).join('|')})`;
      case 'text':
        return escapeRe(n.text);
      case 'any':
        return notDelim + '*';
      case 'super':
        return '[^]*';
      case 'single':
        return notDelim;
      case 'list':
        return `[${n.not ? '^' : ''}${Array.from(n.chars, (ch) => cpEscape(ch.codePointAt(0)!)).join('')}]`;
      case 'range':
        return `[${n.not ? '^' : ''}${cpEscape(n.lo)}-${cpEscape(n.hi)}]`;
    }
  };
  return '^' + emit(parseGlob(pattern)) + '$';
}

function compileGlob(pattern: string, delims: string[]): RegExp {
  return cache.get(JSON.stringify([pattern, delims]), () => {
    try {
      return new RegExp(translate(pattern, delims), 'u');
    } catch (e) {
      return new Error((e as Error).message);
    }
  });
}

function delimiters(v: Value): string[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw typeError(`operand 2 must be one of {array, null} but got ${typeName(v)}`);
  const out: string[] = [];
  for (const d of v) {
    if (typeof d !== 'string') throw typeError(`operand 2 must be array of strings but got array containing ${typeName(d)}`);
    // Each delimiter is one rune (OPA's RuneSliceOperand).
    if (Array.from(d).length !== 1) throw typeError('operand 2 must be array of runes but got array containing string');
    out.push(d);
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
