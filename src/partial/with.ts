// `with` in partial evaluation. An expression whose `with` touches no unknown is run by the
// evaluator itself (documents and functions are read under the replacement). Otherwise:
//
// - `with input.<path> as <known value>`: the expression is partially evaluated with that
//   part of the input known. Its solutions are collected first; if anything under the
//   replacement cannot be said without it (a support rule, a nested kept `with`), the
//   expression is kept whole instead.
// - everything else (`with data...`, function and built-in mocks, values that depend on the
//   unknowns, and the case above when it cannot be inlined): the expression is kept whole,
//   as OPA keeps it (saveExprMarkUnknowns): its `with` stays on it, bound variables are
//   plugged in, and variables it binds become residual variables. The residual then reads
//   the policy's own rules under the same replacements, so it means what the query means.
//   A symbolic value plugged into the expression (`input.a`, bound by copy propagation) is
//   bound outside it first (`__pN__ = input.a`) when the `with` replaces that root: it was
//   read before the replacement, and must still be.

import type { Expr, Term, With } from '../lang/ast.js';
import { ARGS_ONLY, everyChildTerm, mapChildTerms } from '../lang/visit.js';
import { isEvery, isSome, refName } from '../compiler/terms.js';
import { walkExpr, walkTerm } from '../compiler/walk.js';
import { builtinIn } from '../eval/builtins/index.js';
import { EvalCtx } from '../eval/context.js';
import { QueryPlan } from '../eval/query.js';
import { RSet, type Value } from '../value/index.js';
import { iterate, lookup as collGet } from '../value/collections.js';
import { rootPath } from './dependence.js';
import { PartialError, type Frame0, type K, type PartialEvaluator, type Scope } from './evaluator.js';
import { bind, lookup, type State } from './state.js';
import { callExpr, extendRef, isKnown, known, opRef, residualIndex, valueTerm, type PT } from './terms.js';

/** `v` with the document at `path` replaced (objects along the way created as needed). */
function setPath(v: Value | undefined, path: string[], value: Value): Value {
  if (!path.length) return value;
  const [head, ...rest] = path;
  const base: Record<string, Value> = v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RSet) && Object.getPrototypeOf(v) === Object.prototype ? { ...(v as Record<string, Value>) } : {};
  base[head!] = setPath(base[head!], rest, value);
  return base;
}

export function withExpr(pe: PartialEvaluator, e0: Expr, fr: Frame0, st: State, k: K): void {
  // a replacement the expression cannot reach changes nothing (the compiler gives `not f(x)`'s
  // argument its own expression, `with` and all)
  const ws = reachable(pe, e0);
  if (!ws.length) return pe.expr({ ...e0, with: undefined }, fr, st, k);
  const e: Expr = ws.length === e0.with!.length ? e0 : { ...e0, with: ws };
  if (!touches(pe, e, fr, st, true)) {
    // only variables are plugged: documents and functions are read under the `with`
    const r = plug(pe, e, fr, st, 'vars');
    return evaluateWhole(pe, r.e, fr, r.st, k);
  }
  const targets = inputTargets(e.with!);
  if (!targets || e.with!.some((w) => touches(pe, { index: 0, terms: w.value }, fr, st, false))) return keepWhole(pe, e, fr, st, k);
  pe.args(e.with!.map((w) => w.value), fr, st, (vals, s) => {
    if (!vals.every(isKnown)) return keepWhole(pe, e, fr, st, k);
    const overrides = targets.map((path, i) => ({ path, value: (vals[i] as { v: Value }).v }));
    const outer = pe.scope;
    const found: State[] = [];
    pe.scope = scoped(pe, overrides);
    try {
      pe.expr({ ...e, with: undefined }, fr, s, (s2) => void found.push(s2));
    } catch (err) {
      if (!(err instanceof PartialError)) throw err;
      pe.scope = outer;
      return keepWhole(pe, e, fr, st, k);
    } finally {
      pe.scope = outer;
    }
    for (const s2 of found) k(s2);
  });
}

/**
 * The `with` modifiers the expression may see: one replacing input, data, a function or a
 * built-in the expression reads or calls (any data it reads may read or call the rest).
 * A value that could be undefined is kept (it would make the expression undefined).
 */
