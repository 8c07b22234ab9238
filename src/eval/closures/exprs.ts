// Compiles body expressions into a chain of Steps. Each expression receives the step
// that runs the rest of the body; backtracking is the return from that call.

import type { Body, Every, Expr, SomeDecl, Term } from '../../lang/ast.js';
import { forEachVarShallow, isEvery, isSome, refName } from '../../compiler/terms.js';
import { builtinIn } from '../builtins/registry.js';
import { member2 } from '../builtins/internal.js';
import type { Frame } from '../context.js';
import { isCollection, iterateAnyOrder } from '../../value/collections.js';
import { compare, compareStrings, equal, RSet, toRegoString, type Value } from '../../value/index.js';
import { callWith, resolveCallee } from './calls.js';
import type { PlanCtx } from './ctx.js';
import { compileTerm, constValue, isPattern, valueKey } from './terms.js';
import { STOP, type Step, type TermC } from './types.js';
import { compileWith } from './with.js';
import { iterationFor } from './order.js';
import { traceChildBody, traceExpr } from '../trace/plan.js';
import { inlineCall } from './inline.js';
import { codegenOn, TestRun, withoutCodegen } from './codegen.js';
import { indexedSome } from './ground-index.js';
import { lazySetMembers } from './lazy-set.js';
import type { RuleNode } from '../../compiler/tree.js';

/** Vars an expression leaves bound when it succeeds. */
export function exprBinds(e: Expr): string[] {
  if (e.negated) return [];
  const t = e.terms;
  const out: string[] = [];
  const add = (n: string) => out.push(n);
  if (isEvery(t)) return [];
  if (isSome(t)) {
    for (const s of t.symbols) if (s.type === 'call') for (const a of s.value.slice(1)) forEachVarShallow(a, add);
    return out;
  }
  if (Array.isArray(t)) for (const x of t.slice(1)) forEachVarShallow(x, add);
  else forEachVarShallow(t as Term, add);
  return out;
}

export interface ExprOpts {
  /** Slot receiving the expression's value (queries report it). */
  valueSlot?: number;
  /**
   * The expression yields its value even when false: a term's value, or a call's output
   * (queries capture values, as OPA does; see eval/query-capture.ts).
   */
  capture?: boolean;
}

export function compileBody(body: Body, pc: PlanCtx, tail: Step, opts?: (e: Expr, i: number) => ExprOpts | undefined): { step: Step; bound: Set<string> } {
  const bounds: Set<string>[] = [];
  let b = new Set(pc.bound);
  for (const e of body) {
    bounds.push(b);
    b = new Set(b);
    for (const n of exprBinds(e)) b.add(n);
  }
  let next = tail;
  // consecutive expressions that only test, generated as one function (codegen.ts)
  let run: TestRun | undefined;
  for (let i = body.length - 1; i >= 0; i--) {
    const e = body[i]!;
    const saved = pc.bound;
    pc.bound = bounds[i]!;
    try {
      const o = opts?.(e, i);
      let generated = false;
      if (o === undefined && codegenOn(pc)) {
        run ??= new TestRun(next);
        generated = run.prepend(e, pc);
      }
      if (!generated && run) {
        next = run.step(next);
        run = undefined;
      }
      // a generated expression's closures are its fallback: no runs generated inside them
      const plain = generated ? withoutCodegen(() => compileExpr(e, pc, next, o)) : compileExpr(e, pc, next, o);
      next = (i + 1 < body.length ? indexedSome(e, body[i + 1]!, pc, next, plain) : undefined) ?? plain;
    } finally {
      pc.bound = saved;
    }
  }
  if (run) next = run.step(next);
  return { step: next, bound: b };
}

export function compileExpr(e: Expr, pc: PlanCtx, next: Step, o?: ExprOpts): Step {
  // a bare `some x` declaration does nothing at run time, so it reports nothing either
  if (pc.traced && !(isSome(e.terms) && e.terms.symbols.every((s) => s.type !== 'call'))) {
    return traceExpr(e, pc, next, (k) => compileExprPlain(e, pc, k, o));
  }
  return compileExprPlain(e, pc, next, o);
}

