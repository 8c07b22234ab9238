// Writing terms: scalars as written in the source (raw strings stay raw, numbers keep
// their digits), refs, calls with their infix operators, collections that keep the
// source's line breaks (one group of elements per source row, trailing commas when
// split), and comprehensions.

import type { Body, Location, Term } from '../ast.js';
import { decodeString } from '../strings.js';
import { writeBody, writeExpr } from './body.js';
import { closingRow, endRow } from './source.js';
import { writeTemplate } from './template.js';
import { CommentClash, commentRow, type Writer } from './writer.js';
import { IDENTIFIER } from '../ref-text.js';
import { missingKind } from '../visit.js';

/** Infix operators by builtin name, with binding strength (higher binds tighter). */
export const INFIX: Record<string, { op: string; prec: number }> = {
  eq: { op: '=', prec: -1 },
  assign: { op: ':=', prec: -1 },
  equal: { op: '==', prec: 1 },
  neq: { op: '!=', prec: 1 },
  lt: { op: '<', prec: 1 },
  gt: { op: '>', prec: 1 },
  lte: { op: '<=', prec: 1 },
  gte: { op: '>=', prec: 1 },
  or: { op: '|', prec: 2 },
  and: { op: '&', prec: 3 },
  plus: { op: '+', prec: 4 },
  minus: { op: '-', prec: 4 },
  mul: { op: '*', prec: 5 },
  div: { op: '/', prec: 5 },
  rem: { op: '%', prec: 5 },
};

const IDENT = IDENTIFIER;

/** The builtin name of a call operator written as a plain var (`plus`), else undefined. */
export function operatorName(op: Term | undefined): string | undefined {
  if (!op || op.type !== 'ref') return undefined;
  const v = op.value;
  if (v.length === 1 && v[0]!.type === 'var') return v[0]!.value;
  if (v.length === 2 && v[0]!.type === 'var' && v[0]!.value === 'internal' && v[1]!.type === 'string') {
    return `internal.${v[1]!.value}`;
  }
  return undefined;
}

/** minus(0, x) as the parser builds it from unary `-x` (its 0 is located at the `-` sign). */
export function isUnaryMinus(call: Term[]): boolean {
  const zero = call[1];
  return call.length === 3 && operatorName(call[0]) === 'minus' && zero?.type === 'number' && zero.value === '0' && zero.location?.text === '-';
}

/** Binding strength of a call written as an operator, or undefined for anything else. */
export function infixPrec(t: Term): number | undefined {
  if (t.type !== 'call' || isUnaryMinus(t.value)) return undefined;
  const name = operatorName(t.value[0]);
  if (name === 'internal.member_2' && t.value.length === 3) return 0;
  if (name === 'internal.member_3' && t.value.length === 4) return 0;
  const inf = name !== undefined ? INFIX[name] : undefined;
  return inf && inf.prec > 0 && t.value.length === 3 ? inf.prec : undefined;
}

export function varName(v: string): string {
  return v.startsWith('$') ? '_' : v;
}

/** A string literal: the source text when it still spells this value, else JSON quoting. */
export function stringLiteral(value: string, loc: Location | undefined): string {
  const text = loc?.text ?? '';
  if (text.length >= 2) {
    if (text[0] === '`' && text[text.length - 1] === '`' && text.slice(1, -1) === value) return text;
    if (text[0] === '"' && text[text.length - 1] === '"' && decodeString(text) === value) return text;
  }
  return JSON.stringify(value);
}

/** Writes a term; on a comment clash inside it, falls back to its source text. */
export function writeTerm(w: Writer, t: Term, parens = false): void {
  const m = w.mark();
  try {
    writeTermParens(w, t, parens);
  } catch (e) {
    if (!(e instanceof CommentClash) || !t.location?.text) throw e;
    w.reset(m);
    writeRaw(w, t.location);
  }
}

/** Writes a node's source text verbatim and drops the comments inside it. */
export function writeRaw(w: Writer, loc: Location): void {
  w.write(loc.text);
  const last = endRow(loc);
  w.comments = w.comments.filter((c) => commentRow(c) < loc.row || commentRow(c) >= last);
  w.dropPendingWithin(loc.row, last);
  // A comment after the node on its last line stays on that line.
  const after = w.comments.find((c) => commentRow(c) === last);
  if (after && !w.hasPending() && last > loc.row) w.insertComments(last);
}

