// The Rego lexer, built with Chevrotain once at module load. Keywords are lexed as
// identifiers: which words are reserved depends on the Rego version and on
// `future.keywords` / `rego.v1` imports seen while parsing, so the parser decides.
// The lexer never fails: characters it cannot match become Illegal tokens and the
// parser reports them where OPA would.

import { createToken, Lexer, type IToken, type TokenType } from 'chevrotain';
import { scanTemplate, templateStartsAt } from './template-scan.js';

/** Token kinds as small integers, for fast switches in the parser. */
export enum K {
  EOF = 0,
  Ident,
  Number,
  String,
  RawString,
  BadString,
  BadRawString,
  Assign, // :=
  Colon,
  Equal, // ==
  Unify, // =
  Neq,
  Lte,
  Gte,
  Lt,
  Gt,
  Add,
  Sub,
  Mul,
  Quo,
  Rem,
  And,
  Or,
  Dot,
  Comma,
  Semicolon,
  LParen,
  RParen,
  LBrack,
  RBrack,
  LBrace,
  RBrace,
  Illegal,
  /** A whole template string, `$"..."` or `` $`...` ``, embedded expressions included. */
  TemplateString,
}

/** Our kind for each Chevrotain tokenTypeIdx (an array lookup per token, not a Map). */
const kindByIdx: K[] = [];
const pending: [TokenType, K][] = [];
function tok(name: string, pattern: RegExp | string, kind: K, extra: Record<string, unknown> = {}): TokenType {
  const t = createToken({ name, pattern, ...extra });
  pending.push([t, kind]);
  return t;
}

