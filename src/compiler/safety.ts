// Safety and ordering, as OPA does it: an expression may run once the variables it reads
// are bound; the body is reordered so that each expression comes after those binding its
// inputs, and a variable no expression can bind is reported as rego_unsafe_var_error.
// Runs after locals.ts, so every local has a unique name.

import type { Body, Expr, Location, RegoErrorDetail, Term } from '../lang/ast.js';
import { ARGS_ONLY, everyChildTerm } from '../lang/visit.js';
import { compileError } from './errors.js';
import { forEachVarDeep, forEachVarShallow, isEvery, isSome, refName, bodyVarsDeep } from './terms.js';

/** How many inputs a call takes (outputs beyond that are bound by the call), or undefined if unknown. */
export type ArityOf = (op: Term) => number | undefined;

export interface SafetyCtx {
  arityOf: ArityOf;
  errors: RegoErrorDetail[];
  /** unique name -> name as written */
  original: Map<string, string>;
}

const GLOBAL = new Set(['input', 'data']);

/** Adds to `out` the vars a term binds when evaluated; false if it reads an unbound var. */
function evalable(t: Term, bound: Set<string>, out: Set<string>): boolean {
  switch (t.type) {
    case 'var':
      return GLOBAL.has(t.value) || bound.has(t.value) || out.has(t.value);
    case 'ref': {
      const [head, ...rest] = t.value;
      if (!head || !evalable(head, bound, out)) return false;
      for (const k of rest) {
        if (k.type === 'var') {
          if (!bound.has(k.value)) out.add(k.value);
        } else if (!evalable(k, bound, out) && !patternVars(k, bound, out)) return false;
      }
      return true;
    }
    case 'arraycomprehension':
    case 'setcomprehension':
    case 'objectcomprehension':
      // captured vars (those of enclosing scopes) must be bound first
      return capturedBound(t, bound, out);
    default:
      return everyChildTerm(t, (x) => evalable(x, bound, out), ARGS_ONLY);
  }
}

let scopeNames: Set<string> = new Set();

function capturedBound(t: Term, bound: Set<string>, out: Set<string>): boolean {
  let ok = true;
  forEachVarDeep(t, (n) => {
    if (scopeNames.has(n) && !bound.has(n) && !out.has(n)) ok = false;
  });
  return ok;
}

/** Pattern positions bind unbound vars; anything else inside must be evaluable. */
function patternVars(t: Term, bound: Set<string>, out: Set<string>): boolean {
  switch (t.type) {
    case 'var':
      if (!GLOBAL.has(t.value) && !bound.has(t.value)) out.add(t.value);
      return true;
    case 'array':
      return t.value.every((x) => patternVars(x, bound, out));
    case 'object':
      return t.value.every(([k, x]) => evalable(k, bound, out) && patternVars(x, bound, out));
    default:
      return evalable(t, bound, out);
  }
}

function unifyVars(a: Term, b: Term, bound: Set<string>, out: Set<string>): boolean {
  const tryOrder = (x: Term, y: Term): boolean => {
    const o = new Set(out);
    if (!evalable(y, bound, o)) return false;
    if (!patternVars(x, bound, o)) return false;
    for (const n of o) out.add(n);
    return true;
  };
  if (tryOrder(a, b) || tryOrder(b, a)) return true;
  if (a.type === 'array' && b.type === 'array' && a.value.length === b.value.length) {
    const o = new Set(out);
    // element-wise: retry until no progress, as each element may bind vars others need
    const pending = a.value.map((x, i) => [x, b.value[i]!] as const);
    let progress = true;
    while (pending.length && progress) {
      progress = false;
      for (let i = 0; i < pending.length; i++) {
        const [x, y] = pending[i]!;
        const bb = new Set([...bound, ...o]);
        if (unifyVars(x, y, bb, o)) {
          pending.splice(i--, 1);
          progress = true;
        }
      }
    }
    if (pending.length) return false;
    for (const n of o) out.add(n);
    return true;
  }
  if (a.type === 'object' && b.type === 'object' && a.value.length === b.value.length) {
    const o = new Set(out);
    for (const [k, x] of a.value) {
      const m = b.value.find(([k2]) => JSON.stringify(stripLoc(k2)) === JSON.stringify(stripLoc(k)));
      if (!m) return false;
      const bb = new Set([...bound, ...o]);
      if (!unifyVars(x, m[1], bb, o)) return false;
    }
    for (const n of o) out.add(n);
    return true;
  }
  return false;
}

function stripLoc(t: Term): unknown {
  return JSON.parse(JSON.stringify(t, (k, x) => (k === 'location' ? undefined : x)));
}

