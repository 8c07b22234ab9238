// Applies locals.ts and safety.ts to a rule or query: unique local names, then every body
// (including comprehension and `every` bodies) reordered for safety, then the head checked.

import type { Body, Expr, Term } from '../lang/ast.js';
import { mapChildTerms } from '../lang/visit.js';
import { compileError } from './errors.js';
import { reorderBody, shallowBodyVars, displayName, unsafeHeadVars, type SafetyCtx } from './safety.js';
import { forEachVarShallow, isEvery } from './terms.js';

export function reorderDeep(body: Body, bound: Set<string>, names: Set<string>, ctx: SafetyCtx): { body: Body; bound: Set<string> } {
  const all = new Set(names);
  for (const n of shallowBodyVars(body)) all.add(n);
  const inner = body.map((e) => nestedExpr(e, all, ctx));
  return reorderBody(inner, bound, all, ctx);
}

function nestedExpr(e: Expr, names: Set<string>, ctx: SafetyCtx): Expr {
  const t = e.terms;
  let terms: Expr['terms'];
  if (isEvery(t)) {
    const b = new Set(names);
    if (t.key) forEachVarShallow(t.key, (n) => b.add(n));
    forEachVarShallow(t.value, (n) => b.add(n));
    terms = { ...t, domain: nestedTerm(t.domain, names, ctx), body: reorderDeep(t.body, b, b, ctx).body };
  } else if (Array.isArray(t)) terms = t.map((x) => nestedTerm(x, names, ctx));
  else if ((t as { type: string }).type === 'somedecl') {
    const sd = t as Extract<Expr['terms'], { type: 'somedecl' }>;
    terms = { ...sd, symbols: sd.symbols.map((x) => nestedTerm(x, names, ctx)) };
  } else terms = nestedTerm(t as Term, names, ctx);
  const out: Expr = { ...e, terms };
  if (e.with) out.with = e.with.map((w) => ({ ...w, value: nestedTerm(w.value, names, ctx) }));
  return out;
}

/** Reorders the bodies of the comprehensions anywhere in a term; `names` are the enclosing scopes' names. */
export function nestedTerm(t: Term, names: Set<string>, ctx: SafetyCtx): Term {
  switch (t.type) {
    case 'arraycomprehension':
    case 'setcomprehension': {
      const r = reorderDeep(t.value.body, names, names, ctx);
      checkHead([t.value.term], r.bound, ctx, t);
      // a comprehension in the head (a template string's part) captures the body's vars
      return { ...t, value: { term: nestedTerm(t.value.term, r.bound, ctx), body: r.body } };
    }
    case 'objectcomprehension': {
      const r = reorderDeep(t.value.body, names, names, ctx);
      checkHead([t.value.key, t.value.value], r.bound, ctx, t);
      return { ...t, value: { key: nestedTerm(t.value.key, r.bound, ctx), value: nestedTerm(t.value.value, r.bound, ctx), body: r.body } };
    }
    default:
      return mapChildTerms(t, (x) => nestedTerm(x, names, ctx));
  }
}

/** Vars of head terms (or a comprehension's head) must be bound by the body. */
export function checkHead(terms: Term[], bound: Set<string>, ctx: SafetyCtx, at: { location?: Term['location'] }): void {
  const seen = new Set<string>();
  for (const t of terms)
    for (const n of unsafeHeadVars(t, bound)) {
      if (seen.has(n)) continue;
      seen.add(n);
      ctx.errors.push(compileError('rego_unsafe_var_error', `var ${displayName(n, ctx.original)} is unsafe`, at.location));
    }
}
