// Gives every local variable of a rule a name unique within the rule, following Rego's
// scoping: `some` and `:=` declare a variable in the body where they appear (shadowing
// an outer one); any other variable belongs to the outermost body that mentions it
// outside nested bodies; comprehension and `every` bodies are nested scopes.
// After this pass a name means exactly one slot, so later passes need no scope logic.

import type { Body, Expr, Term, Every, SomeDecl } from '../lang/ast.js';
import { ARGS_ONLY, mapChildTerms } from '../lang/visit.js';
import { forEachPatternVar, forEachVarShallow, isEvery, isSome, refName } from './terms.js';

export class LocalNamer {
  private used = new Map<string, number>();
  /** unique name -> the name the user wrote (for messages and query bindings). */
  readonly original = new Map<string, string>();

  fresh(name: string): string {
    const n = this.used.get(name);
    if (n === undefined) {
      this.used.set(name, 1);
      this.original.set(name, name);
      return name;
    }
    this.used.set(name, n + 1);
    const u = `${name}#${n}`;
    this.original.set(u, name);
    return u;
  }
}

export type Scope = Map<string, string>;

const GLOBAL = new Set(['input', 'data']);

function declaredIn(body: Body): string[] {
  const out: string[] = [];
  for (const e of body) {
    const t = e.terms;
    if (isSome(t)) {
      for (const sym of t.symbols) {
        if (sym.type === 'var') out.push(sym.value);
        else if (sym.type === 'call') {
          // some k, v in xs: the vars of the patterns k and v are declared (xs is not)
          const args = sym.value.slice(1, -1);
          for (const a of args) forEachPatternVar(a, (n) => out.push(n));
        }
      }
    } else if (Array.isArray(t) && t.length === 3 && refName(t[0]!) === 'assign') {
      forEachVarShallow(t[1]!, (n) => out.push(n));
    }
  }
  return out;
}

function ownVars(body: Body, extra: Term[]): string[] {
  const out: string[] = [];
  const add = (n: string) => out.push(n);
  for (const t of extra) forEachVarShallow(t, add);
  for (const e of body) {
    const t = e.terms;
    if (isEvery(t)) forEachVarShallow(t.domain, add);
    else if (isSome(t)) {
      // the collection, and what the patterns read (`x` in `some [x.a, y] in xs`)
      for (const sym of t.symbols) if (sym.type === 'call') for (const a of sym.value.slice(1)) forEachVarShallow(a, add);
    } else if (Array.isArray(t)) for (const x of t.slice(1)) forEachVarShallow(x, add);
    else forEachVarShallow(t as Term, add);
    for (const w of e.with ?? []) forEachVarShallow(w.value, add);
  }
  return out;
}

/**
 * Opens a scope for `body` (plus `extra` terms that share it, e.g. a rule head), returning the
 * scope map. Declared vars shadow the parent; other vars are reused from the parent if known.
 */
export function openScope(namer: LocalNamer, parent: Scope, body: Body, extra: Term[], forceLocal: string[] = []): Scope {
  const scope: Scope = new Map(parent);
  for (const n of forceLocal) scope.set(n, namer.fresh(n));
  // Vars declared with `some`/`:=` become visible where they are declared (renameBody);
  // until then a nested body using the same name has its own local.
  const declared = new Set(declaredIn(body).filter((n) => !GLOBAL.has(n)));
  const pending = new Map<string, string>();
  for (const n of declared) pending.set(n, namer.fresh(n));
  pendingDecls.set(scope, pending);
  for (const n of ownVars(body, extra)) if (!scope.has(n) && !GLOBAL.has(n) && !declared.has(n)) scope.set(n, namer.fresh(n));
  return scope;
}

const pendingDecls = new WeakMap<Scope, Map<string, string>>();

/** Makes the vars declared by `e` visible in `scope` (from this expression on). */
function declare(e: Expr, scope: Scope): void {
  const pending = pendingDecls.get(scope);
  if (!pending) return;
  for (const n of declaredIn([e])) {
    const u = pending.get(n);
    if (u !== undefined) scope.set(n, u);
  }
}

