// `not` over what depends on the unknowns. The negated expression is partially evaluated
// on its own: if it always holds, `not` fails; if it never holds, `not` holds; otherwise
// its residual is R1 or ... or Rn and `not` must hold when none does. When no Ri introduces
// variables of its own and the product of their sizes is small, De Morgan's laws give the
// answer as alternatives of negated expressions; beyond that bound (or with local
// variables) the residuals become a support rule and the query keeps `not data.partial...`.
// The bound keeps the expansion from growing exponentially.

import type { Expr, Term } from '../lang/ast.js';
import { isEvery } from '../compiler/terms.js';
import { walkExpr } from '../compiler/walk.js';
import type { Frame0, K, PartialEvaluator } from './evaluator.js';
import type { State } from './state.js';
import { residualIndex, residualVar } from './terms.js';

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
  const size = alternatives.reduce((n, alt) => n * alt.length, 1);
  if (!local && size <= NOT_EXPANSION_LIMIT) {
    const choose = (i: number, s: State): void => {
      if (i === alternatives.length) return k(s);
      for (const x of alternatives[i]!) choose(i + 1, pe.saveAt(s, { ...x, negated: !x.negated }));
    };
    return choose(0, st);
  }
  const args: Term[] = [...outer].sort((a, b) => a - b).map(residualVar);
  const ref = pe.support.negation(alternatives, args);
  k(pe.saveAt(st, { index: 0, negated: true, terms: args.length ? [ref, ...args] : ref }));
}
