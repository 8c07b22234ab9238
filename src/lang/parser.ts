// Recursive-descent parser for Rego terms, expressions and bodies over the Chevrotain
// token stream. It follows OPA's parser (v1/ast/parser.go) decision by decision so that
// the trees and the error messages match: operator precedence, whitespace-sensitive
// refs and calls, newline-separated bodies, comprehension-vs-set ambiguity, wildcard
// numbering. The token cursor (positions, keywords, locations, errors) is in cursor.ts,
// bodies and expressions in body.ts, statements in statements.ts.
//
// Errors abort with a ParseAbort exception; the few places where OPA backtracks save
// and restore the position (and the wildcard counter). A memo of parsed terms keyed by
// token index keeps those retries linear, and nesting depth is capped.

import type { Body, CallTerm, Location, RefTerm, StringTerm, Term, VarTerm } from './ast.js';
import { K, type TokenStream } from './lexer.js';
import { decodeString } from './strings.js';
import { parseTemplateString } from './template.js';
import { ParseAbort, TokenCursor, TOKEN_NAMES, type SavedState } from './cursor.js';
import { missingKind } from './visit.js';

export const OP_NAMES: Partial<Record<K, string>> = {
  [K.Equal]: 'equal',
  [K.Neq]: 'neq',
  [K.Lt]: 'lt',
  [K.Gt]: 'gt',
  [K.Lte]: 'lte',
  [K.Gte]: 'gte',
  [K.Or]: 'or',
  [K.And]: 'and',
  [K.Add]: 'plus',
  [K.Sub]: 'minus',
  [K.Mul]: 'mul',
  [K.Quo]: 'div',
  [K.Rem]: 'rem',
  [K.Assign]: 'assign',
  [K.Unify]: 'eq',
};

/** Binding strength of infix operators (all left-associative); `in` is handled apart. */
const PREC: Partial<Record<K, number>> = {
  [K.Equal]: 1,
  [K.Neq]: 1,
  [K.Lt]: 1,
  [K.Gt]: 1,
  [K.Lte]: 1,
  [K.Gte]: 1,
  [K.Or]: 2,
  [K.And]: 3,
  [K.Add]: 4,
  [K.Sub]: 4,
  [K.Mul]: 5,
  [K.Quo]: 5,
  [K.Rem]: 5,
};

interface Memo {
  startWildcard: number;
  term: Term;
  end: number;
  wildcard: number;
}

export abstract class Parser extends TokenCursor {
  private memo = new Map<number, Memo>();

  /** Runs `fn` over another token stream (an expression inside a template string), then resumes. */
  withTokens<T>(ts: TokenStream, fn: () => T): T {
    const outer = { ts: this.ts, pos: this.pos, memo: this.memo };
    this.ts = ts;
    this.pos = 0;
    this.memo = new Map();
    try {
      return fn();
    } finally {
      this.ts = outer.ts;
      this.pos = outer.pos;
      this.memo = outer.memo;
    }
  }

  // ---- terms -------------------------------------------------------------------

  parseVar(): VarTerm {
    const img = this.img;
    const t: VarTerm = { type: 'var', value: img === '_' ? this.genWildcard() : img, location: this.loc() };
    return t;
  }

  /** parseTermInfixCall: `in` and all binary operators (keyVal allows `k, v in xs`). */
  parseTermInfix(keyVal = true): Term {
    {
      const from = this.pos;
      let lhs = this.parseBinary(1);
      for (;;) {
        if (keyVal && this.tk() === K.Comma && this.future.has('in')) {
          const s = this.save();
          let done = false;
          try {
            this.next();
            const mhs = this.parseBinary(1);
            if (this.isKw('in')) {
              const opLoc = this.loc();
              this.next();
              const rhs = this.parseBinary(1);
              lhs = this.mkCall(this.opRef(['internal', 'member_3'], opLoc), [lhs, mhs, rhs], from);
              done = true;
            }
          } catch (e) {
            if (!(e instanceof ParseAbort)) throw e;
          }
          if (!done) this.restore(s);
          else if (this.isKw('in')) continue;
          else return lhs;
        }
        if (this.isKw('in')) {
          const opLoc = this.loc();
          this.next();
          const rhs = this.parseBinary(1);
          lhs = this.mkCall(this.opRef(['internal', 'member_2'], opLoc), [lhs, rhs], from);
          continue;
        }
        return lhs;
      }
    }
  }

