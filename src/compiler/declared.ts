// Declaration checks that OPA makes while rewriting local variables (its RewriteLocalVars
// stage): a var declared with `:=` or `some` must not already be known in the same body
// ("var x assigned above", "var x referenced above", ...), a `some` var must be used, and,
// in strict mode, `:=` vars and function arguments must be used too.

import type { Body, Expr, RegoErrorDetail, Rule, Term } from '../lang/ast.js';
import { ARGS_ONLY, forEachChildTerm, isClosure } from '../lang/visit.js';
import { compileError } from './errors.js';
import { forEachPatternVar, forEachVarShallow, isEvery, isSome, refName } from './terms.js';

type Occ = 'seen' | 'assigned' | 'declared' | 'arg';

interface Scope {
  occ: Map<string, Occ>;
  count: Map<string, number>;
  /** Order of declaration, for stable messages. */
  order: string[];
  /** The expression that declared each var (error location). */
  at: Map<string, Expr>;
}

const newScope = (): Scope => ({ occ: new Map(), count: new Map(), order: [], at: new Map() });

class Stack {
  scopes: Scope[] = [newScope()];
  get top(): Scope {
    return this.scopes[this.scopes.length - 1]!;
  }
  known(n: string): Scope | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i]!.occ.has(n)) return this.scopes[i];
    return undefined;
  }
  insert(n: string, o: Occ, at?: Expr): void {
    this.top.occ.set(n, o);
    this.top.count.set(n, 1);
    this.top.order.push(n);
    if (at) this.top.at.set(n, at);
  }
  seen(n: string): void {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const c = this.scopes[i]!.count.get(n);
      if (c !== undefined) {
        this.scopes[i]!.count.set(n, c + 1);
        return;
      }
    }
    this.top.count.set(n, 1);
  }
  count(n: string): number {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const c = this.scopes[i]!.count.get(n);
      if (c !== undefined) return c;
    }
    return 0;
  }
}

const wildcard = (n: string) => n.startsWith('$');
/** A name OPA's compiler generates (`__local0__`, `__local0__1` in its residuals): never reported unused, as OPA's Var.IsGenerated. */
const generated = (n: string) => n.startsWith('__local');
const isRoot = (t: Term) => t.type === 'ref' && t.value.length === 1 && t.value[0]!.type === 'var' && (t.value[0]!.value === 'input' || t.value[0]!.value === 'data');

class Checker {
  errors: RegoErrorDetail[] = [];
  constructor(readonly strict: boolean) {}

  declare(st: Stack, n: string, o: Occ, loc: Term['location'], at?: Expr): void {
    const prev = st.top.occ.get(n);
    if (prev) {
      const msg = prev === 'seen' ? `var ${n} referenced above` : prev === 'assigned' ? `var ${n} assigned above` : prev === 'declared' ? `var ${n} declared above` : `arg ${n} redeclared`;
      this.errors.push(compileError('rego_compile_error', msg, loc));
      return;
    }
    st.insert(n, o, at);
  }

  /** Visits a term that only uses variables. */
  term(st: Stack, t: Term): void {
    switch (t.type) {
      case 'var':
        if (st.known(t.value)) st.seen(t.value);
        else st.insert(t.value, 'seen');
        return;
      case 'ref':
        if (isRoot(t)) return;
        forEachChildTerm(t, (x) => this.term(st, x));
        return;
      case 'call': {
        const op = t.value[0]!;
        const head = op.type === 'ref' ? op.value[0] : op;
        if (head?.type === 'var') {
          const o = st.known(head.value)?.occ.get(head.value);
          if (o && o !== 'seen') this.errors.push(compileError('rego_compile_error', `called function ${refName(op) ?? head.value} shadowed`, t.location));
        }
        forEachChildTerm(t, (x) => this.term(st, x), ARGS_ONLY);
        return;
      }
      case 'arraycomprehension':
      case 'setcomprehension':
        st.scopes.push(newScope());
        this.body(st, t.value.body, vars([t.value.term]));
        this.term(st, t.value.term);
        st.scopes.pop();
        return;
      case 'objectcomprehension':
        st.scopes.push(newScope());
        this.body(st, t.value.body, vars([t.value.key, t.value.value]));
        this.term(st, t.value.key);
        this.term(st, t.value.value);
        st.scopes.pop();
        return;
      default:
        forEachChildTerm(t, (x) => this.term(st, x));
    }
  }

  assignTarget(st: Stack, t: Term, e: Expr): void {
    if (t.type === 'var') this.declare(st, t.value, 'assigned', t.location ?? e.location, e);
    else if (t.type === 'array') for (const x of t.value) this.assignTarget(st, x, e);
    else if (t.type === 'object') for (const [, x] of t.value) this.assignTarget(st, x, e);
    else if (isRoot(t)) this.declare(st, ((t as { value: Term[] }).value[0] as { value: string }).value, 'assigned', t.location ?? e.location, e);
    else this.errors.push(compileError('rego_compile_error', `cannot assign to ${t.type}`, t.location ?? e.location));
  }

