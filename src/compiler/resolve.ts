// Resolves names to the documents they mean, as OPA's resolveAllRefs does: a var naming
// a rule of the package becomes data.<pkg>.<name>, an imported name becomes the imported
// ref, and the rest stay vars (locals). Function args, `some`, `:=` and `every` vars are
// locals even when they share a rule's name.

import type { Body, Expr, Module, Rule, Term } from '../lang/ast.js';
import { forEachChildTerm, mapChildTerms } from '../lang/visit.js';
import { forEachVarShallow, isEvery, isSome, refName, s, v } from './terms.js';

export type Globals = Map<string, Term[]>;

export function packagePath(m: Module): string[] {
  return m.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : t.type === 'var' ? t.value : String((t as { value: unknown }).value)));
}

export function buildGlobals(m: Module, ruleNames: Set<string>): Globals {
  const g: Globals = new Map();
  const pkg = packagePath(m);
  for (const n of ruleNames) g.set(n, [v('data'), ...pkg.map((p) => s(p)), s(n)]);
  for (const imp of m.imports) {
    const path = imp.path.type === 'ref' ? imp.path.value : [imp.path as Term];
    const head = path[0];
    if (!head || head.type !== 'var') continue;
    if (head.value !== 'data' && head.value !== 'input') continue; // future.keywords, rego.v1
    let alias = imp.alias;
    if (!alias) {
      const last = path[path.length - 1]!;
      alias = last.type === 'string' ? last.value : last.type === 'var' ? last.value : undefined;
      if (path.length === 1) alias = head.value;
    }
    if (!alias) continue;
    if (path.length === 1 && alias === head.value) continue; // import input / import data
    g.set(alias, path.map((t) => ({ ...t, location: imp.location ?? t.location })));
  }
  return g;
}

/** Vars that name locals anywhere in the rule (never resolved to globals). */
export function ruleLocals(r: Rule): Set<string> {
  const out = new Set<string>();
  const add = (n: string) => out.add(n);
  for (let x: Rule | undefined = r; x; x = x.else) {
    for (const a of x.head.args ?? []) forEachVarShallow(a, add);
    declaredDeep(x.body, add);
    for (const t of [x.head.key, x.head.value]) if (t) declaredInTerm(t, add);
  }
  return out;
}

function declaredInTerm(t: Term, add: (n: string) => void): void {
  // an object comprehension's key and value declare nothing (OPA looks at its body only)
  if (t.type === 'objectcomprehension') declaredDeep(t.value.body, add);
  else
    forEachChildTerm(
      t,
      (x) => declaredInTerm(x, add),
      undefined,
      (b) => declaredDeep(b, add),
    );
}

export function declaredDeep(body: Body, add: (n: string) => void): void {
  for (const e of body) {
    const t = e.terms;
    if (isSome(t)) {
      for (const sym of t.symbols) {
        if (sym.type === 'var') add(sym.value);
        else if (sym.type === 'call') for (const a of sym.value.slice(1, -1)) forEachVarShallow(a, add);
      }
    } else if (isEvery(t)) {
      if (t.key) forEachVarShallow(t.key, add);
      forEachVarShallow(t.value, add);
      declaredDeep(t.body, add);
      declaredInTerm(t.domain, add);
    } else if (Array.isArray(t)) {
      if (t.length === 3 && refName(t[0]!) === 'assign') forEachVarShallow(t[1]!, add);
      for (const x of t) declaredInTerm(x, add);
    } else declaredInTerm(t as Term, add);
  }
}

export class Resolver {
  constructor(
    readonly globals: Globals,
    readonly locals: Set<string>,
  ) {}

  term(t: Term): Term {
    switch (t.type) {
      case 'var': {
        if (this.locals.has(t.value)) return t;
        const g = this.globals.get(t.value);
        if (!g) return t;
        return { type: 'ref', value: g.map((x) => ({ ...x, location: t.location ?? x.location })), location: t.location };
      }
      case 'ref': {
        const [head, ...rest] = t.value;
        const rr = rest.map((x) => this.term(x));
        if (head && head.type === 'var') {
          if (!this.locals.has(head.value)) {
            const g = this.globals.get(head.value);
            if (g) return { ...t, value: [...g.map((x) => ({ ...x, location: head.location ?? x.location })), ...rr] };
          }
          return { ...t, value: [head, ...rr] };
        }
        return { ...t, value: [this.term(head!), ...rr] };
      }
      case 'call': {
        const [op, ...args] = t.value;
        return { ...t, value: [this.operator(op!), ...args.map((x) => this.term(x))] };
      }
      default:
        return mapChildTerms(
          t,
          (x) => this.term(x),
          undefined,
          (b) => this.body(b),
        );
    }
  }

  /** Operators: only a name that is a package rule or import is resolved (builtins stay). */
  operator(op: Term): Term {
    if (op.type === 'var' || op.type === 'ref') {
      const head = op.type === 'var' ? op : op.value[0];
      if (head && head.type === 'var' && !this.locals.has(head.value) && this.globals.has(head.value)) {
        const asRef: Term = op.type === 'var' ? { type: 'ref', value: [op], location: op.location } : op;
        return this.term(asRef);
      }
    }
    return op;
  }

  body(b: Body): Body {
    return b.map((e) => this.expr(e));
  }

  expr(e: Expr): Expr {
    const t = e.terms;
    let terms: Expr['terms'];
    if (isSome(t)) terms = { ...t, symbols: t.symbols.map((x) => (x.type === 'var' ? x : this.term(x))) };
    else if (isEvery(t)) terms = { ...t, domain: this.term(t.domain), body: this.body(t.body) };
    else if (Array.isArray(t)) terms = [this.operator(t[0]!), ...t.slice(1).map((x) => this.term(x))];
    else terms = this.term(t as Term);
    const out: Expr = { ...e, terms };
    if (e.with)
      out.with = e.with.map((w) => ({ ...w, target: this.withTarget(w.target), value: this.term(w.value) }));
    return out;
  }

  /** `with` targets: input/data refs stay; a function name may be a package rule or import. */
  withTarget(t: Term): Term {
    return this.operator(t);
  }
}
