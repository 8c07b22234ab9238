// Evaluating rules: complete rules (with else and default), partial sets, general
// ref-head rules and functions. Results are memoised in the EvalCtx, so a `with` (which
// makes a new EvalCtx) never sees values computed under other inputs.

import type { CompiledRule, RuleNode } from '../compiler/tree.js';
import { Frame, UNDEF, type EvalCtx } from './context.js';
import { conflict } from './errors.js';
import { equal, RSet, type Value } from '../value/index.js';
import { planRule, type RulePlan } from './closures/rule-plan.js';
import type { Step, TermC } from './closures/types.js';
import type { Location, Term } from '../lang/ast.js';
import { ArgsMemo } from './args-memo.js';
import { candidates, MIN_RULES } from './indexing.js';
import { quietPolicy } from './closures/order.js';
import { BigNum } from '../value/number.js';

type CompleteRunner = (ev: EvalCtx) => Value | undefined;
type SetRunner = (ev: EvalCtx, into: RSet) => void;
type FunctionRunner = (ev: EvalCtx, args: Value[]) => Value | undefined;

/**
 * The step receiving a rule's solutions: records the head value in the frame's result,
 * failing with a conflict on a second, different one. Built once per plan.
 */
function valueOut(plan: RulePlan, valueC: TermC, msg: string, loc: Location | undefined): Step {
  const stop = plan.constValue;
  const get = valueC.get;
  if (get)
    return (f) => {
      const v = get(f);
      if (v === undefined) return false;
      if (f.result === undefined) f.result = v;
      else if (!equal(f.result, v)) throw conflict(msg, loc);
      return stop;
    };
  return (f) =>
    valueC.gen(f, (v) => {
      if (f.result === undefined) f.result = v;
      else if (!equal(f.result, v)) throw conflict(msg, loc);
      return stop;
    });
}

function run(body: Step, fr: Frame): Value | undefined {
  const q = fr.ev.q;
  q.enter();
  try {
    body(fr);
  } finally {
    q.leave();
  }
  return fr.result;
}

function completeRunner(plan: RulePlan, x: CompiledRule, msg: string): CompleteRunner {
  if (plan.runner) return plan.runner as CompleteRunner;
  const out = valueOut(plan, plan.value!, msg, x.location);
  const { body, nslots } = plan;
  const runner: CompleteRunner = (ev) => run(body, new Frame(new Array(nslots), ev, out));
  plan.runner = runner;
  return runner;
}

/** Value of one rule (following its else chain), or undefined. */
function ruleValue(r: CompiledRule, ev: EvalCtx, msg: string): Value | undefined {
  for (let x: CompiledRule | undefined = r; x; x = x.else) {
    const result = completeRunner(planRule(x, ev.q.root, ev.q.tracer !== undefined), x, msg)(ev);
    if (result !== undefined) return result;
  }
  return undefined;
}

/**
 * Whether every rule of `kind` at the node has the same scalar constant value and no
 * else: then the first rule that holds settles the document (OPA's early exit), since no
 * other rule can conflict with it.
 */
function sameConstant(node: RuleNode, kind: 'complete' | 'funcs'): boolean {
  // constant keys: a key built by concatenation would be re-hashed on every call
  const key = kind === 'complete' ? 'early:complete' : 'early:funcs';
  let v = node.cache[key] as boolean | undefined;
  if (v === undefined) {
    const rules = node[kind];
    const first = rules[0]?.value;
    v = rules.length > 1 && first !== undefined && isScalar(first);
    for (const r of rules) if (r.else || !r.value || !isScalar(r.value) || r.value.type !== first!.type || r.value.value !== (first as { value: unknown }).value) v = false;
    node.cache[key] = v;
  }
  return v;
}

function isScalar(t: Term): t is Term & { value: string | number | boolean | null } {
  return t.type === 'boolean' || t.type === 'string' || t.type === 'null' || t.type === 'number';
}

const COMPLETE_MSG = 'complete rules must not produce multiple outputs';

/**
 * A complete document's rules as runners (each following its else chain) and its
 * early-exit flag, made on first use and kept on the node, so an untraced evaluation of
 * a node with few rules (none indexed) looks up one thing, not a plan, a runner and the
 * flag per rule. Traced evaluations and indexed nodes take the general path below.
 */
interface CompleteCaller {
  rules: (CompleteRunner | undefined)[];
  dflt: CompleteRunner | undefined;
  early: boolean;
}

function completeCaller(node: RuleNode): CompleteCaller {
  let c = node.cache['complete:plain'] as CompleteCaller | undefined;
  if (c === undefined) {
    c = { rules: new Array(node.complete.length).fill(undefined), dflt: undefined, early: sameConstant(node, 'complete') };
    node.cache['complete:plain'] = c;
  }
  return c;
}