  /** Precedence climbing over the left-associative binary operators. */
  parseBinary(minPrec: number): Term {
    const from = this.pos;
    let lhs = this.parseTerm();
    for (;;) {
      const prec = PREC[this.tk()];
      if (prec === undefined || prec < minPrec) return lhs;
      const op = this.opRef([OP_NAMES[this.tk()]!], this.loc());
      this.next();
      const rhs = prec === 5 ? this.parseTerm() : this.parseBinary(prec + 1);
      lhs = this.mkCall(op, [lhs, rhs], from);
    }
  }

  opRef(names: string[], loc: Location): RefTerm {
    const value: Term[] = names.map((n, i) =>
      i === 0 ? { type: 'var', value: n, location: loc } : { type: 'string', value: n, location: loc },
    );
    return { type: 'ref', value, location: loc };
  }

  mkCall(op: Term, args: Term[], from: number): CallTerm {
    const first = args[0]?.location ?? this.loc(from);
    return { type: 'call', value: [op, ...args], location: this.spanFrom(first, this.ts.start[from]!) };
  }

  /** A single term: scalar, var, composite or parenthesised expression, then any ref/call suffix. */
  parseTerm(): Term {
    const from = this.pos;
    const m = this.memo.get(from);
    if (m && m.startWildcard === this.wildcard) {
      this.pos = m.end;
      this.wildcard = m.wildcard;
      return m.term;
    }
    const startWildcard = this.wildcard;
    const term = this.parseTermInner();
    if (this.pos - from > 2) this.memo.set(from, { startWildcard, term, end: this.pos, wildcard: this.wildcard });
    return term;
  }

  private parseTermInner(): Term {
    const from = this.pos;
    let term: Term;
    switch (this.tk()) {
      case K.Ident: {
        const img = this.img;
        if (this.isKeywordAt()) {
          if (img === 'null' || img === 'true' || img === 'false') {
            term = img === 'null' ? { type: 'null', location: this.loc() } : { type: 'boolean', value: img === 'true', location: this.loc() };
            this.next();
            return term;
          }
          // `contains` is only special in rule heads; other keywords may start a ref.
          if (img !== 'contains' && !this.keywordAsRef()) this.illegal();
        }
        term = this.parseVar();
        this.next();
        break;
      }
      case K.Sub: {
        // `-` before a var, ref or call is unary minus; before anything else, a number
        const at = this.pos + 1;
        if (this.ts.kind[at] === K.Ident && (this.isIdent(at) || this.ts.image[at] === 'contains')) return this.parseUnaryMinus();
        return this.parseNumber();
      }
      case K.Dot:
      case K.Number:
        return this.parseNumber();
      case K.String:
      case K.RawString:
        term = this.parseString();
        this.next();
        break;
      case K.TemplateString:
        // Not a ref head or call operator, as in OPA.
        term = parseTemplateString(this);
        this.next();
        return term;
      case K.LBrack:
        term = this.parseArray();
        break;
      case K.LBrace:
        term = this.parseSetOrObject();
        break;
      case K.LParen: {
        const open = this.pos;
        this.next();
        this.enter();
        const inner = this.parseTermInfix();
        this.leave();
        if (this.tk() !== K.RParen) this.errorAt(this.pos, 'non-terminated expression');
        this.next();
        term = { ...inner, location: this.spanFrom(inner.location, this.ts.start[open]!) } as Term;
        break;
      }
      default:
        this.illegal();
    }
    return this.parseTermFinish(term, this.ts.start[from]!);
  }

  /** After a term: an adjacent `.`, `[` or `(` makes a ref or a call. */
  parseTermFinish(head: Term, startOffset: number, allowWs = false): Term {
    const k = this.tk();
    if ((k === K.Dot || k === K.LBrack || k === K.LParen) && (allowWs || this.adjacent(this.pos))) {
      return this.parseRef(head, startOffset);
    }
    if (head.type === 'var' && (head.value === 'data' || head.value === 'input')) {
      return { type: 'ref', value: [head], location: head.location };
    }
    return head;
  }