function compileExprPlain(e: Expr, pc: PlanCtx, next: Step, o?: ExprOpts): Step {
  if (e.with && e.with.length) return compileWith(e, pc, next, (inner, k) => compileExprCore(inner, pc, k, o));
  return compileExprCore(e, pc, next, o);
}

function compileExprCore(e: Expr, pc: PlanCtx, next: Step, o?: ExprOpts): Step {
  if (e.negated) {
    const pos: Expr = { ...e, negated: false };
    let inner = compileExprCore(pos, pc, STOP);
    if (pc.traced) inner = traceChildBody([pos], pos.location?.text.replace(/^not\s+/, '') ?? '', e.location, traceExpr(pos, pc, STOP, (k) => compileExprCore(pos, pc, k)));
    const vs = o?.valueSlot;
    return (fr) => {
      if (inner(fr)) return false;
      if (vs === undefined) return next(fr);
      fr.slots[vs] = true;
      const r = next(fr);
      fr.slots[vs] = undefined;
      return r;
    };
  }
  const t = e.terms;
  if (isSome(t)) return compileSome(t, pc, next);
  if (isEvery(t)) return compileEvery(t, pc, next);
  if (Array.isArray(t)) return compileCallExpr(e, t, pc, next, o);
  const tc = compileTerm(t as Term, pc);
  return truthy(tc, next, o?.valueSlot, o?.capture);
}

function truthy(tc: TermC, next: Step, vs: number | undefined, capture = false): Step {
  if (tc.get) {
    const g = tc.get;
    if (vs === undefined && !capture)
      return (fr) => {
        const v = g(fr);
        return v === undefined || v === false ? false : next(fr);
      };
    // a query's expression (its value reported): read, no closure per evaluation
    if (vs !== undefined)
      return (fr) => {
        const v = g(fr);
        if (v === undefined || (v === false && !capture)) return false;
        fr.slots[vs] = v;
        const r = next(fr);
        fr.slots[vs] = undefined;
        return r;
      };
  }
  return (fr) =>
    tc.gen(fr, (v) => {
      if (v === false && !capture) return false;
      if (vs === undefined) return next(fr);
      fr.slots[vs] = v;
      const r = next(fr);
      fr.slots[vs] = undefined;
      return r;
    });
}

function withValue(next: Step, vs: number | undefined): Step {
  if (vs === undefined) return next;
  return (fr) => {
    fr.slots[vs] = true;
    const r = next(fr);
    fr.slots[vs] = undefined;
    return r;
  };
}

export function compileUnify(a: Term, b: Term, pc: PlanCtx, next: Step): Step {
  if (a.type === 'array' && b.type === 'array' && a.value.length === b.value.length && isPattern(a, pc) && isPattern(b, pc)) {
    let k = next;
    for (let i = a.value.length - 1; i >= 0; i--) k = compileUnify(a.value[i]!, b.value[i]!, pc, k);
    return k;
  }
  if (a.type === 'object' && b.type === 'object' && a.value.length === b.value.length && isPattern(a, pc) && isPattern(b, pc)) {
    const bk = new Map<string, Term>();
    for (const [k, x] of b.value) {
      const kv = constValue(k);
      if (kv !== undefined) bk.set(valueKey(kv), x);
    }
    const pairs: [Term, Term][] = [];
    for (const [k, x] of a.value) {
      const kv = constValue(k);
      const y = kv === undefined ? undefined : bk.get(valueKey(kv));
      if (y) pairs.push([x, y]);
    }
    if (pairs.length === a.value.length) {
      let k = next;
      for (let i = pairs.length - 1; i >= 0; i--) k = compileUnify(pairs[i]![0], pairs[i]![1], pc, k);
      return k;
    }
  }
  const ac = compileTerm(a, pc);
  const bc = compileTerm(b, pc);
  if (!ac.pattern && !bc.pattern) {
    if (ac.get && bc.get) {
      const ag = ac.get;
      const bg = bc.get;
      return (fr) => {
        const av = ag(fr);
        if (av === undefined) return false;
        const bv = bg(fr);
        return bv !== undefined && equal(av, bv) ? next(fr) : false;
      };
    }
    return (fr) => ac.gen(fr, (av) => bc.match(fr, av, next));
  }
  // `x := <single value>`: read the value, no closure per evaluation
  const bget = bc.get;
  if (ac.pattern && !bc.pattern && bget)
    return (fr) => {
      const bv = bget(fr);
      return bv === undefined ? false : ac.match(fr, bv, next);
    };
  const aget = ac.get;
  if (!ac.pattern && bc.pattern && aget)
    return (fr) => {
      const av = aget(fr);
      return av === undefined ? false : bc.match(fr, av, next);
    };
  if (ac.pattern && !bc.pattern) return (fr) => bc.gen(fr, (bv) => ac.match(fr, bv, next));
  if (!ac.pattern && bc.pattern) return (fr) => ac.gen(fr, (av) => bc.match(fr, av, next));
  return (fr) => {
    const av = ac.tryValue(fr);
    if (av !== undefined) return bc.match(fr, av, next);
    const bv = bc.tryValue(fr);
    if (bv !== undefined) return ac.match(fr, bv, next);
    return false;
  };
}