/** Makes every declared var visible (for rule heads, after the body). */
export function declareAll(scope: Scope): void {
  const pending = pendingDecls.get(scope);
  if (pending) for (const [n, u] of pending) scope.set(n, u);
}

export function renameTerm(t: Term, scope: Scope, namer: LocalNamer): Term {
  switch (t.type) {
    case 'var': {
      const u = scope.get(t.value);
      return u === undefined || u === t.value ? t : { ...t, value: u };
    }
    case 'arraycomprehension':
    case 'setcomprehension': {
      const sc = openScope(namer, scope, t.value.body, [t.value.term]);
      const body = renameBody(t.value.body, sc, namer);
      declareAll(sc);
      return { ...t, value: { term: renameTerm(t.value.term, sc, namer), body } };
    }
    case 'objectcomprehension': {
      const sc = openScope(namer, scope, t.value.body, [t.value.key, t.value.value]);
      const body = renameBody(t.value.body, sc, namer);
      declareAll(sc);
      return { ...t, value: { key: renameTerm(t.value.key, sc, namer), value: renameTerm(t.value.value, sc, namer), body } };
    }
    default:
      return mapChildTerms(t, (x) => renameTerm(x, scope, namer), ARGS_ONLY);
  }
}

/** Renames a body whose scope has already been opened. */
export function renameBody(body: Body, scope: Scope, namer: LocalNamer): Body {
  return body.map((e) => {
    // What `x := rhs` and `some x in xs` read is renamed before x is declared, as OPA
    // does: in `a := {x: a | ...}` the comprehension's `a` is its own local.
    const early = renameEarly(e, scope, namer);
    declare(e, scope);
    return renameExpr(e, scope, namer, early);
  });
}

/** The renamed right-hand side of `:=` or collection of `some ... in`, keyed by the original term. */
function renameEarly(e: Expr, scope: Scope, namer: LocalNamer): Map<Term, Term> | undefined {
  const t = e.terms;
  if (Array.isArray(t) && t.length === 3 && refName(t[0]!) === 'assign') return new Map([[t[2]!, renameTerm(t[2]!, scope, namer)]]);
  if (isSome(t)) {
    let m: Map<Term, Term> | undefined;
    for (const sym of t.symbols)
      if (sym.type === 'call') {
        const coll = sym.value[sym.value.length - 1]!;
        (m ??= new Map()).set(coll, renameTerm(coll, scope, namer));
      }
    return m;
  }
  return undefined;
}

function renameExpr(e: Expr, scope: Scope, namer: LocalNamer, early?: Map<Term, Term>): Expr {
  const rename = (x: Term) => early?.get(x) ?? renameTerm(x, scope, namer);
  const t = e.terms;
  let terms: Expr['terms'];
  if (isEvery(t)) {
    const kv: string[] = [];
    if (t.key) forEachVarShallow(t.key, (n) => kv.push(n));
    forEachVarShallow(t.value, (n) => kv.push(n));
    const sc = openScope(namer, scope, t.body, [], kv);
    const ev: Every = {
      ...t,
      key: t.key ? renameTerm(t.key, sc, namer) : null,
      value: renameTerm(t.value, sc, namer),
      domain: renameTerm(t.domain, scope, namer),
      body: renameBody(t.body, sc, namer),
    };
    terms = ev;
  } else if (isSome(t)) {
    const symbol = (x: Term): Term =>
      x.type === 'call' ? { ...x, value: x.value.map((a, i) => (i === 0 ? a : rename(a))) } : renameTerm(x, scope, namer);
    const sd: SomeDecl = { ...t, symbols: t.symbols.map(symbol) };
    terms = sd;
  } else if (Array.isArray(t)) terms = t.map((x, i) => (i === 0 ? x : rename(x)));
  else terms = renameTerm(t as Term, scope, namer);
  const out: Expr = { ...e, terms };
  if (e.with) out.with = e.with.map((w) => ({ ...w, value: renameTerm(w.value, scope, namer) }));
  return out;
}
