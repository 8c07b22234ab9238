// The token cursor under the Rego parser: the position in the Chevrotain token stream,
// keyword tests for the current mode (v1, or v0 with future keywords), save/restore for
// OPA's few backtracking points, locations and spans, OPA's error messages, the nesting
// depth cap and wildcard numbering. parser.ts builds term parsing on top of it.

import type { Location } from './ast.js';
import { K, type TokenStream } from './lexer.js';

export const MAX_DEPTH = 1000;

export class ParseAbort {
  constructor(
    readonly message: string,
    readonly row: number,
    readonly col: number,
  ) {}
}

/** Keywords of Rego that are always reserved. */
const BASE_KEYWORDS = new Set(['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false']);
/** Keywords added by v1 or `import future.keywords` / `import rego.v1` in v0. */
export const FUTURE_KEYWORDS = ['contains', 'every', 'if', 'in'];
/**
 * What `import future.keywords.x` accepts, as OPA 1.20 lists it. `not` is a keyword anyway:
 * importing it selects OPA's newer negation semantics (the compiler reads the import).
 * `and` and `or` are accepted but change nothing: Regolith has no `and`/`or` syntax.
 */
export const IMPORTABLE_KEYWORDS = ['and', 'contains', 'every', 'if', 'in', 'not', 'or'];

/** How OPA names tokens in "unexpected X token" messages. */
export const TOKEN_NAMES: Record<K, string> = {
  [K.EOF]: 'eof',
  [K.Ident]: 'identifier',
  [K.Number]: 'number',
  [K.String]: 'string',
  [K.RawString]: 'string',
  [K.BadString]: 'string',
  [K.BadRawString]: 'string',
  [K.Assign]: 'assign',
  [K.Colon]: ':',
  [K.Equal]: 'equal',
  [K.Unify]: 'eq',
  [K.Neq]: 'neq',
  [K.Lte]: 'lte',
  [K.Gte]: 'gte',
  [K.Lt]: 'lt',
  [K.Gt]: 'gt',
  [K.Add]: 'plus',
  [K.Sub]: 'minus',
  [K.Mul]: 'mul',
  [K.Quo]: 'quo',
  [K.Rem]: 'rem',
  [K.And]: 'and',
  [K.Or]: 'or',
  [K.Dot]: '.',
  [K.Comma]: ',',
  [K.Semicolon]: ';',
  [K.LParen]: '(',
  [K.RParen]: ')',
  [K.LBrack]: '[',
  [K.RBrack]: ']',
  [K.LBrace]: '{',
  [K.RBrace]: '}',
  [K.Illegal]: 'illegal',
  [K.TemplateString]: 'template-string-end',
};

export interface SavedState {
  pos: number;
  wildcard: number;
}

export abstract class TokenCursor {
  pos = 0;
  wildcard = 0;
  depth = 0;
  /** Future keywords currently in effect (v1: all of them). */
  readonly future = new Set<string>();
  /** Whether `not { ... }` blocks parse (`import future.keywords.not` or `future.keywords`). */
  notBlocks = false;

  constructor(
    readonly src: string,
    readonly file: string,
    public ts: TokenStream,
  ) {}

  // ---- token helpers ---------------------------------------------------------

  /** Kind of the current token (a method, so that TypeScript does not narrow it). */
  tk(): K {
    return this.ts.kind[this.pos] as K;
  }
  get img(): string {
    return this.ts.image[this.pos]!;
  }
  /** Whether the current token is the keyword `kw` (reserved in the current mode). */
  isKw(kw: string, at = this.pos): boolean {
    const c = this.ts.kw[at];
    return c !== 0 && this.ts.image[at] === kw && (c === 1 || this.future.has(kw));
  }
  isKeyword(word: string): boolean {
    return BASE_KEYWORDS.has(word) || this.future.has(word);
  }
  /** A plain identifier (not a reserved keyword) at the current position. */
  isIdent(at = this.pos): boolean {
    if (this.ts.kind[at] !== K.Ident) return false;
    const c = this.ts.kw[at];
    return c === 0 || (c === 2 && !this.future.has(this.ts.image[at]!));
  }
  /** The identifier at `at` is reserved in the current mode. */
  isKeywordAt(at = this.pos): boolean {
    const c = this.ts.kw[at];
    return c === 1 || (c === 2 && this.future.has(this.ts.image[at]!));
  }
  /** The token at `at` directly follows the previous token (no whitespace). */
  adjacent(at: number): boolean {
    return this.ts.ws[at] === 0;
  }
  /** A keyword used as the first element of a ref, e.g. `not.x` or `if[0]`. */
  keywordAsRef(at = this.pos): boolean {
    const k = this.ts.kind[at + 1];
    return (k === K.Dot || k === K.LBrack) && this.adjacent(at + 1);
  }
  next(): void {
    if (this.pos < this.ts.n) this.pos++;
  }

  save(): SavedState {
    return { pos: this.pos, wildcard: this.wildcard };
  }
  restore(s: SavedState): void {
    this.pos = s.pos;
    this.wildcard = s.wildcard;
  }
  /** End offset of the last consumed token. */
  get lastEnd(): number {
    return this.pos > 0 ? this.ts.end[this.pos - 1]! : 0;
  }

  loc(at = this.pos): Location {
    return { file: this.file, row: this.ts.row[at]!, col: this.ts.col[at]!, text: this.ts.image[at]! };
  }
  /** Location starting at token `from` with the text up to the last consumed token. */
  span(from: number, endOffset = this.lastEnd): Location {
    const start = this.ts.start[from]!;
    return {
      file: this.file,
      row: this.ts.row[from]!,
      col: this.ts.col[from]!,
      text: this.src.slice(start, Math.max(start, endOffset)),
    };
  }
  spanFrom(loc: Location | undefined, startOffset: number, endOffset = this.lastEnd): Location {
    const l = loc ?? this.loc();
    return { file: l.file, row: l.row, col: l.col, text: this.src.slice(startOffset, Math.max(startOffset, endOffset)) };
  }

  // ---- errors ------------------------------------------------------------------

  errorAt(at: number, message: string): never {
    throw new ParseAbort(message, this.ts.row[at]!, this.ts.col[at]!);
  }
  errorLoc(loc: Location | undefined, message: string): never {
    if (!loc) this.errorAt(this.pos, message);
    throw new ParseAbort(message, loc.row, loc.col);
  }
  /** OPA's p.illegal: "unexpected <tok> <token|keyword>[: note]". */
  illegal(note = ''): never {
    const k = this.tk();
    if (k === K.Illegal) this.errorAt(this.pos, 'illegal token');
    if (k === K.BadString) this.errorAt(this.pos, 'non-terminated string');
    if (k === K.BadRawString) this.errorAt(this.pos, 'non-terminated raw string');
    let name = TOKEN_NAMES[k];
    let type = 'token';
    if (k === K.Ident && this.isKeyword(this.img)) {
      name = this.img;
      type = 'keyword';
    }
    this.errorAt(this.pos, note ? `unexpected ${name} ${type}: ${note}` : `unexpected ${name} ${type}`);
  }
  enter(): void {
    if (++this.depth > MAX_DEPTH) this.errorAt(this.pos, 'max parsing recursion depth reached');
  }
  leave(): void {
    this.depth--;
  }

  genWildcard(): string {
    return `$${this.wildcard++}`;
  }
}