function reachable(pe: PartialEvaluator, e: Expr): With[] {
  let input = false;
  let data = false;
  const calls = new Set<string>();
  const root = (t: Term) => {
    const p = t.type === 'ref' || t.type === 'var' ? rootPath(t) : undefined;
    if (p?.[0] === 'input') input = true;
    if (p?.[0] === 'data') data = true;
  };
  walkExpr(
    { ...e, with: undefined },
    {
      term: root,
      call: (op) => {
        root(op);
        const n = refName(op);
        if (n) calls.add(n);
      },
    },
  );
  return e.with!.filter((w) => {
    const p = rootPath(w.target);
    const fn = p?.[0] === 'data' && !!pe.policy.root.find(p.slice(1))?.isFunction;
    if (!alwaysDefined(pe, w.value, fn || p?.[0] !== 'data' && p?.[0] !== 'input')) return true;
    if (p?.[0] === 'input') return input || data;
    if (p?.[0] === 'data' && !fn) return data;
    return data || calls.has(refName(w.target) ?? '');
  });
}

/** A term that always has a value: scalars, (bound) variables, composites of those, and a mock's function. */
function alwaysDefined(pe: PartialEvaluator, t: Term, mock: boolean): boolean {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true;
    case 'var':
      return t.value !== 'input' && t.value !== 'data' ? true : false;
    case 'array':
    case 'set':
    case 'object':
      return everyChildTerm(t, (x) => alwaysDefined(pe, x, false));
    case 'ref': {
      if (!mock) return false;
      const p = rootPath(t);
      if (p?.[0] === 'data') return p.length === t.value.length && !!pe.policy.root.find(p.slice(1))?.isFunction;
      const n = refName(t);
      return !!n && !!builtinIn(pe.policy.root, n);
    }
    default:
      return false;
  }
}

/** The input paths a `with` replaces, when it replaces nothing but constant input paths. */
function inputTargets(ws: With[]): string[][] | undefined {
  const out: string[][] = [];
  for (const w of ws) {
    const p = rootPath(w.target);
    if (!p || p[0] !== 'input' || p.length !== (w.target.type === 'ref' ? w.target.value.length : 1)) return undefined;
    out.push(p.slice(1));
  }
  return out;
}

/** Whether the expression reads anything that depends on the unknowns (or replaces an unknown). */
function touches(pe: PartialEvaluator, e: Expr, fr: Frame0, st: State, targets: boolean): boolean {
  let t = false;
  walkExpr(e, pe.dep.visitor((n) => (t ||= pe.dep.touches(n)), () => (t = true)));
  walkExpr(e, {
    term: (x) => {
      if (x.type !== 'var') return;
      const b = lookup(st, `${fr.id}:${x.value}`);
      if (b !== undefined && !isKnown(b)) t = true;
    },
  });
  if (targets)
    for (const w of e.with ?? []) {
      const p = rootPath(w.target);
      if (p && pe.o.unknowns.overlaps(p)) t = true;
    }
  return t;
}

/**
 * Saves the expression as written, `with` included: bound variables plugged, unbound ones
 * made residual variables (wildcards under `not` stay wildcards).
 */
function keepWhole(pe: PartialEvaluator, e: Expr, fr: Frame0, st: State, k: K): void {
  if (pe.scope.depth > 0) throw new PartialError('partial evaluation cannot keep a `with` expression under another `with` replacing the input', e.location);
  if (isSome(e.terms)) throw new PartialError('partial evaluation cannot keep `some ... with` over unknowns', e.location);
  const r = plug(pe, e, fr, st, 'whole');
  // the policy's rules it reads see the input known now, not whatever the reader has then
  const pins = knownInput(pe, r.e);
  if (pins.length) r.e.with = [...pins, ...(r.e.with ?? [])];
  // `x := ...` read back beside the rest of the residual is a unification of a fresh variable
  const t = r.e.terms;
  if (Array.isArray(t) && refName(t[0]!) === 'assign') r.e.terms = [opRef('eq'), ...t.slice(1)];
  k(pe.saveAt(r.st, r.e));
}