function completeChain(r: CompiledRule, ev: EvalCtx): CompleteRunner {
  const root = ev.q.root;
  if (!r.else) return completeRunner(planRule(r, root, false), r, COMPLETE_MSG);
  const xs: CompleteRunner[] = [];
  for (let x: CompiledRule | undefined = r; x; x = x.else) xs.push(completeRunner(planRule(x, root, false), x, COMPLETE_MSG));
  return (e) => {
    for (const f of xs) {
      const v = f(e);
      if (v !== undefined) return v;
    }
    return undefined;
  };
}

export function evalComplete(node: RuleNode, ev: EvalCtx): Value | undefined {
  const m = ev.memo.get(node);
  if (m !== undefined) return m === UNDEF ? undefined : m;
  if (ev.q.tracer === undefined && node.complete.length < MIN_RULES) return completePlain(node, ev);
  const msg = COMPLETE_MSG;
  let result: Value | undefined;
  let from: CompiledRule | undefined;
  // Tracing (explain, coverage) sees every rule, as OPA's coverage pass runs without early exit.
  const early = ev.q.tracer === undefined && sameConstant(node, 'complete');
  for (const r of candidates(node, 'complete', ev)) {
    const v = ruleValue(r, ev, msg);
    if (v === undefined) continue;
    if (result !== undefined && !equal(result, v)) throw conflict(msg, r.location ?? from?.location);
    result = v;
    from = r;
    if (early) break;
  }
  if (result === undefined && node.default) result = ruleValue(node.default, ev, msg);
  ev.memo.set(node, result === undefined ? UNDEF : result);
  return result;
}

/** evalComplete, untraced, for a node whose rules are not indexed (see CompleteCaller). */
function completePlain(node: RuleNode, ev: EvalCtx): Value | undefined {
  const c = completeCaller(node);
  const rules = node.complete;
  let result: Value | undefined;
  let from: CompiledRule | undefined;
  for (let i = 0; i < rules.length; i++) {
    const v = (c.rules[i] ?? (c.rules[i] = completeChain(rules[i]!, ev)))(ev);
    if (v === undefined) continue;
    if (result !== undefined && !equal(result, v)) throw conflict(COMPLETE_MSG, rules[i]!.location ?? from?.location);
    result = v;
    from = rules[i];
    if (c.early) break;
  }
  if (result === undefined && node.default) result = (c.dflt ?? (c.dflt = completeChain(node.default, ev)))(ev);
  ev.memo.set(node, result === undefined ? UNDEF : result);
  return result;
}

function setRunner(plan: RulePlan): SetRunner {
  if (plan.runner) return plan.runner as SetRunner;
  const keyC = plan.key!;
  const get = keyC.get;
  const out: Step = get
    ? (f) => {
        const v = get(f);
        if (v !== undefined) (f.result as RSet).addUnchecked(v);
        return false;
      }
    : (f) => keyC.gen(f, (v) => ((f.result as RSet).addUnchecked(v), false));
  const { body, nslots } = plan;
  const runner: SetRunner = (ev, into) => {
    const fr = new Frame(new Array(nslots), ev, out);
    fr.result = into;
    run(body, fr);
  };
  plan.runner = runner;
  return runner;
}

export function evalSet(node: RuleNode, ev: EvalCtx): Value {
  const m = ev.memo.get(node);
  if (m !== undefined && m !== UNDEF) return m;
  const s = new RSet();
  for (const r of candidates(node, 'sets', ev)) setRunner(planRule(r, ev.q.root, ev.q.tracer !== undefined))(ev, s);
  ev.memo.set(node, s);
  return s;
}

/** Every (keys, value) a general ref-head rule produces. */
export function generalSolutions(r: CompiledRule, ev: EvalCtx, emit: (keys: Value[], value: Value, setLeaf: boolean) => void): void {
  for (let x: CompiledRule | undefined = r; x; x = x.else) {
    const plan = planRule(x, ev.q.root, ev.q.tracer !== undefined);
    let any = false;
    const n = plan.suffix.length;
    const leaf = x.setLeaf ? plan.key! : plan.value!;
    const keysFrom = (f: Frame, acc: Value[], i: number): boolean =>
      i === n
        ? leaf.gen(f, (v) => {
            emit(acc.slice(), v, x!.setLeaf);
            any = true;
            return false;
          })
        : plan.suffix[i]!.gen(f, (kv) => ((acc[i] = kv), keysFrom(f, acc, i + 1)));
    const fr = new Frame(new Array(plan.nslots), ev, (f) => keysFrom(f, new Array(n), 0));
    ev.q.enter();
    try {
      plan.body(fr);
    } finally {
      ev.q.leave();
    }
    if (any) return;
  }
}

