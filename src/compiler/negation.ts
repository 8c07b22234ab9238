// What OPA's compiler moves out of a negated expression, so that `not` sees only the rest.
//
// OPA rewrites every body in two stages, after its safety check: RewriteExprTerms moves each
// call nested in an expression's operands into an expression of its own
// (`not f(g(x))` -> `g(x, __local0__); not f(__local0__)`), and RewriteDynamicTerms binds
// each ref used as an operand to a fresh var first (`not f(input.x)` ->
// `__local1__ = input.x; not f(__local1__)`). The moved expressions are not negated, so an
// undefined argument makes the whole body fail instead of the negation succeed (opa issue
// 1877). For an expression that is not negated the moves change nothing, so Regolith makes
// them for negated expressions only, at any depth (comprehension, `every` and `else` bodies).
//
// What moves, as OPA does it:
// - calls nested anywhere in the operands (inside refs, arrays, objects, sets), innermost
//   first; and a composite or comprehension used as a ref's subject (`{"a": 1}[k]`);
// - for a call expression (`f(a)`, `a != b`, `x in xs`, and in queries `a == b`): each
//   operand that is a ref, and each ref inside an operand's array, object or set, after
//   the dynamic keys of that ref (`input.x[input.k]` moves `input.k`, then the whole ref);
// - for a unification `a = b`, or a term alone (`not input.x`): only the dynamic keys of a
//   ref operand, and the refs inside an array, object or set operand. In modules OPA
//   rewrites `a == b` to `a = b` before this, so there it counts as a unification.
// Comprehensions stay in place (their bodies get the same treatment); they are always
// defined, so moving them would change nothing. `with` values are not touched: Regolith
// already evaluates them outside the negation, as OPA's RewriteWithValues makes it.
// Each moved expression carries the negated expression's `with` modifiers.
//
// `import future.keywords.not` (OPA 1.17) keeps these parts inside the negation: a module
// that imports it is not rewritten at all, which is Regolith's plain evaluation of `not`.

import type { Body, Expr, Module, Term, With } from '../lang/ast.js';
import { isClosure, isCollectionTerm, mapChildTerms } from '../lang/visit.js';
import type { LocalNamer } from './locals.js';
import { isEvery, isSome, refName } from './terms.js';

export interface NegationCtx {
  namer: LocalNamer;
  /** Operators that count as unification: `eq`, and in modules `equal` (OPA's RewriteEquals). */
  unify: ReadonlySet<string>;
}

export const MODULE_UNIFY: ReadonlySet<string> = new Set(['eq', 'equal']);
export const QUERY_UNIFY: ReadonlySet<string> = new Set(['eq']);

/** Whether a module asked for OPA's newer `not` (`import future.keywords.not` or `future.keywords`). */
export function futureNot(m: Module): boolean {
  return m.imports.some((imp) => {
    const p = imp.path.value;
    if (p[0]?.type !== 'var' || p[0].value !== 'future' || p[1]?.type !== 'string' || p[1].value !== 'keywords') return false;
    return p.length === 2 || (p.length === 3 && p[2]!.type === 'string' && p[2]!.value === 'not');
  });
}

/** The body with what OPA moves out of its negated expressions moved, at any depth. */
export function hoistNegatedBody(body: Body, ctx: NegationCtx): Body {
  const out: Body = [];
  for (const e0 of body) {
    const e = nestedBodies(e0, ctx);
    if (!e.negated || isSome(e.terms) || isEvery(e.terms)) {
      out.push(e);
      continue;
    }
    const moved: Expr[] = [];
    const gen = new Generator(e, ctx, moved);
    const hoisted = gen.expression(e);
    out.push(...moved, hoisted);
  }
  return out;
}