const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n\f\v]+/, group: Lexer.SKIPPED, line_breaks: true });
const Comment = createToken({ name: 'Comment', pattern: /#[^\r\n]*/, group: 'comments' });

// Embedded expressions nest (braces, strings, other templates), which a regular
// expression cannot follow: a scanner finds the end. An unterminated template still
// makes one token, so that the parser reports it.
const templatePattern = {
  exec(text: string, offset: number): RegExpExecArray | null {
    if (!templateStartsAt(text, offset)) return null;
    const m = [text.slice(offset, scanTemplate(text, offset).end)] as unknown as RegExpExecArray;
    return m;
  },
};

const allTokens: TokenType[] = [
  WhiteSpace,
  Comment,
  tok('TemplateString', templatePattern as unknown as RegExp, K.TemplateString, { line_breaks: true, start_chars_hint: ['$'] }),
  tok('String', /"(?:[^"\\\r\n]|\\[^\r\n])*"/, K.String),
  tok('BadString', /"(?:[^"\\\r\n]|\\[^\r\n])*\\?/, K.BadString),
  tok('RawString', /`[^`]*`/, K.RawString, { line_breaks: true }),
  tok('BadRawString', /`[^`]*/, K.BadRawString, { line_breaks: true }),
  tok('Number', /[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/, K.Number),
  tok('Ident', /[A-Za-z_][A-Za-z0-9_]*/, K.Ident),
  tok('Assign', ':=', K.Assign),
  tok('Colon', ':', K.Colon),
  tok('Equal', '==', K.Equal),
  tok('Unify', '=', K.Unify),
  tok('Neq', '!=', K.Neq),
  tok('Lte', '<=', K.Lte),
  tok('Gte', '>=', K.Gte),
  tok('Lt', '<', K.Lt),
  tok('Gt', '>', K.Gt),
  tok('Add', '+', K.Add),
  tok('Sub', '-', K.Sub),
  tok('Mul', '*', K.Mul),
  tok('Quo', '/', K.Quo),
  tok('Rem', '%', K.Rem),
  tok('And', '&', K.And),
  tok('Or', '|', K.Or),
  tok('Dot', '.', K.Dot),
  tok('Comma', ',', K.Comma),
  tok('Semicolon', ';', K.Semicolon),
  tok('LParen', '(', K.LParen),
  tok('RParen', ')', K.RParen),
  tok('LBrack', '[', K.LBrack),
  tok('RBrack', ']', K.RBrack),
  tok('LBrace', '{', K.LBrace),
  tok('RBrace', '}', K.RBrace),
];
// Characters no token matches are reported by Chevrotain as lexing errors (keeping its
// first-character optimisation, which a catch-all token would defeat); tokenize()
// turns each of them into an Illegal token.

for (const [t, k] of pending) kindByIdx[t.tokenTypeIdx!] = k;

/** Keyword class of an identifier: 1 always reserved, 2 reserved in v1 or after future imports. */
const KEYWORD_CLASS = new Map<string, number>([
  ...['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false'].map((w) => [w, 1] as [string, number]),
  ...['contains', 'every', 'if', 'in'].map((w) => [w, 2] as [string, number]),
]);

const lexer = new Lexer(allTokens, {
  positionTracking: 'full',
  ensureOptimizations: true,
  recoveryEnabled: true,
});

/** Tokens in flat typed arrays; index n (one past the last) is EOF. */
export interface TokenStream {
  n: number;
  kind: Uint8Array;
  image: string[];
  start: Int32Array; // offset of first char
  end: Int32Array; // offset one past the last char
  row: Int32Array;
  col: Int32Array;
  /** Whitespace or a comment sits between this token and the previous one. */
  ws: Uint8Array;
  /** A line break sits between this token and the previous one. */
  nl: Uint8Array;
  /** For identifiers: 0 plain, 1 reserved keyword, 2 future keyword. */
  kw: Uint8Array;
  comments: IToken[];
}

interface RawTok {
  kind: K;
  image: string;
  startOffset: number;
  endOffset: number;
  startLine: number;
  startColumn: number;
  endLine: number;
}

export function tokenize(text: string): TokenStream {
  const res = lexer.tokenize(text);
  let toks: (IToken | RawTok)[] = res.tokens;
  if (res.errors.length > 0) {
    // Each error covers a run of unmatched characters: make one Illegal token per run.
    const illegal: RawTok[] = res.errors.map((e) => {
      const image = text.substr(e.offset, Math.max(1, e.length));
      let nls = 0;
      for (let i = 0; i < image.length; i++) if (image.charCodeAt(i) === 10) nls++;
      return {
        kind: K.Illegal,
        image,
        startOffset: e.offset,
        endOffset: e.offset + image.length - 1,
        startLine: e.line ?? 1,
        startColumn: e.column ?? 1,
        endLine: (e.line ?? 1) + nls,
      };
    });
    toks = [...toks, ...illegal].sort((a, b) => a.startOffset - b.startOffset);
  }
  const n = toks.length;
  const kind = new Uint8Array(n + 1);
  const image: string[] = new Array(n + 1);
  const start = new Int32Array(n + 1);
  const end = new Int32Array(n + 1);
  const row = new Int32Array(n + 1);
  const col = new Int32Array(n + 1);
  const ws = new Uint8Array(n + 1);
  const nl = new Uint8Array(n + 1);
  const kw = new Uint8Array(n + 1);
  let prevEnd = 0;
  let prevLine = 1;
  for (let i = 0; i < n; i++) {
    const t = toks[i]! as IToken & Partial<RawTok>;
    const k = t.tokenType ? (kindByIdx[t.tokenType.tokenTypeIdx!] ?? K.Illegal) : K.Illegal;
    kind[i] = k;
    image[i] = t.image;
    if (k === K.Ident) kw[i] = KEYWORD_CLASS.get(t.image) ?? 0;
    start[i] = t.startOffset;
    end[i] = t.endOffset! + 1;
    row[i] = t.startLine!;
    col[i] = t.startColumn!;
    ws[i] = t.startOffset > prevEnd ? 1 : 0;
    nl[i] = t.startLine! > prevLine ? 1 : 0;
    prevEnd = end[i]!;
    prevLine = t.endLine!;
  }
  // EOF sits after the trailing whitespace, on the last line.
  kind[n] = K.EOF;
  image[n] = '';
  start[n] = text.length;
  end[n] = text.length;
  let lines = 0;
  let lastNl = -1;
  for (let i = prevEnd; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      lines++;
      lastNl = i - prevEnd;
    }
  }
  const tail = { length: text.length - prevEnd };
  row[n] = prevLine + lines;
  col[n] = lastNl >= 0 ? tail.length - lastNl : (n > 0 ? col[n - 1]! + (end[n - 1]! - start[n - 1]!) : 1) + (lastNl >= 0 ? 0 : tail.length);
  ws[n] = text.length > prevEnd ? 1 : 0;
  nl[n] = lines > 0 ? 1 : 0;
  const comments = (res.groups['comments'] as IToken[] | undefined) ?? [];
  return { n, kind, image, start, end, row, col, ws, nl, kw, comments };
}
