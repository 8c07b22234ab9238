// The one place that knows which kinds of term hold other terms (OPA's GenericVisitor /
// WalkClosures idea). Passes that only traverse go through forEachChildTerm and
// mapChildTerms and handle the kinds they care about; adding a term kind means teaching
// these two switches (and the kind-specific ones, which fail to compile until told).

import type { ArrayComprehensionTerm, ArrayTerm, Body, ObjectComprehensionTerm, ObjectTerm, SetComprehensionTerm, SetTerm, Term } from './ast.js';

/** A term with a body of its own (OPA's closures): its vars are local to it. */
export type ClosureTerm = ArrayComprehensionTerm | SetComprehensionTerm | ObjectComprehensionTerm;

/** A composite value written out (array, set, object): the terms a pattern may destructure. */
export type CollectionTerm = ArrayTerm | SetTerm | ObjectTerm;

export function isClosure(t: Term): t is ClosureTerm {
  return t.type === 'arraycomprehension' || t.type === 'setcomprehension' || t.type === 'objectcomprehension';
}

export function isCollectionTerm(t: Term): t is CollectionTerm {
  return t.type === 'array' || t.type === 'set' || t.type === 'object';
}

/** What a walk enters besides the sub-terms of refs, arrays, sets, objects and calls. */
export interface ChildOptions {
  /** Leave out a call's operator (`count` in `count(x)`): only its arguments are children. */
  skipCallOp?: boolean;
}

/** Only a call's arguments, not its operator. */
export const ARGS_ONLY: ChildOptions = { skipCallOp: true };

/**
 * Calls `fn` on each direct sub-term of `t` in source order (an object's key before its
 * value); stops, and returns true, as soon as `fn` returns true. Scalars and vars have no
 * sub-terms. A closure is entered only when `body` is given: its head terms (term, or key
 * and value) go to `fn`, then its body to `body`; without it a closure is a leaf.
 */
export function forEachChildTerm(t: Term, fn: (x: Term) => boolean | void, o?: ChildOptions, body?: (b: Body) => boolean | void): boolean {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
    case 'var':
      return false;
    case 'call':
      for (let i = o?.skipCallOp ? 1 : 0; i < t.value.length; i++) if (fn(t.value[i]!) === true) return true;
      return false;
    case 'ref':
    case 'array':
    case 'set':
      for (const x of t.value) if (fn(x) === true) return true;
      return false;
    case 'object':
      for (const [k, x] of t.value) if (fn(k) === true || fn(x) === true) return true;
      return false;
    case 'arraycomprehension':
    case 'setcomprehension':
      if (!body) return false;
      return fn(t.value.term) === true || body(t.value.body) === true;
    case 'objectcomprehension':
      if (!body) return false;
      return fn(t.value.key) === true || fn(t.value.value) === true || body(t.value.body) === true;
    default:
      return missingKind(t, false);
  }
}

/**
 * A copy of `t` with each direct sub-term replaced by `fn` of it (in the order
 * forEachChildTerm visits them); scalars and vars come back as they are, every other kind
 * as a new object. A closure is rewritten only when `body` is given (head terms, then
 * body); without it it comes back as it is.
 */
export function mapChildTerms(t: Term, fn: (x: Term) => Term, o?: ChildOptions, body?: (b: Body) => Body): Term {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
    case 'var':
      return t;
    case 'call':
      return { ...t, value: t.value.map((x, i) => (i === 0 && o?.skipCallOp ? x : fn(x))) };
    case 'ref':
    case 'array':
    case 'set':
      return { ...t, value: t.value.map((x) => fn(x)) } as Term;
    case 'object':
      return { ...t, value: t.value.map(([k, x]) => [fn(k), fn(x)] as [Term, Term]) };
    case 'arraycomprehension':
    case 'setcomprehension':
      if (!body) return t;
      return { ...t, value: { term: fn(t.value.term), body: body(t.value.body) } };
    case 'objectcomprehension':
      if (!body) return t;
      return { ...t, value: { key: fn(t.value.key), value: fn(t.value.value), body: body(t.value.body) } };
    default:
      return missingKind(t, t);
  }
}

/** Whether `pred` holds for every direct sub-term (see forEachChildTerm for which). */
export function everyChildTerm(t: Term, pred: (x: Term) => boolean, o?: ChildOptions): boolean {
  return !forEachChildTerm(t, (x) => !pred(x), o);
}

/**
 * The `default` of a switch that names every term kind: it fails to compile when a kind
 * is left out. At run time it gives back `fallback` (what the switch did before it was
 * exhaustive), so a value that is not a term behaves as it always did.
 */
export function missingKind<T>(_t: never, fallback: T): T {
  return fallback;
}
