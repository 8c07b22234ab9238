// Bodies and expressions: newline/semicolon-separated literals, `not`, `some`,
// `every`, `with` modifiers and assignment/unification, as OPA's parser builds them.

import type { Body, Every, Expr, SomeDecl, Term, With } from './ast.js';
import { K } from './lexer.js';
import { OP_NAMES, Parser, refName } from './parser.js';
import { ParseAbort, TOKEN_NAMES } from './cursor.js';

export abstract class BodyParser extends Parser {
  // ---- bodies and expressions ----------------------------------------------------

  /** Expressions up to (not including) `end`. */
  parseBody(end: K): Body {
    this.enter();
    try {
      return this.parseQuery(false, end);
    } finally {
      this.leave();
    }
  }

  parseQuery(requireSemi: boolean, end: K): Body {
    const body: Body = [];
    if (this.tk() === end) this.errorAt(this.pos, 'found empty body');
    for (;;) {
      const expr = this.parseLiteral();
      expr.index = body.length;
      body.push(expr);
      if (this.tk() === K.Semicolon) {
        this.next();
        continue;
      }
      if (this.tk() === end || requireSemi) return body;
      if (!this.ts.nl[this.pos]) this.illegal(`expected \\n or ; or ${TOKEN_NAMES[end]}`);
    }
  }

  parseLiteral(): Expr {
    const from = this.pos;
    let negated = false;
    if (this.isKw('not') && !this.keywordAsRef()) {
      this.next();
      negated = true;
    }
    let expr: Expr;
    if (this.isKw('some') && !this.keywordAsRef()) {
      if (negated) this.illegal("illegal negation of 'some'");
      expr = this.parseSome();
    } else if (this.isKw('every') && !this.keywordAsRef()) {
      if (negated) this.illegal("illegal negation of 'every'");
      expr = this.parseEvery();
    } else if (negated && this.notBlocks && this.tk() === K.LBrace) {
      expr = this.parseNotBlock(from);
      if (this.isKw('with')) expr.with = this.parseWith();
    } else {
      expr = this.parseExpr();
      if (negated) expr.negated = true;
      if (this.isKw('with')) expr.with = this.parseWith();
    }
    expr.location = this.span(from);
    return expr;
  }

  /**
   * `not { body }`: read as `[true | body] == []`, the body kept on the expression for fmt
   * and the JSON AST. `from` is the `not` token.
   */
  parseNotBlock(from: number): Expr {
    const open = this.loc();
    this.next();
    const body = this.parseBody(K.RBrace);
    this.next();
    const loc = this.span(from);
    const comp: Term = { type: 'arraycomprehension', value: { term: { type: 'boolean', value: true, location: open }, body }, location: loc };
    const empty: Term = { type: 'array', value: [], location: loc };
    return { index: 0, terms: [this.opRef(['equal'], open), comp, empty], notBlock: body };
  }

  parseExpr(): Expr {
    const lhs = this.parseTermInfix();
    if (this.tk() === K.Assign || this.tk() === K.Unify) {
      const op = this.opRef([OP_NAMES[this.tk()]!], this.loc());
      this.next();
      const rhs = this.parseTermInfix();
      return { index: 0, terms: [op, lhs, rhs] };
    }
    // A template string stays a term (always true), as in OPA.
    if (lhs.type === 'call' && !lhs.template) return { index: 0, terms: lhs.value };
    return { index: 0, terms: lhs };
  }

  parseWith(): With[] {
    const withs: With[] = [];
    do {
      const from = this.pos;
      this.next();
      if (!this.isIdent() && !(this.tk() === K.Ident && this.keywordAsRef())) this.illegal('expected ident');
      const target = this.parseTerm();
      if (target.type !== 'ref' && target.type !== 'var') this.illegal('expected with target path');
      if (!this.isKw('as')) this.illegal('expected as keyword');
      this.next();
      const value = this.parseTermInfix();
      withs.push({ target, value, location: this.span(from) });
    } while (this.isKw('with'));
    return withs;
  }

  parseSome(): Expr {
    const someLoc = this.loc();
    const s = this.save();
    this.next();
    let term: Term | undefined;
    try {
      term = this.parseTermInfix();
    } catch (e) {
      if (!(e instanceof ParseAbort)) throw e;
    }
    if (term && term.type === 'call') {
      const name = refName(term.value[0]!);
      if (name === 'internal.member_2') {
        if (term.value.length !== 3) this.illegal('illegal domain');
      } else if (name === 'internal.member_3') {
        if (term.value.length !== 4) this.illegal('illegal domain');
      } else {
        this.illegal('expected `x in xs` or `x, y in xs` expression');
      }
      const decl: SomeDecl = { type: 'somedecl', symbols: [term], location: someLoc };
      const expr: Expr = { index: 0, terms: decl };
      if (this.isKw('with')) expr.with = this.parseWith();
      return expr;
    }
    this.restore(s);
    const symbols: Term[] = [];
    for (;;) {
      this.next();
      if (!this.isIdent()) this.illegal('expected var');
      symbols.push(this.parseVar());
      this.next();
      if (this.tk() !== K.Comma) break;
    }
    return { index: 0, terms: { type: 'somedecl', symbols, location: someLoc } };
  }

  parseEvery(): Expr {
    const everyLoc = this.loc();
    this.next();
    const term = this.parseTermInfix();
    if (term.type !== 'call') this.illegal('expected `x[, y] in xs { ... }` expression');
    const name = refName(term.value[0]!);
    let key: Term | null = null;
    let value: Term;
    let domain: Term;
    if (name === 'internal.member_2') {
      if (term.value.length !== 3) this.illegal('illegal domain');
      value = term.value[1]!;
      domain = term.value[2]!;
    } else if (name === 'internal.member_3') {
      if (term.value.length !== 4) this.illegal('illegal domain');
      key = term.value[1]!;
      value = term.value[2]!;
      domain = term.value[3]!;
      if (key.type !== 'var') this.illegal('expected key to be a variable');
    } else {
      this.illegal('expected `x[, y] in xs { ... }` expression');
    }
    if (value.type !== 'var') this.illegal('expected value to be a variable');
    if (this.tk() !== K.LBrace) this.illegal('missing body');
    this.next();
    const body = this.parseBody(K.RBrace);
    this.next();
    const every: Every = { type: 'every', key, value, domain, body, location: everyLoc };
    const expr: Expr = { index: 0, terms: every };
    if (this.isKw('with')) expr.with = this.parseWith();
    return expr;
  }
}
