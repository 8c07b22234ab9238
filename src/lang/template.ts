// Parsing of template strings (`$"Hello {input.name}!"`, `` $`raw {x}` ``). The lexer
// hands over the whole template as one token; here it is split into literal text and
// expressions, each expression is parsed by the same parser over its own tokens, and
// the result is what OPA's compiler makes of a template string:
//
//   internal.template_string(["Hello ", {$t0 | $t0 = input.name}, "!"])
//
// The set comprehension yields no value (printed `<undefined>`) or one value; more than
// one is an error at evaluation. The written form stays on the call for `fmt` and the
// JSON AST.

import type { CallTerm, Expr, Location, SetComprehensionTerm, Term, TemplateString, With } from './ast.js';
import { K, tokenize, type TokenStream } from './lexer.js';
import type { Parser } from './parser.js';
import { decodeString } from './strings.js';
import { scanTemplate, type TemplateHole } from './template-scan.js';

/** Template variables get their own numbering, per parse, so that wildcard names stay as OPA's. */
const templateVars = new WeakMap<Parser, number>();

export function parseTemplateString(p: Parser): CallTerm {
  const at = p.pos;
  const tokenStart = p.ts.start[at]!;
  const loc = p.loc();
  const scan = scanTemplate(p.src, tokenStart);
  if (!scan.terminated) p.errorAt(at, 'non-terminated string');

  // Row and column of an offset inside the token.
  const where = (offset: number): { row: number; col: number } => {
    let row = p.ts.row[at]!;
    let col = p.ts.col[at]!;
    for (let i = tokenStart; i < offset; i++) {
      if (p.src.charCodeAt(i) === 10) {
        row++;
        col = 1;
      } else col++;
    }
    return { row, col };
  };
  const locAt = (start: number, end: number): Location => ({ file: p.file, ...where(start), text: p.src.slice(start, end) });

  const parts: (Term | Expr)[] = [];
  const args: Term[] = [];
  for (const part of scan.parts) {
    if (part.kind === 'text') {
      const value = scan.raw ? part.json : decodeString('"' + part.json + '"');
      if (value === undefined) p.errorLoc(locAt(part.start, part.end), 'illegal escape sequence');
      const t: Term = { type: 'string', value, location: locAt(part.start, part.end) };
      parts.push(t);
      args.push(t);
      continue;
    }
    const { term, expr, withs, comments } = parseHole(p, part, locAt(part.start, part.end), where(part.start));
    if (!comments && !withs && (term.type === 'string' || term.type === 'number' || term.type === 'boolean' || term.type === 'null')) {
      // A constant needs no evaluation: OPA keeps it as a plain part.
      parts.push(term);
      args.push(term);
      continue;
    }
    parts.push(expr);
    args.push(comprehension(p, term, expr.location!, withs));
  }
  const template: TemplateString = { multiLine: scan.raw, parts };
  const array: Term = { type: 'array', value: args, location: loc };
  return { type: 'call', value: [p.opRef(['internal', 'template_string'], loc), array], location: loc, template };
}

/** `{$tN | $tN = term [with ...]}`: the values of one embedded expression. */
function comprehension(p: Parser, term: Term, loc: Location, withs: With[] | undefined): SetComprehensionTerm {
  const n = templateVars.get(p) ?? 0;
  templateVars.set(p, n + 1);
  const name = `$t${n}`;
  const v = (): Term => ({ type: 'var', value: name, location: loc });
  const eq: Expr = { index: 0, terms: [p.opRef(['eq'], loc), v(), term], location: loc };
  if (withs) eq.with = withs;
  return { type: 'setcomprehension', value: { term: v(), body: [eq] }, location: loc };
}

/** Parses the expression between one pair of braces. */
function parseHole(
  p: Parser,
  hole: TemplateHole,
  loc: Location,
  start: { row: number; col: number },
): { term: Term; expr: Expr; withs: With[] | undefined; comments: boolean } {
  const ts = tokenize(p.src.slice(hole.start, hole.end));
  shift(ts, hole.start, start.row, start.col);
  return p.withTokens(ts, () => {
    if (p.tk() === K.EOF) p.errorLoc(loc, 'invalid template-string expression');
    for (const kw of ['not', 'some', 'every']) {
      if (p.isKw(kw) && !p.keywordAsRef()) {
        const what = kw === 'not' ? "negation ('not')" : `'${kw}'`;
        p.errorAt(0, `unexpected ${what} in template-string expression`);
      }
    }
    const term = p.parseTermInfix();
    if (p.tk() === K.Unify) p.errorAt(0, "unexpected unification ('=') in template-string expression");
    if (p.tk() === K.Assign) p.errorAt(0, "unexpected assignment (':=') in template-string expression");
    // `with` modifiers apply to this interpolation only, as in OPA.
    const withs = p.isKw('with') ? (p as Parser & { parseWith(): With[] }).parseWith() : undefined;
    if (p.tk() !== K.EOF) p.errorAt(p.pos, 'expected } to end template string expression');
    // As OPA's parseLiteral: a call written as an operator is the expression itself.
    const terms = term.type === 'call' && !term.template ? term.value : term;
    const expr: Expr = { index: 0, terms, location: withs ? loc : (term.location ?? loc) };
    if (withs) expr.with = withs;
    return { term, expr, withs, comments: ts.comments.length > 0 };
  });
}

/** Moves a token stream of a substring to where the substring sits in the source. */
function shift(ts: TokenStream, offset: number, row: number, col: number): void {
  for (let i = 0; i <= ts.n; i++) {
    if (ts.row[i] === 1) ts.col[i] = ts.col[i]! + col - 1;
    ts.row[i] = ts.row[i]! + row - 1;
    ts.start[i] = ts.start[i]! + offset;
    ts.end[i] = ts.end[i]! + offset;
  }
}
