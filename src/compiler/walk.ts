// Visits every term of a body, including nested bodies and `with` modifiers.

import type { Body, Expr, Term } from '../lang/ast.js';
import { ARGS_ONLY, forEachChildTerm } from '../lang/visit.js';
import { isEvery, isSome } from './terms.js';

export interface BodyVisitor {
  term?(t: Term): void;
  /** A call in expression position ([op, ...args]) or a call term. */
  call?(op: Term, args: Term[], at: Expr | Term): void;
}

export function walkBody(body: Body, v: BodyVisitor): void {
  for (const e of body) walkExpr(e, v);
}

export function walkExpr(e: Expr, v: BodyVisitor): void {
  const t = e.terms;
  if (isSome(t)) for (const x of t.symbols) walkTerm(x, v);
  else if (isEvery(t)) {
    if (t.key) walkTerm(t.key, v);
    walkTerm(t.value, v);
    walkTerm(t.domain, v);
    walkBody(t.body, v);
  } else if (Array.isArray(t)) {
    v.call?.(t[0]!, t.slice(1), e);
    for (const x of t.slice(1)) walkTerm(x, v);
  } else walkTerm(t as Term, v);
  for (const w of e.with ?? []) walkTerm(w.value, v);
}

export function walkTerm(t: Term, v: BodyVisitor): void {
  v.term?.(t);
  if (t.type === 'call') v.call?.(t.value[0]!, t.value.slice(1), t);
  forEachChildTerm(
    t,
    (x) => walkTerm(x, v),
    ARGS_ONLY,
    (b) => walkBody(b, v),
  );
}
