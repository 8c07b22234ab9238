// Calls: built-ins (with OPA's error handling: a built-in error ends the query only
// under strict-builtin-errors, otherwise the call is undefined) and user functions, both replaceable
// by `with` mocks at run time.

import type { Location, Term } from '../../lang/ast.js';
import { refName } from '../../compiler/terms.js';
import { builtinIn, type BuiltinDef } from '../builtins/registry.js';
import { BuiltinError } from '../builtins/errors.js';
import { EvalCtx, type Frame, type Mock } from '../context.js';
import { RegoEvalError, Suspend } from '../errors.js';
import { callFunction } from '../rules.js';
import type { Value } from '../../value/index.js';
import type { PlanCtx } from './ctx.js';
import { compileTerm, fromGen, fromGetter } from './terms.js';
import type { K, TermC } from './types.js';

export interface Callee {
  /** mock key: builtin name or data path */
  key: string;
  invoke(fr: Frame, args: Value[], k: K): boolean;
  /** single-valued invocation (not for relations) */
  call?(fr: Frame, args: Value[]): Value | undefined;
}

export function builtinCall(def: BuiltinDef, fr: Frame, args: Value[], loc: Location | undefined): Value | undefined {
  const q = fr.ev.q;
  const ctx = q.bctx;
  ctx.name = def.name;
  ctx.location = loc;
  try {
    return def.fn(args, ctx);
  } catch (e) {
    if (e instanceof Suspend || e instanceof RegoEvalError) throw e;
    if (e instanceof BuiltinError) {
      // OPA collects every built-in error (type errors included) and makes the call
      // undefined unless strict-builtin-errors is on; conflicts always end the query.
      if (e.code === 'eval_conflict_error' || q.strict) throw new RegoEvalError(e.code, `${def.name}: ${e.message}`, loc);
      q.builtinErrors?.push(new RegoEvalError(e.code, `${def.name}: ${e.message}`, loc));
      return undefined;
    }
    if (q.strict) throw new RegoEvalError('eval_builtin_error', `${def.name}: ${(e as Error)?.message ?? String(e)}`, loc);
    q.builtinErrors?.push(new RegoEvalError('eval_builtin_error', `${def.name}: ${(e as Error)?.message ?? String(e)}`, loc));
    return undefined;
  }
}

/** Applies a mock (from `with`) in place of the original callee. */
function callMock(m: Mock, fr: Frame, args: Value[], loc: Location | undefined, k: K): boolean {
  if (m.kind === 'value') return k(m.value);
  if (m.kind === 'function') {
    const n = m.node.arity;
    // a mock runs without mocks: calling the mocked name from it reaches the original
    const ev = fr.ev;
    const plain = ev.mocks === null ? ev : new EvalCtx(ev.q, ev.input, ev.data, ev.overrides, null, ev);
    const v = callFunction(m.node, args.slice(0, n), plain);
    return v === undefined ? false : k(v);
  }
  return invokeBuiltin(m.def, fr, args, loc, k);
}

function invokeBuiltin(def: BuiltinDef, fr: Frame, args: Value[], loc: Location | undefined, k: K): boolean {
  const v = builtinCall(def, fr, args, loc);
  if (v === undefined) return false;
  if (def.relation) {
    for (const x of v as Value[]) if (k(x)) return true;
    return false;
  }
  return k(v);
}

export function resolveCallee(op: Term, pc: PlanCtx, loc: Location | undefined): Callee {
  if (op.type === 'ref' && op.value[0]?.type === 'var' && op.value[0].value === 'data') {
    const path = op.value.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
    const node = pc.root.find(path);
    const key = 'data.' + path.join('.');
    if (!node) throw new Error(`undefined function ${key}`);
    const call = (fr: Frame, args: Value[]): Value | undefined => {
      const m = fr.ev.mocks?.get(key);
      if (m) {
        let out: Value | undefined;
        callMock(m, fr, args, loc, (v) => ((out = v), true));
        return out;
      }
      return callFunction(node, args, fr.ev);
    };
    return {
      key,
      call,
      invoke: (fr, args, k) => {
        const v = call(fr, args);
        return v === undefined ? false : k(v);
      },
    };
  }
  const name = refName(op) ?? '';
  const def = builtinIn(pc.root, name);
  if (!def) throw new Error(`undefined function ${name}`);
  const invoke = (fr: Frame, args: Value[], k: K): boolean => {
    const mocks = fr.ev.mocks;
    if (mocks !== null) {
      const m = mocks.get(name);
      if (m) return callMock(m, fr, args, loc, k);
    }
    return invokeBuiltin(def, fr, args, loc, k);
  };
  if (def.relation) return { key: name, invoke };
  return {
    key: name,
    invoke,
    call: (fr, args) => {
      const mocks = fr.ev.mocks;
      if (mocks !== null && mocks.has(name)) {
        let out: Value | undefined;
        callMock(mocks.get(name)!, fr, args, loc, (v) => ((out = v), true));
        return out;
      }
      return builtinCall(def, fr, args, loc);
    },
  };
}

/** A call as a term: evaluates arguments (all combinations), calls, yields results. */
export function compileCallTerm(op: Term, argTerms: Term[], pc: PlanCtx, loc: Location | undefined): TermC {
  const callee = resolveCallee(op, pc, loc);
  const args = argTerms.map((a) => compileTerm(a, pc));
  return callWith(callee, args);
}

export function callWith(callee: Callee, args: TermC[]): TermC {
  const n = args.length;
  if (callee.call && args.every((a) => a.get)) {
    const gets = args.map((a) => a.get!);
    const call = callee.call;
    if (callee.key === 'count' && n === 1) return countOf(gets[0]!, call);
    return fromGetter((fr) => {
      const vals = new Array<Value>(n);
      for (let i = 0; i < n; i++) {
        const v = gets[i]!(fr);
        if (v === undefined) return undefined;
        vals[i] = v;
      }
      return call(fr, vals);
    });
  }
  const from = (fr: Frame, acc: Value[], i: number, k: K): boolean =>
    i === n ? callee.invoke(fr, acc.slice(), k) : args[i]!.gen(fr, (v) => ((acc[i] = v), from(fr, acc, i + 1, k)));
  return fromGen((fr, k) => from(fr, new Array(n), 0, k));
}

/** count(x): an array's length read in place (no argument array, no built-in frame) unless `count` is mocked. */
function countOf(get: (fr: Frame) => Value | undefined, call: (fr: Frame, args: Value[]) => Value | undefined): TermC {
  return fromGetter((fr) => {
    const v = get(fr);
    if (v === undefined) return undefined;
    if (Array.isArray(v) && fr.ev.mocks === null) return v.length;
    return call(fr, [v]);
  });
}