function compileCallExpr(e: Expr, t: Term[], pc: PlanCtx, next: Step, o?: ExprOpts): Step {
  const op = t[0]!;
  const args = t.slice(1);
  const name = refName(op);
  if ((name === 'eq' || name === 'assign') && args.length === 2) return compileUnify(args[0]!, args[1]!, pc, withValue(next, o?.valueSlot));
  if (name === 'print') return compilePrint(args, pc, withValue(next, o?.valueSlot));
  const callee = resolveCallee(op, pc, e.location);
  let n: number | undefined;
  let fn: RuleNode | undefined;
  if (op.type === 'ref' && op.value[0]?.type === 'var' && op.value[0].value === 'data') {
    const node = pc.root.find(op.value.slice(1).map((x) => (x.type === 'string' ? x.value : '')));
    n = node?.isFunction ? node.arity : undefined;
    if (node?.isFunction) fn = node;
  } else {
    const d = builtinIn(pc.root, name ?? '');
    n = d && !d.decl.variadic ? (d.decl.args?.length ?? 0) : undefined;
  }
  if (n !== undefined && args.length === n + 1) {
    const call = callWith(callee, args.slice(0, n).map((a) => compileTerm(a, pc)));
    const out = compileTerm(args[n]!, pc);
    const k2 = withValue(next, o?.valueSlot);
    return (fr) => call.gen(fr, (v) => out.match(fr, v, k2));
  }
  const argCs = args.map((a) => compileTerm(a, pc));
  const capture = o?.capture === true;
  const generic = truthy(callWith(callee, argCs), next, o?.valueSlot, capture);
  if (capture) return generic;
  if (fn !== undefined && args.length === n && o?.valueSlot === undefined) {
    const inlined = inlineCall(fn, callee.key, argCs, pc, next, generic);
    if (inlined) return inlined;
  }
  const test = name !== undefined && args.length === 2 ? COMPARISONS[name] : undefined;
  if (test !== undefined && argCs[0]!.get && argCs[1]!.get) {
    const k = withValue(next, o?.valueSlot);
    return equality(name!, argCs[0]!, argCs[1]!, k, generic) ?? compiledComparison(test, name!, argCs[0]!.get, argCs[1]!.get, k, generic);
  }
  return generic;
}

function isPrimitive(v: Value | undefined): v is string | number | boolean | null {
  return v === null || (v !== undefined && typeof v !== 'object');
}

/**
 * `x == "*"`, `x != 1`, `p == s`, `a.b == c.d`: equality against a constant scalar is
 * identity (a scalar equals only itself: numbers a double holds exactly are always JS
 * numbers), two variables are read from their slots, and `equal` is called only for two
 * objects. The rest of the body is not called when it is the end of a nested body.
 */