  parseRef(head: Term, startOffset: number): Term {
    this.enter();
    try {
      switch (head.type) {
        case 'var':
        case 'array':
        case 'object':
        case 'set':
        case 'arraycomprehension':
        case 'setcomprehension':
        case 'objectcomprehension':
        case 'call':
          break;
        case 'null':
        case 'boolean':
        case 'number':
        case 'string':
        case 'ref':
          this.errorLoc(head.location, `illegal ref (head cannot be ${valueName(head)})`);
        default:
          this.errorLoc(missingKind(head, head as Term).location, `illegal ref (head cannot be ${valueName(head as Term)})`);
      }
      const ref: Term[] = [head];
      for (;;) {
        switch (this.tk()) {
          case K.Dot: {
            this.next();
            if (this.tk() !== K.Ident || !this.adjacent(this.pos)) this.illegal('expected identifier');
            ref.push({ type: 'string', value: this.img, location: this.loc() } as StringTerm);
            this.next();
            if (!this.adjacent(this.pos)) return this.mkRef(ref, head, startOffset);
            break;
          }
          case K.LParen: {
            const op = this.mkRef(ref, head, startOffset);
            let call = this.parseCall(op, startOffset);
            if (this.adjacent(this.pos) && (this.tk() === K.Dot || this.tk() === K.LBrack)) call = this.parseRef(call, startOffset);
            return call;
          }
          case K.LBrack: {
            this.next();
            const t = this.parseTermInfix();
            if (this.tk() !== K.RBrack) this.illegal('expected [');
            ref.push(t);
            this.next();
            if (!this.adjacent(this.pos)) return this.mkRef(ref, head, startOffset);
            break;
          }
          default:
            return this.mkRef(ref, head, startOffset);
        }
      }
    } finally {
      this.leave();
    }
  }

  private mkRef(ref: Term[], head: Term, startOffset: number): RefTerm {
    return { type: 'ref', value: ref.slice(), location: this.spanFrom(head.location, startOffset) };
  }

  parseCall(op: RefTerm, startOffset: number): Term {
    this.enter();
    try {
      this.next(); // (
      if (this.tk() === K.RParen) {
        this.next();
        const loc = this.spanFrom(op.location, startOffset);
        if (op.value.length === 1 && op.value[0]!.type === 'var' && op.value[0]!.value === 'set') {
          return { type: 'set', value: [], location: loc };
        }
        return { type: 'call', value: [op], location: loc };
      }
      const args = this.parseTermList(K.RParen, [op]);
      return { type: 'call', value: args, location: this.spanFrom(op.location, startOffset) };
    } finally {
      this.leave();
    }
  }

  /** Comma-separated terms up to `end` (trailing comma allowed); consumes `end`. */
  parseTermList(end: K, acc: Term[]): Term[] {
    if (this.tk() === end) {
      this.next();
      return acc;
    }
    for (;;) {
      acc.push(this.parseTermInfix(false));
      if (this.tk() === end) {
        this.next();
        return acc;
      }
      if (this.tk() === K.Comma) {
        this.next();
        if (this.tk() === end) {
          this.next();
          return acc;
        }
        continue;
      }
      this.illegal(`expected "," or "${TOKEN_NAMES[end]}"`);
    }
  }

  /**
   * `-x`, `-input.n`, `-f(x)`: minus(0, operand), as OPA parses it. The 0 is located at the
   * `-` sign (its text is "-"), which is how the formatter knows to write it back as `-x`.
   */
  private parseUnaryMinus(): Term {
    const minusLoc = this.loc();
    const start = this.ts.start[this.pos]!;
    this.next();
    const operandStart = this.ts.start[this.pos]!;
    const v = this.parseVar();
    this.next();
    const operand = this.parseTermFinish(v, operandStart);
    const zero: Term = { type: 'number', value: '0', location: minusLoc };
    return { type: 'call', value: [this.opRef(['minus'], minusLoc), zero, operand], location: this.spanFrom(minusLoc, start) };
  }

