// Terms of partial evaluation. A term's value is either known (a Rego value) or symbolic:
// a closed AST term over unknown refs and residual variables, written into the residual
// as it is. Residual variables are named `__pN__`, a form no user variable is given after
// the compiler's renaming, so they never collide with the policy's own names.

import type { Expr, Term } from '../lang/ast.js';
import {
  isNumber,
  isPlainObject,
  numberText,
  objectEntries,
  RSet,
  sortedKeys,
  type Value,
} from '../value/index.js';

/** A known value. */
export interface Known {
  type: 'val';
  v: Value;
}

/** What a term evaluates to: known, or a symbolic AST term. */
export type PT = Known | Term;

export const known = (v: Value): Known => ({ type: 'val', v });
export const isKnown = (p: PT): p is Known => p.type === 'val';

export const RESIDUAL_VAR = /^__p\d+__$/;

export function residualVar(n: number): Term {
  return { type: 'var', value: `__p${n}__` };
}

export function residualIndex(t: Term): number | undefined {
  return t.type === 'var' && RESIDUAL_VAR.test(t.value) ? Number(t.value.slice(3, -2)) : undefined;
}

/** The AST term of a value (keys of objects and elements of sets in Rego's order). */
export function valueTerm(v: Value): Term {
  if (v === null) return { type: 'null' };
  if (typeof v === 'boolean') return { type: 'boolean', value: v };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (isNumber(v)) return { type: 'number', value: numberText(v) };
  if (Array.isArray(v)) return { type: 'array', value: v.map(valueTerm) };
  if (v instanceof RSet) {
    const out: Term[] = [];
    for (const x of v.values()) out.push(valueTerm(x));
    return { type: 'set', value: out };
  }
  if (isPlainObject(v)) return { type: 'object', value: sortedKeys(v).map((k) => [{ type: 'string', value: k }, valueTerm(v[k]!)] as [Term, Term]) };
  return { type: 'object', value: objectEntries(v).map(([k, x]) => [valueTerm(k), valueTerm(x)] as [Term, Term]) };
}

export const toAST = (p: PT): Term => (isKnown(p) ? valueTerm(p.v) : p);

export function opRef(name: string): Term {
  const [head, ...rest] = name.split('.');
  return { type: 'ref', value: [{ type: 'var', value: head! }, ...rest.map((s) => ({ type: 'string', value: s }) as Term)] };
}

export function dataRef(path: readonly string[]): Term {
  return { type: 'ref', value: [{ type: 'var', value: 'data' }, ...path.map((s) => ({ type: 'string', value: s }) as Term)] };
}

/** `head` followed by more segments, flattened when `head` is a ref itself. */
export function extendRef(head: Term, segs: Term[]): Term {
  if (!segs.length) return head;
  if (head.type === 'ref') return { type: 'ref', value: [...head.value, ...segs] };
  return { type: 'ref', value: [head, ...segs] };
}

export function callExpr(op: string | Term, args: Term[], negated = false): Expr {
  const e: Expr = { index: 0, terms: [typeof op === 'string' ? opRef(op) : op, ...args] };
  if (negated) e.negated = true;
  return e;
}

export function termExpr(t: Term): Expr {
  return { index: 0, terms: t };
}

/** Deterministic text of a term or expression, for deduplication (locations left out). */
export function keyOf(x: unknown): string {
  return JSON.stringify(x, (k, v) => (k === 'location' || k === 'index' ? undefined : v));
}
