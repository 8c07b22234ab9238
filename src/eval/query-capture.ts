// Value capture for ad-hoc queries, as OPA's rego package does it (its query compile stage
// right after ref resolution): each expression that is neither negated, nor `=` / `:=`,
// nor `some` / `every` reports its own value — a term's value, or for a call written
// without its output argument, the call's output (`1 == 2` is false, `1 + 2` is 3) — and
// every other expression reports true. When the query has more than one expression or
// iterates, a solution where any captured value is false is dropped (OPA appends a check
// of each captured value after the last expression). A lone `false` still answers false.

import type { Body, Expr, Term } from '../lang/ast.js';
import { forEachChildTerm } from '../lang/visit.js';
import { arityOf, type CompiledPolicy } from '../compiler/index.js';
import { isEvery, isSome, refName } from '../compiler/terms.js';
import { declarationIn, getDeclaration } from '../compiler/builtins/index.js';

/** Whether the expression's value is captured (reported as is, and checked against false). */
export function captures(e: Expr, policy: CompiledPolicy): boolean {
  if (e.negated) return false;
  const t = e.terms;
  if (isSome(t) || isEvery(t)) return false;
  if (!Array.isArray(t)) return true;
  const name = refName(t[0]!);
  if (name === 'eq' || name === 'assign') return false;
  // A call captures when written without its output: as many operands as the function
  // takes inputs. Functions without a result (print) never do.
  const builtin = name !== undefined ? declarationIn(policy.root.builtins, name) : undefined;
  if (builtin && builtin.decl.result === undefined) return false;
  const n = arityOf(policy.root, t[0]!);
  return n !== undefined && n === t.length - 1;
}

/**
 * OPA's "does the query iterate" test, on the query as written: a reference with a
 * variable after its head (`xs[_]`, `input.a[i]`), or a call of a relation built-in
 * (`walk`), anywhere outside comprehensions (`with` values and `every` bodies included).
 */
export function iterates(body: Body): boolean {
  return body.some(exprIterates);
}

function exprIterates(e: Expr): boolean {
  const t = e.terms;
  if (e.with?.some((w) => termIterates(w.target) || termIterates(w.value))) return true;
  if (isSome(t)) return t.symbols.some(termIterates);
  if (isEvery(t)) return (t.key !== null && termIterates(t.key)) || termIterates(t.value) || termIterates(t.domain) || iterates(t.body);
  if (Array.isArray(t)) return t.some(termIterates);
  return termIterates(t as Term);
}

function termIterates(t: Term): boolean {
  if (t.type === 'ref') {
    const name = refName(t);
    if (name !== undefined && getDeclaration(name)?.relation) return true;
    if (t.value.slice(1).some((x) => x.type === 'var')) return true;
  } else if (t.type === 'call' && t.template) return t.template.parts.some((p) => ('terms' in p ? exprIterates(p) : termIterates(p)));
  // scalars and vars have no sub-terms; comprehensions are not looked into
  return forEachChildTerm(t, termIterates);
}