  parseNumber(): Term {
    const from = this.pos;
    let prefix = '';
    if (this.tk() === K.Sub) {
      prefix = '-';
      this.next();
      if (this.tk() !== K.Number && this.tk() !== K.Dot) this.illegal('expected number');
    }
    if (this.tk() === K.Dot) {
      prefix += '.';
      this.next();
      if (this.tk() !== K.Number) this.illegal('expected number');
    }
    const lit = this.img;
    if (!prefix.endsWith('.') && lit.length > 1 && lit[0] === '0') {
      const isDecimal = lit[1] === '.';
      const isSci = lit.length > 2 && (lit[1] === 'e' || lit[1] === 'E');
      if (!isDecimal && !isSci) this.illegal('expected number without leading zero');
    }
    const text = prefix + lit;
    if (numberTooBig(text)) this.errorAt(this.pos, 'number too big');
    this.next();
    const term: Term = { type: 'number', value: text, location: this.span(from) };
    return this.parseTermFinish(term, this.ts.start[from]!);
  }

  parseString(): StringTerm {
    const img = this.img;
    if (this.tk() === K.RawString) return { type: 'string', value: img.slice(1, -1), location: this.loc() };
    const value = decodeString(img);
    if (value === undefined) this.errorAt(this.pos, `illegal string literal: ${img}`);
    return { type: 'string', value, location: this.loc() };
  }

  parseArray(): Term {
    this.enter();
    try {
      const open = this.pos;
      this.next();
      const done = (value: Term[]): Term => ({ type: 'array', value, location: this.span(open) });
      if (this.tk() === K.RBrack) {
        this.next();
        return done([]);
      }
      let potentialComprehension = true;
      if (this.tk() === K.Comma) {
        potentialComprehension = false;
        this.next();
      }
      const s = this.save();
      // A lone term first, so that `[x | ...]` is a comprehension rather than an `or` call.
      const head = this.parseTerm();
      switch (this.tk()) {
        case K.RBrack:
          this.next();
          return done([head]);
        case K.Comma:
          this.next();
          return done(this.parseTermList(K.RBrack, [head]));
        case K.Or:
          if (potentialComprehension) {
            const body = this.tryComprehensionBody(K.RBrack);
            if (body) return { type: 'arraycomprehension', value: { term: head, body }, location: this.span(open) };
          }
      }
      this.restore(s);
      return done(this.parseTermList(K.RBrack, []));
    } finally {
      this.leave();
    }
  }

  /** After `term |`: parse a body up to `end` and consume it; undefined when OPA would fall back to a list. */
  private tryComprehensionBody(end: K): Body | undefined {
    this.next(); // |
    try {
      const body = this.parseBody(end);
      this.next();
      return body;
    } catch (e) {
      if (e instanceof ParseAbort && this.tk() === K.Comma) return undefined;
      throw e;
    }
  }

  parseSetOrObject(): Term {
    this.enter();
    try {
      const open = this.pos;
      this.next();
      if (this.tk() === K.RBrace) {
        this.next();
        return { type: 'object', value: [], location: this.span(open) };
      }
      let potentialComprehension = true;
      if (this.tk() === K.Comma) {
        potentialComprehension = false;
        this.next();
      }
      const s = this.save();
      let head = this.parseTerm();
      switch (this.tk()) {
        case K.Or:
          if (potentialComprehension) return this.parseSet(open, s, head, true);
          break;
        case K.RBrace:
        case K.Comma:
          return this.parseSet(open, s, head, potentialComprehension);
        case K.Colon:
          return this.parseObject(open, head, potentialComprehension);
      }
      this.restore(s);
      head = this.parseTermInfix(false);
      switch (this.tk()) {
        case K.RBrace:
        case K.Comma:
          return this.parseSet(open, s, head, false);
        case K.Colon:
          return this.parseObject(open, head, potentialComprehension);
      }
      this.illegal('non-terminated set');
    } finally {
      this.leave();
    }
  }

  private parseSet(open: number, s: SavedState, head: Term, potentialComprehension: boolean): Term {
    const done = (value: Term[]): Term => ({ type: 'set', value, location: this.span(open) });
    switch (this.tk()) {
      case K.RBrace:
        this.next();
        return done([head]);
      case K.Comma:
        this.next();
        return done(this.parseTermList(K.RBrace, [head]));
      default: {
        // K.Or
        if (potentialComprehension) {
          const body = this.tryComprehensionBody(K.RBrace);
          if (body) return { type: 'setcomprehension', value: { term: head, body }, location: this.span(open) };
        }
        this.restore(s);
        return done(this.parseTermList(K.RBrace, []));
      }
    }
  }