function equality(name: string, a: TermC, b: TermC, next: Step, generic: Step): Step | undefined {
  if (name !== 'equal' && name !== 'neq') return undefined;
  const eq = name === 'equal';
  const [c, other] = isPrimitive(b.constant) ? [b.constant, a] : isPrimitive(a.constant) ? [a.constant, b] : [undefined, undefined];
  const last = next === STOP;
  if (other !== undefined && !isPrimitive(other.constant)) {
    const g = other.get!;
    const s = other.slot;
    if (s !== undefined && eq && last)
      return (fr) => {
        const mocks = fr.ev.mocks;
        if (mocks !== null && mocks.has(name)) return generic(fr);
        return fr.slots[s] === c;
      };
    return (fr) => {
      const mocks = fr.ev.mocks;
      if (mocks !== null && mocks.has(name)) return generic(fr);
      const v = s !== undefined ? fr.slots[s] : g(fr);
      if (v === undefined) return false;
      return (v === c) === eq ? next(fr) : false;
    };
  }
  const sa = a.slot;
  const sb = b.slot;
  if (sa !== undefined && sb !== undefined && last)
    return (fr) => {
      const mocks = fr.ev.mocks;
      if (mocks !== null && mocks.has(name)) return generic(fr);
      const x = fr.slots[sa];
      if (x === undefined) return false;
      const y = fr.slots[sb];
      if (y === undefined) return false;
      return (x === y || (typeof x === 'object' && typeof y === 'object' && equal(x, y))) === eq;
    };
  if (sa !== undefined && sb !== undefined)
    return (fr) => {
      const mocks = fr.ev.mocks;
      if (mocks !== null && mocks.has(name)) return generic(fr);
      const x = fr.slots[sa];
      if (x === undefined) return false;
      const y = fr.slots[sb];
      if (y === undefined) return false;
      return (x === y || (typeof x === 'object' && typeof y === 'object' && equal(x, y))) === eq ? next(fr) : false;
    };
  // any two single values: the test written out here, not called through a shared table
  const ga = a.get!;
  const gb = b.get!;
  return (fr) => {
    const mocks = fr.ev.mocks;
    if (mocks !== null && mocks.has(name)) return generic(fr);
    const x = ga(fr);
    if (x === undefined) return false;
    const y = gb(fr);
    if (y === undefined) return false;
    return (x === y || (typeof x === 'object' && typeof y === 'object' && equal(x, y))) === eq ? next(fr) : false;
  };
}

// Numbers and strings are the common operands: compare them without the generic path.
function cmp(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return compare(a, b);
}

/** The comparison built-ins (as in builtins/comparison.ts) and `in`: they never fail on values. */
const COMPARISONS: Record<string, (a: Value, b: Value) => boolean> = {
  __proto__: null as never,
  // only two objects (arrays, sets, objects, big numbers) can be equal without being identical
  equal: (a, b) => a === b || (typeof a === 'object' && typeof b === 'object' && equal(a, b)),
  neq: (a, b) => a !== b && !(typeof a === 'object' && typeof b === 'object' && equal(a, b)),
  lt: (a, b) => cmp(a, b) < 0,
  lte: (a, b) => cmp(a, b) <= 0,
  gt: (a, b) => cmp(a, b) > 0,
  gte: (a, b) => cmp(a, b) >= 0,
  'internal.member_2': member2,
};

/**
 * `a == b`, `a < b`, ... over single-valued operands, compared in place: no argument
 * array, no built-in call frame. A `with` mock of the operator takes the generic call.
 */
function compiledComparison(
  test: (a: Value, b: Value) => boolean,
  name: string,
  ag: (fr: Frame) => Value | undefined,
  bg: (fr: Frame) => Value | undefined,
  next: Step,
  generic: Step,
): Step {
  return (fr) => {
    const mocks = fr.ev.mocks;
    if (mocks !== null && mocks.has(name)) return generic(fr);
    const a = ag(fr);
    if (a === undefined) return false;
    const b = bg(fr);
    if (b === undefined) return false;
    return test(a, b) ? next(fr) : false;
  };
}

