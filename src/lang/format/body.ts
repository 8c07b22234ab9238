// Writing bodies and expressions: one expression per line (single blank lines between
// them kept), `not`, `some`, `every`, `with` modifiers (kept on their own lines when
// the source had them there) and operator expressions.

import type { Body, Every, Expr, Location, SomeDecl, Term, With } from '../ast.js';
import { bodyCloseRow, endRow } from './source.js';
import { INFIX, infixPrec, isUnaryMinus, operatorName, writeCall, writeComprehensionBody, writeIn, writePlainCall, writeRaw, writeTerm } from './terms.js';
import { CommentClash, type Writer } from './writer.js';

export function writeBody(w: Writer, body: Body): void {
  w.insertComments(body[0]?.location?.row ?? -1);
  body.forEach((expr, i) => {
    if (i > 0) {
      const prev = body[i - 1]!.location;
      if (prev && expr.location && expr.location.row > endRow(prev) + 1) w.blankLine();
    }
    w.startLine();
    writeExpr(w, expr);
    w.endLine();
  });
}

/** Writes an expression; on a comment clash inside it, falls back to its source text. */
export function writeExpr(w: Writer, expr: Expr): void {
  const m = w.mark();
  try {
    writeExprInner(w, expr);
  } catch (e) {
    if (!(e instanceof CommentClash) || !expr.location?.text) throw e;
    w.reset(m);
    if (!w.inline) w.startLine();
    writeRaw(w, expr.location);
  }
}

function writeExprInner(w: Writer, expr: Expr): void {
  w.insertComments(expr.location?.row ?? -1);
  if (!w.inline) w.startLine();
  if (expr.negated) w.write('not ');
  const t = expr.terms;
  if (expr.notBlock) writeNotBlock(w, expr.notBlock, expr.location);
  else if (Array.isArray(t)) writeOperation(w, t);
  else if (t.type === 'somedecl') writeSome(w, t);
  else if (t.type === 'every') writeEvery(w, t, expr.location);
  else writeTerm(w, t);

  let indented = false;
  (expr.with ?? []).forEach((wi, i) => {
    // A `with` on the line of what precedes it stays there; others go on indented lines.
    const prevRow = i === 0 ? termsEndRow(expr) : endRow(expr.with![i - 1]!.location);
    if (wi.location?.row === prevRow) writeWith(w, wi, false);
    else {
      if (!indented) {
        indented = true;
        w.up();
      }
      w.endLine();
      w.startLine();
      writeWith(w, wi, true);
    }
  });
  if (indented) w.down();
}

/** Last source row of an expression before its `with` modifiers. */
function termsEndRow(expr: Expr): number | undefined {
  const t = expr.terms;
  if (Array.isArray(t)) return endRow(t[t.length - 1]?.location);
  if (t.type === 'somedecl' || t.type === 'every') return expr.location?.row;
  return endRow(t.location);
}

function writeWith(w: Writer, wi: With, indented: boolean): void {
  w.insertComments(wi.location?.row ?? -1);
  if (!indented) w.write(' ');
  w.write('with ');
  writeTerm(w, wi.target);
  w.write(' as ');
  writeTerm(w, wi.value);
}

/**
 * An expression that is a call: operators infix (`x := y`, `a + b == c`), membership
 * with `in`, anything else as `f(args)`. Operands get parentheses only where the
 * parser would otherwise group them differently.
 */
function writeOperation(w: Writer, terms: Term[]): void {
  const name = operatorName(terms[0]);
  const args = terms.slice(1);
  if ((name === 'internal.member_2' && args.length === 2) || (name === 'internal.member_3' && args.length === 3)) {
    writeIn(w, false, args);
    return;
  }
  if (isUnaryMinus(terms)) {
    writeCall(w, false, terms, true);
    return;
  }
  const inf = name !== undefined ? INFIX[name] : undefined;
  if (!inf || args.length !== 2) {
    writePlainCall(w, terms);
    return;
  }
  const [lhs, rhs] = args as [Term, Term];
  const lp = infixPrec(lhs);
  const rp = infixPrec(rhs);
  writeTerm(w, lhs, inf.prec >= 0 && lp !== undefined && lp < inf.prec);
  w.write(` ${inf.op} `);
  writeTerm(w, rhs, inf.prec >= 0 && rp !== undefined && rp <= inf.prec);
}

function writeSome(w: Writer, decl: SomeDecl): void {
  w.insertComments(decl.location?.row ?? -1);
  w.write('some ');
  let row = decl.location?.row ?? 0;
  decl.symbols.forEach((s, i) => {
    if (s.type === 'call') {
      writeCall(w, false, s.value, true);
      return;
    }
    const r = s.location?.row ?? row;
    if (r > row) {
      // A declaration continued on the next line stays there, indented once more.
      w.endLine();
      w.startLine();
      w.write('\t');
      row = r;
    } else if (i > 0) w.write(' ');
    writeTerm(w, s);
    if (i < decl.symbols.length - 1) w.write(',');
  });
}

function writeNotBlock(w: Writer, body: Body, exprLoc: Location | undefined): void {
  w.write('not {');
  const row = exprLoc?.row ?? 0;
  writeComprehensionBody(w, body, row, bodyCloseRow(exprLoc, body[0]?.location));
  if (body.length === 1 && body[0]!.location?.row === row) w.write(' ');
  w.write('}');
}

function writeEvery(w: Writer, every: Every, exprLoc: Location | undefined): void {
  w.insertComments(every.location?.row ?? -1);
  w.write('every ');
  if (every.key) {
    writeTerm(w, every.key);
    w.write(', ');
  }
  writeTerm(w, every.value);
  w.write(' in ');
  writeTerm(w, every.domain);
  w.write(' {');
  const row = every.location?.row ?? 0;
  writeComprehensionBody(w, every.body, row, bodyCloseRow(exprLoc, every.body[0]?.location));
  if (every.body.length === 1 && every.body[0]!.location?.row === row) w.write(' ');
  w.write('}');
}
