// Indexing an iteration over a ground collection (OPA's comprehension indexing, for
// `some`). In
//
//     some route in routes              # routes := [{...}, ...], a constant
//     route.method == input.method
//
// the collection is the same array on every evaluation, and the expression right after
// the `some` keeps only the elements whose `method` equals a value that does not depend on
// the element. The plan groups the elements by that field once (here, at plan time), and
// at run time iterates only the group of the value: the same elements in the same order
// that the filter would let through, so the filter (still run after it) and everything
// after it see exactly the solutions they saw before. Any other case at run time (the
// collection replaced by `with`, a mock, a traced plan) takes the ordinary iteration.

import type { Expr, Term } from '../../lang/ast.js';
import { isSome, refName } from '../../compiler/terms.js';
import { lookup } from '../../value/collections.js';
import type { Value } from '../../value/index.js';
import type { PlanCtx } from './ctx.js';
import { planDataPath } from './data-ref.js';
import { planRule } from './rule-plan.js';
import { compileTerm, constValue } from './terms.js';
import { eachElement } from './exprs.js';
import type { Step } from './types.js';

type Primitive = string | number | boolean | null;

/** Fewer elements than this are not worth an index. */
const MIN_ELEMENTS = 8;

/** How many indexes plans have built (read by tests). */
export const groundIndexes = { built: 0 };

/**
 * The indexed form of `some x in C` (expression `e`) followed by `filter`, or undefined
 * when the pair does not have that shape. `next` runs the filter and the rest of the body;
 * `plain` is the ordinary iteration.
 */
export function indexedSome(e: Expr, filter: Expr, pc: PlanCtx, next: Step, plain: Step): Step | undefined {
  if (pc.traced || (e.with && e.with.length) || e.negated || !isSome(e.terms) || e.terms.symbols.length !== 1) return undefined;
  const sym = e.terms.symbols[0]!;
  if (sym.type !== 'call' || refName(sym.value[0]!) !== 'internal.member_2' || sym.value.length !== 3) return undefined;
  const x = sym.value[1]!;
  if (x.type !== 'var' || pc.isBound(x.value)) return undefined;
  const test = fieldTest(filter, x.value, pc);
  if (!test) return undefined;
  const collTerm = sym.value[2]!;
  const ground = groundValue(collTerm, pc);
  if (!Array.isArray(ground) || ground.length < MIN_ELEMENTS) return undefined;
  const groups = groupBy(ground, test.field);
  if (!groups) return undefined;
  const coll = compileTerm(collTerm, pc).get;
  const key = compileTerm(test.other, pc).get;
  if (!coll || !key) return undefined;
  const s = pc.slotOf(x.value);
  groundIndexes.built++;
  return (fr) => {
    if (fr.ev.mocks !== null || fr.slots[s] !== undefined || coll(fr) !== ground) return plain(fr);
    const k = key(fr);
    if (k === undefined || (k !== null && typeof k === 'object')) return false;
    const group = groups.get(k as Primitive);
    return group === undefined ? false : eachElement(fr, group, s, next);
  };
}

/**
 * `x.field == other` (either way round), where `other` cannot depend on x and cannot fail
 * or have effects when evaluated early: a constant, or input or a bound variable followed
 * by constant keys.
 */
function fieldTest(filter: Expr, x: string, pc: PlanCtx): { field: string; other: Term } | undefined {
  if (filter.negated || (filter.with && filter.with.length) || !Array.isArray(filter.terms) || filter.terms.length !== 3) return undefined;
  if (refName(filter.terms[0]!) !== 'equal') return undefined;
  const [a, b] = [filter.terms[1]!, filter.terms[2]!];
  for (const [f, o] of [
    [a, b],
    [b, a],
  ] as const) {
    if (f.type !== 'ref' || f.value.length !== 2 || f.value[0]!.type !== 'var' || f.value[0]!.value !== x || f.value[1]!.type !== 'string') continue;
    if (invariant(o, x, pc)) return { field: f.value[1]!.value, other: o };
  }
  return undefined;
}

function invariant(t: Term, x: string, pc: PlanCtx): boolean {
  if (constValue(t) !== undefined) return true;
  const head = t.type === 'var' ? t : t.type === 'ref' ? t.value[0] : undefined;
  if (!head || head.type !== 'var' || head.value === x || head.value === 'data' || !pc.isBound(head.value)) return false;
  if (t.type === 'ref') for (const k of t.value.slice(1)) if (k.type !== 'string' && k.type !== 'number') return false;
  return true;
}

/**
 * The collection's value when it is the same object on every evaluation: a constant
 * term, or a data ref to a rule `name := <constant>` (the very value its plan returns).
 */
function groundValue(t: Term, pc: PlanCtx): Value | undefined {
  const c = compileTerm(t, pc).constant;
  if (c !== undefined) return c;
  if (t.type !== 'ref' || t.value[0]?.type !== 'var' || t.value[0].value !== 'data') return undefined;
  const rest = t.value.slice(1);
  const { node, consumed } = planDataPath(rest, pc.root);
  if (!node || consumed !== rest.length || node.default || node.complete.length !== 1 || node.isFunction || node.sets.length || node.general.length) return undefined;
  const r = node.complete[0]!;
  if (r.else || !r.value || constValue(r.value) === undefined || r.body.length > 1) return undefined;
  // the body of `name := value` is the single expression `true`
  const only = r.body[0];
  if (only && (only.negated || (only.with && only.with.length) || Array.isArray(only.terms) || (only.terms as Term).type !== 'boolean' || (only.terms as { value: unknown }).value !== true))
    return undefined;
  return planRule(r, pc.root).value?.constant;
}

/** The elements grouped by a primitive field (in order), or undefined if a field value is composite. */
function groupBy(elems: Value[], field: string): Map<Primitive, Value[]> | undefined {
  const groups = new Map<Primitive, Value[]>();
  for (const el of elems) {
    const v = lookup(el, field);
    if (v === undefined) continue; // never equal to anything: the filter drops it
    if (v !== null && typeof v === 'object') return undefined;
    const g = groups.get(v);
    if (g) g.push(el);
    else groups.set(v, [el]);
  }
  return groups;
}
