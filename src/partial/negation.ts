// `not` over what depends on the unknowns. The negated expression is partially evaluated
// on its own: if it always holds, `not` fails; if it never holds, `not` holds; otherwise
// its residual is R1 or ... or Rn and `not` must hold when none does. When no Ri introduces
// variables of its own and the product of their sizes is small, De Morgan's laws give the
// answer as alternatives of negated expressions; beyond that bound (or with local
// variables) the residuals become a support rule and the query keeps `not data.partial...`.
// The bound keeps the expansion from growing exponentially.

import type { Expr, Term } from '../lang/ast.js';
import { forEachChildTerm } from '../lang/visit.js';
import { isEvery } from '../compiler/terms.js';
import { walkExpr } from '../compiler/walk.js';
import type { Frame0, K, PartialEvaluator } from './evaluator.js';
import type { State } from './state.js';
import { callExpr, keyOf, residualIndex, residualVar } from './terms.js';
import { refName } from '../compiler/terms.js';

/** Most alternatives a negation may expand into before it becomes a support rule. */
export const NOT_EXPANSION_LIMIT = 16;

export function negate(pe: PartialEvaluator, e: Expr, fr: Frame0, st: State, k: K): void {
  const positive: Expr = { ...e, negated: false };
  const start = pe.varCount;
  const alternatives: Expr[][] = [];
  let always = false;
  pe.sub([positive], fr, st, (_s, saved) => {
    if (!saved.length) always = true;
    else alternatives.push(saved);
  });
  if (always) return;
  if (!alternatives.length) return k(st);
  negateAlternatives(pe, alternatives, start, st, k);
}

/**
 * Continues with "none of the alternatives holds": expanded by De Morgan when small and
 * free of local variables, else `not data.partial.__notN__(outer vars...)`.
 * `start` is the first residual variable made for the alternatives (older ones are outer).
 */
export function negateAlternatives(pe: PartialEvaluator, alternatives: Expr[][], start: number, st: State, k: K): void {
  if (!alternatives.length) return k(st);
  if (alternatives.some((a) => !a.length)) return;
  const outer = new Set<number>();
  let local = false;
  for (const alt of alternatives)
    for (const x of alt) {
      if (isEvery(x.terms) || x.with?.length) local = true;
      walkExpr(x, {
        term: (t) => {
          const i = residualIndex(t);
          if (i === undefined) return;
          if (i >= start) local = true;
          else outer.add(i);
        },
      });
    }
  // each alternative fails when one of its expressions does not hold
  const options: Expr[][] = [];
  for (const alt of alternatives) {
    const opts: Expr[] = [];
    for (const x of alt) {
      const n = negations(x);
      if (!n) local = true;
      else opts.push(...n);
    }
    options.push(dedupe(opts));
  }
  const size = options.reduce((n, o) => n * o.length, 1);
  if (!local && size <= NOT_EXPANSION_LIMIT) {
    const choose = (i: number, s: State): void => {
      if (i === options.length) return k(s);
      for (const x of options[i]!) if (!contradicted(x, s)) choose(i + 1, pe.saveAt(s, x));
    };
    return choose(0, st);
  }
  const args: Term[] = [...outer].sort((a, b) => a - b).map(residualVar);
  const ref = pe.support.negation(alternatives, args);
  k(pe.saveAt(st, { index: 0, negated: true, terms: args.length ? [ref, ...args] : ref }));
}

/**
 * The expressions, each enough, that say `x` does not hold — as the compiler reads them back.
 * It moves the refs used as operands of a negated call out of the `not` (as OPA does), so
 * `not input.a < 1` is read as "input.a is defined and not less than 1"; the case where a
 * ref is undefined is then said apart, `not input.a = input.a` (a unification keeps its
 * plain refs inside the `not`). Undefined when no such expressions exist (nested calls,
 * refs with computed keys): the negation is then a support rule.
 */
function negations(x: Expr): Expr[] | undefined {
  if (x.negated) return [{ ...x, negated: false }];
  const t = x.terms;
  if (!Array.isArray(t)) {
    const term = t as Term;
    const simple = term.type === 'ref' ? plainRef(term) : ['var', 'string', 'number', 'boolean', 'null'].includes(term.type);
    return simple ? [{ ...x, negated: true }] : undefined;
  }
  const unify = refName(t[0]!) === 'eq';
  const refs: Term[] = [];
  let ok = true;
  const operand = (o: Term, top: boolean): void => {
    switch (o.type) {
      case 'ref':
        if (!plainRef(o)) ok = false;
        else if (!(unify && top)) refs.push(o);
        return;
      case 'call':
        ok = false;
        return;
      default:
        forEachChildTerm(o, (y) => operand(y, false));
    }
  };
  t.slice(1).forEach((o) => operand(o, true));
  if (!ok) return undefined;
  return [{ ...x, negated: true }, ...refs.map((r): Expr => ({ ...callExpr('eq', [r, r], true), location: x.location }))];
}

/**
 * Whether `x` is "ref R is undefined" (`not R = R`) in a branch that already holds R defined
 * (a copy of R whose definedness it keeps, or a saved `v = R`): such an alternative can never
 * hold, and keeping it only makes residuals no target can translate.
 */
function contradicted(x: Expr, st: State): boolean {
  const t = x.terms;
  if (!x.negated || x.with?.length || !Array.isArray(t) || t.length !== 3 || refName(t[0]!) !== 'eq') return false;
  const r = keyOf(t[1]!);
  if (r !== keyOf(t[2]!)) return false;
  for (let p = st.props; p; p = p.tail) if (keyOf(p.head.term) === r) return true;
  for (let e = st.saved; e; e = e.tail) {
    const u = e.head.terms;
    if (e.head.negated || e.head.with?.length || !Array.isArray(u) || u.length !== 3 || refName(u[0]!) !== 'eq') continue;
    if (keyOf(u[1]!) === r || keyOf(u[2]!) === r) return true;
  }
  return false;
}

/** A ref whose keys are all constants (nothing in it moves out of a `not`). */
function plainRef(t: Term): boolean {
  if (t.type !== 'ref') return true;
  return t.value.slice(1).every((s) => s.type === 'string' || s.type === 'number' || s.type === 'boolean' || s.type === 'null' || s.type === 'var');
}

function dedupe(xs: Expr[]): Expr[] {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const key = keyOf({ t: x.terms, n: !!x.negated });
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