/** The slot of a plain variable that an iteration binds afresh, when the term is one. */
function freshSlot(t: Term, pc: PlanCtx): number | undefined {
  return t.type === 'var' && !pc.isBound(t.value) ? pc.slotOf(t.value) : undefined;
}

// Binding iteration variables straight into their slots: no matcher closure per element.
function bind1(fr: Frame, s: number, v: Value, k: Step): boolean {
  fr.slots[s] = v;
  const r = k(fr);
  fr.slots[s] = undefined;
  return r;
}

/** Binds slot s to each element of an array in turn, running k; stops when k succeeds. */
export function eachElement(fr: Frame, c: Value[], s: number, k: Step): boolean {
  const q = fr.ev.q;
  const slots = fr.slots;
  for (let i = 0; i < c.length; i++) {
    q.tick();
    slots[s] = c[i];
    if (k(fr)) {
      slots[s] = undefined;
      return true;
    }
  }
  slots[s] = undefined;
  return false;
}

/** Whether body holds for each element of an array, bound to slot vs (and its index to ks). */
function everyElement(fr: Frame, d: Value[], ks: number | undefined, vs: number, body: Step): boolean {
  const q = fr.ev.q;
  const slots = fr.slots;
  let ok = true;
  for (let i = 0; i < d.length && ok; i++) {
    q.tick();
    if (ks !== undefined) slots[ks] = i;
    slots[vs] = d[i];
    ok = body(fr);
  }
  if (ks !== undefined) slots[ks] = undefined;
  slots[vs] = undefined;
  return ok;
}

function bind2(fr: Frame, s: number, v: Value, t: number, w: Value, k: Step): boolean {
  fr.slots[s] = v;
  fr.slots[t] = w;
  const r = k(fr);
  fr.slots[s] = undefined;
  fr.slots[t] = undefined;
  return r;
}

function compileSome(t: SomeDecl, pc: PlanCtx, next: Step): Step {
  const order = iterationFor(pc);
  let k = next;
  for (let i = t.symbols.length - 1; i >= 0; i--) {
    const sym = t.symbols[i]!;
    if (sym.type !== 'call') continue;
    const name = refName(sym.value[0]!);
    const args = sym.value.slice(1);
    const coll = compileTerm(args[args.length - 1]!, pc);
    const after = k;
    if (name === 'internal.member_3' && args.length === 3) {
      const kc = compileTerm(args[0]!, pc);
      const vc = compileTerm(args[1]!, pc);
      const ks = freshSlot(args[0]!, pc);
      const vs = freshSlot(args[1]!, pc);
      if (ks !== undefined && vs !== undefined && ks !== vs)
        k = (fr) =>
          coll.gen(fr, (c) =>
            order(fr)(c, (key, val) => {
              fr.ev.q.tick();
              if (fr.slots[ks] === undefined && fr.slots[vs] === undefined) return bind2(fr, ks, key, vs, val, after);
              return kc.match(fr, key, (f) => vc.match(f, val, after));
            }),
          );
      else k = (fr) => coll.gen(fr, (c) => order(fr)(c, (key, val) => (fr.ev.q.tick(), kc.match(fr, key, (f) => vc.match(f, val, after)))));
    } else {
      const vc = compileTerm(args[0]!, pc);
      const vs = freshSlot(args[0]!, pc);
      if (vs !== undefined) {
        const each = (fr: Frame, c: Value): boolean => {
          if (fr.slots[vs] === undefined) {
            // an array, or a set in any order, binding a fresh variable: a plain loop, no
            // callback per element
            if (Array.isArray(c)) return eachElement(fr, c, vs, after);
            const it = order(fr);
            if (it === iterateAnyOrder && c instanceof RSet) return eachElement(fr, c.unordered(), vs, after);
            return it(c, (_key, val) => {
              fr.ev.q.tick();
              return fr.slots[vs] === undefined ? bind1(fr, vs, val, after) : vc.match(fr, val, after);
            });
          }
          return order(fr)(c, (_key, val) => (fr.ev.q.tick(), vc.match(fr, val, after)));
        };
        const get = coll.get;
        // a single-valued collection is read, not generated: no closure per evaluation
        const plainK: Step = get
          ? (fr) => {
              const c = get(fr);
              return c === undefined ? false : each(fr, c);
            }
          : (fr) => coll.gen(fr, (c) => each(fr, c));
        // a set rule's members straight from its rules, when nothing can tell (lazy-set.ts)
        const lazy = name === 'internal.member_2' ? lazySetMembers(args[1]!, pc, vs, after) : undefined;
        k = lazy
          ? (fr) => {
              const r = lazy(fr);
              return r === undefined ? plainK(fr) : r;
            }
          : plainK;
      } else k = (fr) => coll.gen(fr, (c) => order(fr)(c, (_key, val) => (fr.ev.q.tick(), vc.match(fr, val, after))));
    }
  }
  return k;
}