  private parseObject(open: number, key: Term, potentialComprehension: boolean): Term {
    this.next(); // :
    const s = this.save();
    const v = this.parseTerm();
    let potentialRelation = true;
    if (potentialComprehension) {
      const k = this.tk();
      if (k === K.RBrace || k === K.Comma || k === K.Or) {
        if (k !== K.Or) potentialRelation = false;
        const t = this.parseObjectFinish(open, key, v, true);
        if (t) return t;
      }
    }
    this.restore(s);
    if (potentialRelation) {
      const v2 = this.parseTermInfix(false);
      if (this.tk() === K.RBrace || this.tk() === K.Comma) return this.parseObjectFinish(open, key, v2, false)!;
    }
    this.illegal('non-terminated object');
  }

  private parseObjectFinish(open: number, key: Term, val: Term, potentialComprehension: boolean): Term | undefined {
    switch (this.tk()) {
      case K.RBrace:
        this.next();
        return { type: 'object', value: [[key, val]], location: this.span(open) };
      case K.Or: {
        if (!potentialComprehension) this.illegal('non-terminated object');
        this.next();
        const body = this.parseBody(K.RBrace);
        this.next();
        return { type: 'objectcomprehension', value: { key, value: val, body }, location: this.span(open) };
      }
      case K.Comma: {
        this.next();
        const pairs: [Term, Term][] = [[key, val]];
        if (this.tk() === K.RBrace) {
          this.next();
          return { type: 'object', value: pairs, location: this.span(open) };
        }
        for (;;) {
          const k = this.parseTermInfix(false);
          if (this.tk() !== K.Colon) this.illegal('expected ":"');
          this.next();
          const v = this.parseTermInfix(false);
          pairs.push([k, v]);
          if (this.tk() === K.RBrace) break;
          if (this.tk() === K.Comma) {
            this.next();
            if (this.tk() === K.RBrace) break;
            continue;
          }
          this.illegal('expected "," or "}"');
        }
        this.next();
        return { type: 'object', value: pairs, location: this.span(open) };
      }
    }
    return undefined;
  }

  /** Expressions up to (not including) `end`; defined by BodyParser (body.ts). */
  abstract parseBody(end: K): Body;
}

/** `a.b.c` for a ref of a var followed by strings, else undefined. */
export function refName(t: Term): string | undefined {
  if (t.type === 'var') return t.value;
  if (t.type !== 'ref') return undefined;
  const parts: string[] = [];
  for (let i = 0; i < t.value.length; i++) {
    const e = t.value[i]!;
    if (i === 0 ? e.type !== 'var' : e.type !== 'string') return undefined;
    parts.push((e as { value: string }).value);
  }
  return parts.join('.');
}

/** OPA's ValueName for error messages. */
export function valueName(t: Term): string {
  switch (t.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'var':
      return 'var';
    case 'ref':
      return 'ref';
    case 'array':
      return 'array';
    case 'object':
      return 'object';
    case 'set':
      return 'set';
    case 'call':
      return t.template ? 'templatestring' : 'call';
    case 'arraycomprehension':
      return 'arraycomprehension';
    case 'setcomprehension':
      return 'setcomprehension';
    case 'objectcomprehension':
      return 'objectcomprehension';
  }
}

/** OPA rejects numbers whose binary exponent exceeds 1e5 (about 30103 decimal digits). */
function numberTooBig(text: string): boolean {
  const m = /^-?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return false;
  const exp = m[3] ? Number(m[3]) : 0;
  const intPart = (m[1] ?? '').replace(/^0+/, '');
  const frac = m[2] ?? '';
  let mag: number;
  if (intPart.length > 0) mag = intPart.length - 1 + exp;
  else {
    const lead = frac.length - frac.replace(/^0+/, '').length;
    if (lead === frac.length) return false; // zero
    mag = -(lead + 1) + exp;
  }
  return Math.abs(mag) > 30100 || !Number.isFinite(exp);
}