  expr(st: Stack, e: Expr): void {
    const t = e.terms;
    if (isSome(t)) {
      for (const sym of t.symbols) {
        if (sym.type === 'var') {
          if (!wildcard(sym.value)) this.declare(st, sym.value, 'declared', t.location ?? e.location, e);
        } else if (sym.type === 'call') {
          const args = sym.value.slice(1);
          const container = args[args.length - 1]!;
          const inContainer = new Set(vars([container]));
          // what the patterns declare (a ref in a pattern, `x.a`, only reads x)
          const outs: string[] = [];
          for (const a of args.slice(0, -1))
            forEachPatternVar(a, (n) => {
              if (!inContainer.has(n) && !wildcard(n)) outs.push(n);
            });
          for (const n of [...new Set(outs)].sort()) this.declare(st, n, 'declared', t.location ?? e.location, e);
          for (const a of args) this.term(st, a);
        }
      }
      return;
    }
    if (isEvery(t)) {
      this.term(st, t.domain);
      st.scopes.push(newScope());
      for (const kv of [t.key, t.value]) if (kv?.type === 'var' && !wildcard(kv.value)) this.declare(st, kv.value, 'declared', t.location ?? e.location, e);
      this.body(st, t.body, []);
      st.scopes.pop();
      return;
    }
    if (Array.isArray(t) && t.length === 3 && refName(t[0]!) === 'assign') {
      if (e.negated) {
        this.errors.push(compileError('rego_compile_error', 'cannot assign vars inside negated expression', e.location));
        return;
      }
      this.term(st, t[2]!);
      for (const w of e.with ?? []) this.term(st, w.value);
      this.assignTarget(st, t[1]!, e);
      return;
    }
    if (Array.isArray(t)) for (const x of t) this.term(st, x);
    else this.term(st, t as Term);
    for (const w of e.with ?? []) {
      this.term(st, w.target);
      this.term(st, w.value);
    }
  }

  /** One body (a scope already pushed by the caller); `used` are head/comprehension-term vars. */
  body(st: Stack, body: Body, used: string[]): void {
    const before = this.errors.length;
    for (const e of body) this.expr(st, e);
    if (this.errors.length > before) return;
    const top = st.top;
    const usedSet = new Set(used);
    if (this.strict) {
      for (const n of top.order)
        if (top.occ.get(n) === 'assigned' && !wildcard(n) && st.count(n) <= 1 && !usedSet.has(n))
          this.errors.push(compileError('rego_compile_error', `assigned var ${n} unused`, (top.at.get(n) ?? body[0])?.location));
    }
    for (const n of top.order)
      if (top.occ.get(n) === 'declared' && st.count(n) <= 1 && !usedSet.has(n) && !generated(n))
        this.errors.push(compileError('rego_compile_error', `declared var ${n} unused`, (top.at.get(n) ?? body[0])?.location));
  }
}

function vars(ts: Term[]): string[] {
  const out: string[] = [];
  for (const t of ts) forEachVarShallow(t, (n) => out.push(n));
  return out;
}

/** Vars the head mentions outside its name (they count as uses of body vars). */
function headVars(r: Rule): string[] {
  const h = r.head;
  return vars([...h.ref.slice(1), ...(h.key ? [h.key] : []), ...(h.value ? [h.value] : [])]);
}

/** Calls `f` with each comprehension in `t` that is not inside another one. */
function outerComprehensions(t: Term, f: (c: Term) => void): void {
  if (isClosure(t)) f(t);
  else forEachChildTerm(t, (x) => outerComprehensions(x, f));
}

/**
 * A comprehension in a rule head is checked on its own, before the body, with nothing
 * declared around it (OPA rewrites head comprehensions first, each with a fresh stack).
 */
function checkHead(c: Checker, r: Rule): void {
  const h = r.head;
  for (const t of [...h.ref.slice(1), ...(h.args ?? []), ...(h.key ? [h.key] : []), ...(h.value ? [h.value] : [])])
    outerComprehensions(t, (comp) => c.term(new Stack(), comp));
}

/** Checks a query body as OPA's query compiler does: one fresh scope, nothing declared. */
export function checkQueryDeclarations(body: Body, strict: boolean): RegoErrorDetail[] {
  const c = new Checker(strict);
  c.body(new Stack(), body, []);
  return c.errors;
}

/** Checks one rule (with its else chain); returns OPA's errors in its order. */
export function checkDeclarations(rule: Rule, strict: boolean): RegoErrorDetail[] {
  const c = new Checker(strict);
  for (let r: Rule | undefined = rule; r; r = r.else) checkHead(c, r);
  if (c.errors.length) return c.errors;
  const args = new Stack();
  const argNames: string[] = [];
  for (const a of rule.head.args ?? [])
    forEachVarShallow(a, (n) => {
      if (args.top.occ.has(n)) args.seen(n);
      else {
        args.insert(n, 'arg');
        argNames.push(n);
      }
    });
  const unusedArgs = new Set(argNames.filter((n) => args.count(n) <= 1));
  for (let r: Rule | undefined = rule; r; r = r.else) {
    const st = new Stack();
    const base = st.top;
    for (const [n, o] of args.top.occ) base.occ.set(n, o);
    for (const [n, k] of args.top.count) base.count.set(n, k);
    const hv = headVars(r);
    for (const n of hv) unusedArgs.delete(n);
    c.body(st, r.body, hv);
    if (c.errors.length) return c.errors;
    for (const n of [...unusedArgs]) if (st.count(n) > 1) unusedArgs.delete(n);
  }
  if (strict)
    for (const n of unusedArgs)
      if (!wildcard(n)) c.errors.push(compileError('rego_compile_error', `unused argument ${n}. (hint: use _ (wildcard variable) instead)`, rule.head.location ?? rule.location));
  return c.errors;
}