export function writeTermParens(w: Writer, t: Term, parens: boolean): void {
  w.insertComments(t.location?.row ?? -1);
  if (!w.inline) w.startLine();
  switch (t.type) {
    case 'null':
      w.write('null');
      break;
    case 'boolean':
      w.write(t.value ? 'true' : 'false');
      break;
    case 'number':
      w.write(t.value);
      break;
    case 'string':
      w.write(stringLiteral(t.value, t.location));
      break;
    case 'var':
      w.write(varName(t.value));
      break;
    case 'ref':
      writeRef(w, t.value);
      break;
    case 'call':
      if (t.template) writeTemplate(w, t.template);
      else writeCall(w, parens, t.value, false);
      break;
    case 'array':
      w.write('[');
      writeIterable(w, t.value, t.location, closingRow(t.location, '[', ']'), (x, i) => writeElement(w, x, i));
      w.write(']');
      break;
    case 'set':
      if (t.value.length === 0) {
        w.write('set()');
        break;
      }
      w.write('{');
      writeIterable(w, t.value, t.location, closingRow(t.location, '{', '}'), (x, i) => writeElement(w, x, i));
      w.write('}');
      break;
    case 'object':
      w.write('{');
      writeIterable(w, t.value, t.location, closingRow(t.location, '{', '}'), (x, i) => {
        writeElement(w, x[0], i);
        w.write(': ');
        writeElement(w, x[1], 1);
      });
      w.write('}');
      break;
    case 'arraycomprehension':
      w.write('[');
      writeComprehension(w, '[', ']', t.value.term, t.value.term.location?.row ?? 0, t.value.body, t.location);
      w.write(']');
      break;
    case 'setcomprehension':
      w.write('{');
      writeComprehension(w, '{', '}', t.value.term, t.value.term.location?.row ?? 0, t.value.body, t.location);
      w.write('}');
      break;
    case 'objectcomprehension': {
      w.write('{');
      const key = t.value.key;
      const keyRow = key.location?.row ?? 0;
      if (t.location && keyRow - t.location.row > 1) {
        w.endLine();
        w.startLine();
      }
      // Only `a | b` needs parentheses as a key (it would start a set comprehension).
      writeElement(w, key, 0);
      w.write(': ');
      // The value stays on the key's line, whatever its own row.
      writeComprehension(w, '{', '}', t.value.value, keyRow, t.value.body, t.location);
      w.write('}');
      break;
    }
    default:
      missingKind(t, undefined);
  }
  if (!w.inline) w.startLine();
}

/**
 * A collection element. `a | b` needs parentheses where it would read as a
 * comprehension (first element) or where the source had them; `k, v in xs` always.
 */
function writeElement(w: Writer, t: Term, index: number): void {
  const paren =
    t.type === 'call' && operatorName(t.value[0]) === 'or' && t.value.length === 3 && (index === 0 || !!t.location?.text.startsWith('('));
  if (paren) w.write('(');
  writeTerm(w, t);
  if (paren) w.write(')');
}

export function writeRef(w: Writer, ref: Term[]): void {
  const head = ref[0];
  if (!head) return;
  if (head.type === 'var') w.write(varName(head.value));
  else writeTermParens(w, head, infixPrec(head) !== undefined);
  for (const p of ref.slice(1)) {
    if (p.type === 'string') {
      if (IDENT.test(p.value) && !w.flags.keywords.has(p.value)) w.write('.' + p.value);
      else w.write('[' + stringLiteral(p.value, p.location) + ']');
    } else if (p.type === 'var') w.write('[' + varName(p.value) + ']');
    else {
      w.write('[');
      writeTerm(w, p);
      w.write(']');
    }
  }
}

/**
 * A call: infix for operators with two operands (nested operator calls in
 * parentheses, as opa fmt writes them), `in` for membership, else `f(args)`.
 */