/** Applies the rewrite to the bodies of the comprehensions anywhere in `t`. */
export function hoistNegatedTerm(t: Term, ctx: NegationCtx): Term {
  return mapChildTerms(
    t,
    (x) => hoistNegatedTerm(x, ctx),
    undefined,
    (b) => hoistNegatedBody(b, ctx),
  );
}

function nestedBodies(e: Expr, ctx: NegationCtx): Expr {
  const t = e.terms;
  let terms: Expr['terms'];
  if (isEvery(t)) terms = { ...t, domain: hoistNegatedTerm(t.domain, ctx), body: hoistNegatedBody(t.body, ctx) };
  else if (isSome(t)) terms = { ...t, symbols: t.symbols.map((x) => hoistNegatedTerm(x, ctx)) };
  else if (Array.isArray(t)) terms = t.map((x, i) => (i === 0 ? x : hoistNegatedTerm(x, ctx)));
  else terms = hoistNegatedTerm(t as Term, ctx);
  const out: Expr = { ...e, terms };
  if (e.with) out.with = e.with.map((w: With) => ({ ...w, value: hoistNegatedTerm(w.value, ctx) }));
  return out;
}

class Generator {
  constructor(
    readonly e: Expr,
    readonly ctx: NegationCtx,
    readonly moved: Expr[],
  ) {}

  private fresh(at: Term): Term {
    return { type: 'var', value: this.ctx.namer.fresh('__local'), location: at.location };
  }

  private emit(terms: Term[], at: Term): void {
    const x: Expr = { index: 0, generated: true, terms, location: at.location ?? this.e.location };
    if (this.e.with) x.with = this.e.with;
    this.moved.push(x);
  }

  /** `out = t` before the negation; returns `out`. */
  private bind(t: Term): Term {
    const out = this.fresh(t);
    this.emit([{ type: 'ref', value: [{ type: 'var', value: 'eq' }], location: t.location }, out, t], t);
    return out;
  }

  expression(e: Expr): Expr {
    const t = e.terms;
    if (Array.isArray(t)) {
      // first the nested calls (OPA's RewriteExprTerms), then the refs (RewriteDynamicTerms)
      const args = t.slice(1).map((x) => this.calls(x));
      const op = refName(t[0]!);
      const unify = op !== undefined && this.ctx.unify.has(op) && args.length === 2;
      return { ...e, terms: [t[0]!, ...args.map((x) => (unify ? this.operand(x) : this.dynamic(x)))] };
    }
    return { ...e, terms: this.operand(this.calls(t as Term)) };
  }

  /** Moves the calls nested in `t` (not those inside comprehension bodies). */
  private calls(t: Term): Term {
    switch (t.type) {
      case 'call': {
        const args = t.value.slice(1).map((x) => this.calls(x));
        const out = this.fresh(t);
        this.emit([t.value[0]!, ...args, out], t);
        return out;
      }
      case 'ref': {
        const parts = t.value.map((x) => this.calls(x));
        const head = parts[0]!;
        if (isCollectionTerm(head) || isClosure(head)) parts[0] = this.bind(head);
        return { ...t, value: parts };
      }
      default:
        // a comprehension's body is rewritten on its own (hoistNegatedTerm)
        return mapChildTerms(t, (x) => this.calls(x));
    }
  }

  /** An operand of a unification, or a term alone: a ref keeps its place, its dynamic keys move. */
  private operand(t: Term): Term {
    if (t.type === 'ref') return this.keys(t);
    if (isClosure(t)) return t;
    return this.dynamic(t);
  }

  /** An operand of a call: refs move, also inside arrays, objects and sets. */
  private dynamic(t: Term): Term {
    switch (t.type) {
      case 'ref':
        return this.bind(this.keys(t));
      case 'call':
        return t;
      default:
        return mapChildTerms(t, (x) => this.dynamic(x));
    }
  }

  private keys(t: Term & { type: 'ref' }): Term {
    return { ...t, value: t.value.map((x, i) => (i === 0 ? x : this.dynamic(x))) };
  }
}