/**
 * A function's rules as runners (each following its else chain), built on first use and
 * kept on the node, so a call does not look up plans, runners and the early-exit flag per
 * rule. Traced evaluations build their own (tracers are rare, the plans differ).
 */
interface FnCaller {
  rules: (FunctionRunner | undefined)[];
  dflt: FunctionRunner | undefined;
  early: boolean;
}

const FN_MSG = 'functions must not produce multiple outputs for same inputs';

function chainRunner(r: CompiledRule, ev: EvalCtx, traced: boolean): FunctionRunner {
  const root = ev.q.root;
  if (!r.else) return functionRunner(planRule(r, root, traced), r, FN_MSG);
  const xs: FunctionRunner[] = [];
  for (let x: CompiledRule | undefined = r; x; x = x.else) xs.push(functionRunner(planRule(x, root, traced), x, FN_MSG));
  return (e, args) => {
    for (const f of xs) {
      const v = f(e, args);
      if (v !== undefined) return v;
    }
    return undefined;
  };
}

function fnCaller(node: RuleNode, traced: boolean): FnCaller {
  const key = traced ? 'fn:traced' : 'fn:plain';
  let c = node.cache[key] as FnCaller | undefined;
  if (c === undefined) {
    c = { rules: new Array(node.funcs.length).fill(undefined), dflt: undefined, early: !traced && sameConstant(node, 'funcs') };
    node.cache[key] = c;
  }
  return c;
}

/** Calls a user function with argument values. Undefined when no rule applies. */
export function callFunction(node: RuleNode, args: Value[], ev: EvalCtx): Value | undefined {
  let memo = ev.fnMemo.get(node);
  if (memo === undefined) ev.fnMemo.set(node, (memo = new ArgsMemo()));
  const n = args.length;
  const traced = ev.q.tracer !== undefined;
  // Composite arguments (arrays, objects, sets) are remembered by identity only, when
  // running the body twice cannot be observed (nothing prints, no tracer, no mocks):
  // hashing them costs about as much as a small function's body, and the calls that
  // repeat usually pass the same values (input.x, a rule's value) again.
  let h = 0;
  const byIdentity = !traced && ev.mocks === null && hasComposite(args, n) && quietPolicy(ev.q.root);
  if (byIdentity) {
    const m = memo.getSame(args, n);
    if (m !== undefined) return m === UNDEF ? undefined : (m as Value);
  } else {
    h = ArgsMemo.hash(args, n);
    const m = memo.get(h, args, n);
    if (m !== undefined) return m === UNDEF ? undefined : (m as Value);
  }
  const c = fnCaller(node, traced);
  const funcs = node.funcs;
  let result: Value | undefined;
  for (let i = 0; i < funcs.length; i++) {
    const run = c.rules[i] ?? (c.rules[i] = chainRunner(funcs[i]!, ev, traced));
    const v = run(ev, args);
    if (v === undefined) continue;
    if (result !== undefined && !equal(result, v)) throw conflict(FN_MSG, funcs[i]!.location);
    result = v;
    if (c.early) break;
  }
  if (result === undefined && node.default) result = (c.dflt ?? (c.dflt = chainRunner(node.default, ev, traced)))(ev, args);
  if (byIdentity) memo.setSame(args, result === undefined ? UNDEF : result);
  else memo.set(h, args, result === undefined ? UNDEF : result);
  return result;
}

function hasComposite(args: Value[], n: number): boolean {
  for (let i = 0; i < n; i++) {
    const a = args[i];
    if (a !== null && typeof a === 'object' && !(a instanceof BigNum)) return true;
  }
  return false;
}

/** Matches each argument against the rule's argument terms, then runs the body. */
function functionRunner(plan: RulePlan, x: CompiledRule, msg: string): FunctionRunner {
  if (plan.runner) return plan.runner as FunctionRunner;
  const n = plan.args.length;
  const out: Step = plan.value ? valueOut(plan, plan.value, msg, x.location) : (f) => ((f.result = true), true);
  let first: Step = plan.body;
  for (let i = n - 1; i >= 0; i--) {
    const m = plan.args[i]!;
    const next = first;
    first = (f) => m.match(f, f.args![i]!, next);
  }
  const nslots = plan.nslots;
  const runner: FunctionRunner = (ev, args) => {
    if (args.length < n) return undefined;
    const fr = new Frame(new Array(nslots), ev, out);
    fr.args = args;
    return run(first, fr);
  };
  plan.runner = runner;
  return runner;
}