/**
 * A `with` expression inside a construct kept whole (a comprehension or `every` over the
 * unknowns): plugged as a kept expression is, its locals left as they are. Documents and
 * functions stay the policy's own: read under the replacement, their known values or
 * support rules (made without it) would not be what it reads.
 */
export function plugWithExpr(pe: PartialEvaluator, e: Expr, fr: Frame0, st: State, set: (s: State) => void, local?: (x: Term & { type: 'var' }) => Term): Expr {
  const r = plug(pe, e, fr, st, 'closure', local);
  const pins = knownInput(pe, r.e);
  if (pins.length) r.e.with = [...pins, ...(r.e.with ?? [])];
  set(r.st);
  return r.e;
}

/**
 * `with input.<path> as <value>` for each part of the input known now (none over an unknown),
 * when the expression reads the input or any data. They come first: the expression's own
 * replacements of the input still apply over them.
 */
function knownInput(pe: PartialEvaluator, e: Expr): With[] {
  const v0 = pe.o.input;
  if (v0 === undefined) return [];
  let reads = false;
  const root = (t: Term) => {
    const p = t.type === 'ref' || t.type === 'var' ? rootPath(t) : undefined;
    if (p?.[0] === 'input' || p?.[0] === 'data') reads = true;
  };
  walkExpr({ ...e, with: undefined }, { term: root, call: root });
  if (!reads) return [];
  const out: With[] = [];
  const visit = (v: Value, path: string[]): void => {
    const full = ['input', ...path];
    if (pe.o.unknowns.covers(full)) return;
    if (!pe.o.unknowns.below(full)) {
      const target: Term = path.length ? { type: 'ref', value: [{ type: 'var', value: 'input' }, ...path.map((x): Term => ({ type: 'string', value: x }))] } : { type: 'var', value: 'input' };
      out.push({ target, value: valueTerm(v) });
      return;
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof RSet) return;
    iterate(v, (key, child) => {
      if (typeof key === 'string') visit(child, [...path, key]);
      return false;
    });
  };
  visit(v0, []);
  // a part the expression replaces itself needs no pin
  const own = (e.with ?? []).map((w) => rootPath(w.target)).filter((p): p is string[] => p?.[0] === 'input');
  return out.filter((w) => {
    const p = rootPath(w.target)!;
    return !own.some((o) => o.length <= p.length && o.every((x, i) => x === p[i]));
  });
}

/** A ref into the input known now, as its value (a `with` value is read before any replacement). */
function knownRef(pe: PartialEvaluator, x: Term): Term | undefined {
  const p = rootPath(x);
  if (p?.[0] !== 'input' || pe.o.input === undefined || pe.o.unknowns.overlaps(p)) return undefined;
  let v: Value | undefined = pe.o.input;
  for (const seg of p.slice(1)) v = v === undefined ? undefined : collGet(v, seg);
  if (v === undefined) return undefined;
  return extendRef(valueTerm(v), (x as Term & { type: 'ref' }).value.slice(p.length));
}

/** Runs an expression that does not depend on the unknowns with the evaluator itself. */
function evaluateWhole(pe: PartialEvaluator, whole: Expr, fr: Frame0, st: State, k: K): void {
  const cq = pe.policy.compileQuery([{ ...whole, index: 0 }]);
  const plan = new QueryPlan(pe.policy, cq, [whole]);
  for (const r of plan.run({ input: pe.scope.input, data: pe.o.data })) {
    // a query answers a false expression with the value false: as a body, it fails
    if (r.expressions.some((x) => x.value === false)) continue;
    const run = (names: string[], s: State): void => {
      if (!names.length) return k(s);
      const [n, ...rest] = names;
      pe.unifyWith({ type: 'var', value: n! }, known(r.bindings.get(n!)!), fr, s, (s2) => run(rest, s2));
    };
    run([...r.bindings.keys()], st);
  }
}

/** The input with `with` replacements applied, and an evaluator context that reads it. */
function scoped(pe: PartialEvaluator, overrides: { path: string[]; value: Value }[]): Scope {
  let input: Value | undefined = pe.scope.input;
  for (const o of overrides) input = setPath(input, o.path, o.value);
  const ev = new EvalCtx(pe.scope.ev.q, input, pe.o.data, null, null, null);
  return { input, ev, docs: new Map(), overrides: [...pe.scope.overrides, ...overrides], depth: pe.scope.depth + 1 };
}

