// Zero-argument functions. OPA treats `f() := v` (and v0 `f() = v { ... } else = w { ... }`)
// as an ordinary complete rule: a rule is a function only when it takes arguments, and
// `opa fmt` rewrites `f() := v` to `f := v`. So the bare reference `f` reads the rule's
// value, and a call `f()` (or `f(out)`, binding the value to out) of any complete rule is
// rewritten here into that reference before safety and planning.

import type { Body, Expr, Term } from '../lang/ast.js';
import { ARGS_ONLY, mapChildTerms } from '../lang/visit.js';
import { isEvery, isSome } from './terms.js';
import type { CompiledRule, RuleNode } from './tree.js';

/** The node a ground data ref names, if complete rules (not functions) define it. */
function zeroArityNode(op: Term, root: RuleNode): RuleNode | undefined {
  if (op.type !== 'ref' || op.value[0]?.type !== 'var' || op.value[0].value !== 'data') return undefined;
  const path: string[] = [];
  for (const t of op.value.slice(1)) {
    if (t.type !== 'string') return undefined;
    path.push(t.value);
  }
  const node = root.find(path);
  if (!node || node.isFunction) return undefined;
  return node.complete.length > 0 || node.default !== undefined ? node : undefined;
}

const EQ: Term = { type: 'ref', value: [{ type: 'var', value: 'eq' }] };

export function rewriteZeroArityBody(body: Body, root: RuleNode): Body {
  return body.map((e) => rewriteExpr(e, root));
}

function rewriteExpr(e: Expr, root: RuleNode): Expr {
  const t = e.terms;
  let terms: Expr['terms'];
  if (isSome(t)) terms = { ...t, symbols: t.symbols.map((x) => rewriteTerm(x, root)) };
  else if (isEvery(t)) terms = { ...t, domain: rewriteTerm(t.domain, root), body: rewriteZeroArityBody(t.body, root) };
  else if (Array.isArray(t)) {
    const [op, ...args] = t as [Term, ...Term[]];
    const rest = args.map((x) => rewriteTerm(x, root));
    if (zeroArityNode(op, root) && rest.length <= 1) {
      const ref: Term = { ...op, location: op.location ?? e.location };
      terms = rest.length === 0 ? ref : [{ ...EQ, location: op.location }, rest[0]!, ref];
    } else terms = [op, ...rest];
  } else terms = rewriteTerm(t as Term, root);
  const out: Expr = { ...e, terms };
  if (e.with) out.with = e.with.map((w) => ({ ...w, value: rewriteTerm(w.value, root) }));
  return out;
}

function rewriteTerm(t: Term, root: RuleNode): Term {
  if (t.type === 'call') {
    const op = t.value[0]!;
    if (t.value.length === 1 && !t.template && zeroArityNode(op, root)) return { ...op, location: t.location ?? op.location };
  }
  return mapChildTerms(
    t,
    (x) => rewriteTerm(x, root),
    ARGS_ONLY,
    (b) => rewriteZeroArityBody(b, root),
  );
}

/** Rewrites a rule (and its else chain) in place. */
export function rewriteZeroArityRule(cr: CompiledRule, root: RuleNode): void {
  for (let x: CompiledRule | undefined = cr; x; x = x.else) {
    x.body = rewriteZeroArityBody(x.body, root);
    x.suffix = x.suffix.map((t) => rewriteTerm(t, root));
    if (x.key) x.key = rewriteTerm(x.key, root);
    if (x.value) x.value = rewriteTerm(x.value, root);
  }
}