function compileEvery(t: Every, pc: PlanCtx, next: Step): Step {
  const { dom, holds } = everyHolds(t, pc);
  const dget = dom.get;
  // a single-valued domain is read, not generated: no closure per evaluation
  if (dget)
    return (fr) => {
      const d = dget(fr);
      return d !== undefined && holds(fr, d) ? next(fr) : false;
    };
  return (fr) => dom.gen(fr, (d) => (holds(fr, d) ? next(fr) : false));
}

/** An `every`'s domain term, and whether its body holds for each member of a domain value. */
export function everyHolds(t: Every, pc: PlanCtx): { dom: TermC; holds: (fr: Frame, d: Value) => boolean } {
  const dom = compileTerm(t.domain, pc);
  const kc = t.key ? compileTerm(t.key, pc) : undefined;
  const vc = compileTerm(t.value, pc);
  const ks = t.key ? freshSlot(t.key, pc) : undefined;
  // `every x, x in ...` must compare key and value: leave it to the matchers
  const vs = ks !== undefined && ks === freshSlot(t.value, pc) ? undefined : freshSlot(t.value, pc);
  const kv: string[] = [];
  if (t.key) forEachVarShallow(t.key, (n) => kv.push(n));
  forEachVarShallow(t.value, (n) => kv.push(n));
  let body = pc.withBound(kv, () => compileBody(t.body, pc, STOP).step);
  // whether every member passes does not depend on the order they are tried in
  const order = iterationFor(pc);
  if (pc.traced) body = traceChildBody(t.body, t.body.map((x) => x.location?.text ?? '').join('; '), t.location, body);
  const holds = (fr: Frame, d: Value): boolean => {
    if (!isCollection(d)) return false;
    // an array into fresh variables: a plain loop, no callback per element
    if (Array.isArray(d) && vs !== undefined && fr.slots[vs] === undefined && (kc === undefined || (ks !== undefined && fr.slots[ks] === undefined)))
      return everyElement(fr, d, ks, vs, body);
    const failed = order(fr)(d, (key, val) => {
      fr.ev.q.tick();
      let ok: boolean;
      if (vs !== undefined && fr.slots[vs] === undefined && (kc === undefined || (ks !== undefined && fr.slots[ks] === undefined)))
        ok = ks === undefined ? bind1(fr, vs, val, body) : bind2(fr, ks, key, vs, val, body);
      else ok = kc ? kc.match(fr, key, (f) => vc.match(f, val, body)) : vc.match(fr, val, body);
      return !ok;
    });
    return !failed;
  };
  return { dom, holds };
}

function compilePrint(args: Term[], pc: PlanCtx, next: Step): Step {
  const cs = args.map((a) => compileTerm(a, pc));
  return (fr: Frame) => {
    const parts: string[] = [];
    for (const c of cs) {
      const vals: Value[] = [];
      try {
        c.gen(fr, (v) => (vals.push(v), false));
      } catch {
        /* an error in an argument prints as undefined */
      }
      if (vals.length === 0) parts.push('<undefined>');
      else parts.push(vals.map((v) => (typeof v === 'string' ? v : toRegoString(v))).join(' '));
    }
    fr.ev.q.print(parts.join(' '));
    return next(fr);
  };
}