/**
 * The expression with its bound variables plugged in. 'vars': unbound variables are left
 * as they are (the evaluator binds them). 'whole': unbound variables outside closures become
 * fresh residual variables, and symbolic values under a replaced root are bound outside.
 */
function plug(pe: PartialEvaluator, e: Expr, fr: Frame0, st: State, mode: 'vars' | 'whole' | 'closure', local?: (x: Term & { type: 'var' }) => Term): { e: Expr; st: State } {
  let s = st;
  const roots = new Set<string>();
  for (const w of e.with ?? []) {
    const r = rootPath(w.target)?.[0];
    if (r === 'input' || r === 'data') roots.add(r);
  }
  const underReplaced = (t: Term): boolean => {
    let hit = false;
    walkTerm(t, {
      term: (x) => {
        if (x.type === 'var' && roots.has(x.value)) hit = true;
        const p = x.type === 'ref' ? rootPath(x) : undefined;
        if (p && roots.has(p[0]!)) hit = true;
      },
    });
    return hit;
  };
  const value = (b: PT, replaced: boolean): Term => {
    if (isKnown(b)) return valueTerm(b.v);
    const r = pe.plugged(b, s);
    s = r.st;
    if (!replaced || residualIndex(r.t) !== undefined || !underReplaced(r.t)) return r.t;
    const v = pe.freshVar();
    s = pe.saveAt(s, callExpr('eq', [v, r.t]));
    return v;
  };
  // replaced: whether the term is read under the replacement (not a `with` value)
  const walk = (x: Term, closure: boolean, replaced: boolean): Term => {
    switch (x.type) {
      case 'var': {
        if (x.value === 'input' || x.value === 'data') return x;
        const key = `${fr.id}:${x.value}`;
        const b = lookup(s, key);
        if (b !== undefined) return value(b, replaced);
        if (mode === 'vars') return x;
        // a construct's own variable: the caller names it (see plugWithExpr)
        if (mode === 'closure' || closure) return local ? local(x) : x;
        if (e.negated) return x.value.startsWith('$') ? { type: 'var', value: '_' } : x;
        const v = pe.freshVar();
        s = bind(s, key, v);
        return v;
      }
      case 'ref': {
        const head = x.value[0]!;
        const rest = x.value.slice(1).map((y) => walk(y, closure, replaced));
        if (head.type === 'var' && (head.value === 'input' || head.value === 'data')) {
          const r: Term = { ...x, value: [head, ...rest] };
          return (mode !== 'vars' && !replaced && knownRef(pe, r)) || r;
        }
        return extendRef(walk(head, closure, replaced), rest);
      }
      case 'arraycomprehension':
      case 'setcomprehension':
        return { ...x, value: { term: walk(x.value.term, true, replaced), body: x.value.body.map((b) => expr(b, true, replaced)) } } as Term;
      case 'objectcomprehension':
        return { ...x, value: { key: walk(x.value.key, true, replaced), value: walk(x.value.value, true, replaced), body: x.value.body.map((b) => expr(b, true, replaced)) } };
      default:
        return mapChildTerms(x, (y) => walk(y, closure, replaced), ARGS_ONLY);
    }
  };
  const expr = (x: Expr, closure: boolean, replaced: boolean): Expr => {
    const t = x.terms;
    const out: Expr = { ...x };
    if (isEvery(t)) out.terms = { ...t, domain: walk(t.domain, closure, replaced), body: t.body.map((b) => expr(b, true, replaced)) };
    else if (isSome(t)) out.terms = { ...t, symbols: t.symbols.map((y) => walk(y, closure, replaced)) };
    else if (Array.isArray(t)) out.terms = t.map((y, i) => (i === 0 ? y : walk(y, closure, replaced)));
    else out.terms = walk(t as Term, closure, replaced);
    // a `with` value is read before its replacement (and before an enclosing one, too)
    if (x.with) out.with = x.with.map((w) => ({ ...w, value: walk(w.value, closure, replaced && x !== e) }));
    return out;
  };
  const out = expr(e, false, mode !== 'vars' && roots.size > 0);
  out.index = 0;
  return { e: out, st: s };
}