/** The vars an expression binds if it can run now, else undefined. */
export function exprOutputs(e: Expr, bound: Set<string>, arityOf: ArityOf): Set<string> | undefined {
  const out = new Set<string>();
  for (const w of e.with ?? []) if (arityOf(w.value) === undefined && !evalable(w.value, bound, out)) return undefined;
  const t = e.terms;
  let ok: boolean;
  if (isSome(t)) {
    ok = true;
    for (const sym of t.symbols) {
      if (sym.type !== 'call') continue;
      const args = sym.value.slice(1);
      const coll = args[args.length - 1]!;
      ok = evalable(coll, bound, out) && args.slice(0, -1).every((x) => patternVars(x, bound, out));
    }
  } else if (isEvery(t)) {
    ok = evalable(t.domain, bound, out);
    if (ok) {
      // vars of enclosing scopes used in the body must be bound
      bodyVarsDeep(t.body, (n) => {
        if (scopeNames.has(n) && !bound.has(n) && !out.has(n)) ok = false;
      });
    }
    out.clear();
  } else if (Array.isArray(t)) {
    const op = refName(t[0]!);
    const args = t.slice(1);
    if ((op === 'eq' || op === 'assign') && args.length === 2) ok = unifyVars(args[0]!, args[1]!, bound, out);
    else {
      const n = arityOf(t[0]!);
      if (n !== undefined && args.length === n + 1) {
        ok = args.slice(0, n).every((x) => evalable(x, bound, out)) && patternVars(args[n]!, bound, out);
      } else ok = args.every((x) => evalable(x, bound, out));
    }
  } else ok = evalable(t as Term, bound, out);
  if (!ok) return undefined;
  if (e.negated) {
    // a negated expression binds nothing outside; its non-wildcard vars must be bound
    for (const n of out) if (!n.startsWith('$') && scopeNames.has(n)) return undefined;
    return new Set();
  }
  return out;
}

function exprVars(e: Expr): Set<string> {
  const vs = new Set<string>();
  const t = e.terms;
  const add = (n: string) => {
    if (!GLOBAL.has(n)) vs.add(n);
  };
  if (isEvery(t)) forEachVarShallow(t.domain, add);
  else if (isSome(t)) {
    for (const sym of t.symbols) if (sym.type === 'call') for (const a of sym.value.slice(1)) forEachVarShallow(a, add);
  } else if (Array.isArray(t)) for (const x of t.slice(1)) forEachVarShallow(x, add);
  else forEachVarShallow(t as Term, add);
  for (const w of e.with ?? []) forEachVarShallow(w.value, add);
  return vs;
}

/**
 * Reorders `body` so each expression runs after the ones binding its inputs. `bound` holds
 * the vars bound on entry (function args, captured vars). `names` are the names of this and
 * enclosing scopes (vars of nested bodies in this set are captured, not local).
 * Returns the new body and the set of vars bound after it.
 */
export function reorderBody(body: Body, bound: Set<string>, names: Set<string>, ctx: SafetyCtx, loc?: Location): { body: Body; bound: Set<string> } {
  const saved = scopeNames;
  scopeNames = names;
  try {
    const b = new Set(bound);
    const pending = body.slice();
    const out: Body = [];
    while (pending.length) {
      let picked = -1;
      for (let i = 0; i < pending.length; i++) {
        const o = exprOutputs(pending[i]!, b, ctx.arityOf);
        if (o) {
          for (const n of o) b.add(n);
          picked = i;
          break;
        }
      }
      if (picked < 0) break;
      out.push(pending.splice(picked, 1)[0]!);
    }
    if (pending.length) {
      const reported = new Set<string>();
      for (const e of pending) {
        const vs = [...exprVars(e)].filter((n) => !b.has(n)).sort();
        for (const n of vs) {
          if (reported.has(n)) continue;
          reported.add(n);
          ctx.errors.push(compileError('rego_unsafe_var_error', `var ${displayName(n, ctx.original)} is unsafe`, e.location ?? loc));
        }
        if (vs.length === 0 && e.negated) {
          // unsafe only through its negation: report its unbound vars
          const inner = new Set<string>();
          for (const x of exprVars(e)) if (!b.has(x)) inner.add(x);
          for (const n of inner) if (!reported.has(n)) {
            reported.add(n);
            ctx.errors.push(compileError('rego_unsafe_var_error', `var ${displayName(n, ctx.original)} is unsafe`, e.location ?? loc));
          }
        }
      }
      out.push(...pending);
    }
    return { body: out, bound: b };
  } finally {
    scopeNames = saved;
  }
}

export function displayName(n: string, original: Map<string, string>): string {
  const o = original.get(n) ?? n.replace(/#\d+$/, '');
  return o.startsWith('$') ? '_' : o;
}

/** All vars of a body's own expressions (not nested bodies). */
export function shallowBodyVars(body: Body): Set<string> {
  const s = new Set<string>();
  for (const e of body) for (const n of exprVars(e)) s.add(n);
  return s;
}

export { forEachVarDeep };

/** Vars of a head term that stay unbound after the body (ref iteration vars are fine). */
export function unsafeHeadVars(t: Term, bound: Set<string>): string[] {
  const saved = scopeNames;
  scopeNames = new Set();
  try {
    const out = new Set<string>();
    if (evalable(t, bound, out)) return [];
    const bad: string[] = [];
    forEachVarShallow(t, (n) => {
      if (!GLOBAL.has(n) && !bound.has(n) && !out.has(n) && !bad.includes(n)) bad.push(n);
    });
    return bad;
  } finally {
    scopeNames = saved;
  }
}