export function writeCall(w: Writer, parens: boolean, call: Term[], statement: boolean): void {
  const name = operatorName(call[0]);
  const args = call.slice(1);
  if (name === 'internal.member_2' && args.length === 2) return writeIn(w, parens, args);
  if (name === 'internal.member_3' && args.length === 3) return writeIn(w, parens || !statement, args);
  if (isUnaryMinus(call)) {
    w.write('-');
    writeTerm(w, args[1]!);
    return;
  }
  const inf = name !== undefined ? INFIX[name] : undefined;
  if (inf && inf.prec > 0 && args.length === 2) {
    if (parens) w.write('(');
    writeTermParens(w, args[0]!, true);
    w.write(` ${inf.op} `);
    writeTermParens(w, args[1]!, true);
    if (parens) w.write(')');
    return;
  }
  writePlainCall(w, call);
}

export function writePlainCall(w: Writer, call: Term[]): void {
  const op = call[0]!;
  if (op.type === 'ref') writeRef(w, op.value);
  else writeTerm(w, op);
  w.write('(');
  // The closing parenthesis is not located (as in opa fmt): comments before it move on.
  writeIterable(w, call.slice(1), op.location, -1, (x) => writeTerm(w, x));
  w.write(')');
}

export function writeIn(w: Writer, parens: boolean, operands: Term[]): void {
  if (parens) w.write('(');
  writeTermParens(w, operands[0]!, true);
  if (operands.length === 3) {
    w.write(', ');
    writeTermParens(w, operands[1]!, true);
  }
  w.write(' in ');
  writeTermParens(w, operands[operands.length - 1]!, true);
  if (parens) w.write(')');
}

function rowOf(x: unknown): number | undefined {
  if (Array.isArray(x)) return rowOf(x[0]);
  return (x as { location?: Location }).location?.row;
}

/**
 * Elements grouped by source row: one group keeps everything on one line; several
 * groups become one indented line each, with a trailing comma.
 */
export function writeIterable<T>(w: Writer, elements: T[], start: Location | undefined, closeRow: number, fn: (x: T, i: number) => void): void {
  const lines: { x: T; i: number }[][] = [];
  let last = start?.row ?? 0;
  elements.forEach((x, i) => {
    const row = rowOf(x) ?? last;
    if (i === 0 || row - last <= 0) {
      if (lines.length === 0) lines.push([]);
      lines[lines.length - 1]!.push({ x, i });
    } else lines.push([{ x, i }]);
    last = row;
  });
  if (lines.length === 0) return;
  const multi = lines.length > 1;
  if (multi) {
    w.delayBeforeEnd();
    w.startMultiline();
  }
  lines.forEach((line, li) => {
    line.forEach((e, j) => {
      if (j > 0) w.write(', ');
      fn(e.x, e.i);
    });
    if (li < lines.length - 1) {
      w.write(',');
      w.endLine();
      w.startLine();
    }
  });
  if (multi) {
    w.write(',');
    w.endLine();
    w.insertComments(closeRow);
    w.down();
    w.startLine();
  }
}

function writeComprehension(
  w: Writer,
  open: string,
  close: string,
  term: Term,
  termRow: number,
  body: Body,
  loc: Location | undefined,
): void {
  if (loc && termRow - loc.row >= 1) {
    w.endLine();
    w.startLine();
  }
  // The head of a comprehension is a single term: operator calls need their parentheses.
  writeTermParens(w, term, infixPrec(term) !== undefined);
  w.write(' |');
  writeComprehensionBody(w, body, termRow, closingRow(loc, open, close));
}

/** A body inside braces/brackets: `{ a; b }` on one line, or one expression per line. */
export function writeComprehensionBody(w: Writer, body: Body, termRow: number, closeRow: number): void {
  let rows = 0;
  let last = termRow;
  body.forEach((e, i) => {
    const r = e.location?.row ?? last;
    if (i === 0 || r > last) rows++;
    last = r;
  });
  const firstRow = body[0]?.location?.row ?? termRow;
  if (firstRow - termRow > 0 || rows > 1) {
    w.endLine();
    w.up();
    writeBody(w, body);
    w.insertComments(closeRow);
    w.down();
    w.startLine();
    return;
  }
  w.write(' ');
  body.forEach((e, i) => {
    if (i > 0) w.write('; ');
    writeExpr(w, e);
  });
}
