// The state of one branch of partial evaluation: variable bindings, the expressions saved
// for the residual, and the symbolic refs that variables were bound to (copy propagation).
// All three are persistent lists, so branching shares everything written before the branch.

import type { Expr, Term } from '../lang/ast.js';
import type { PT } from './terms.js';

export interface List<T> {
  readonly head: T;
  readonly tail: List<T> | undefined;
}

export const cons = <T>(head: T, tail: List<T> | undefined): List<T> => ({ head, tail });

/** The items of `l` pushed after `since` (a tail of `l`), oldest first. */
export function itemsSince<T>(l: List<T> | undefined, since: List<T> | undefined): T[] {
  const out: T[] = [];
  for (let x = l; x && x !== since; x = x.tail) out.push(x.head);
  return out.reverse();
}

export interface Binding {
  key: string;
  value: PT;
}

/** A symbolic ref a variable was bound to: its definedness is kept if nothing else reads it. */
export interface Propagated {
  term: Term;
  /** Whether the variable was read (plugged into something saved) in this branch. */
  readonly id: number;
}

export interface State {
  readonly env: List<Binding> | undefined;
  readonly saved: List<Expr> | undefined;
  readonly props: List<Propagated> | undefined;
  /** Ids of propagated refs that were read in this branch. */
  readonly reads: List<number> | undefined;
}

export const EMPTY: State = { env: undefined, saved: undefined, props: undefined, reads: undefined };

export function lookup(st: State, key: string): PT | undefined {
  for (let x = st.env; x; x = x.tail) if (x.head.key === key) return x.head.value;
  return undefined;
}

export function bind(st: State, key: string, value: PT): State {
  return { ...st, env: cons({ key, value }, st.env) };
}

export function save(st: State, e: Expr): State {
  return { ...st, saved: cons(e, st.saved) };
}
