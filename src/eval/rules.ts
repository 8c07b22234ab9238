// Evaluating rules: complete rules (with else and default), partial sets, general
// ref-head rules and functions. Results are memoised in the EvalCtx, so a `with` (which
// makes a new EvalCtx) never sees values computed under other inputs.

import type { CompiledRule, RuleNode } from '../compiler/tree.js';
import { Frame, UNDEF, type EvalCtx } from './context.js';
import { conflict } from './errors.js';
import { equal, RSet, type Value } from './value/index.js';
import { planRule, type RulePlan } from './plan/rule-plan.js';
import { valueKey } from './plan/terms.js';
import { candidates } from './indexing.js';

function newFrame(plan: RulePlan, ev: EvalCtx, out: (fr: Frame) => boolean): Frame {
  return new Frame(new Array(plan.nslots), ev, out);
}

/** Value of one rule (following its else chain), or undefined. */
function ruleValue(r: CompiledRule, ev: EvalCtx, msg: string): Value | undefined {
  for (let x: CompiledRule | undefined = r; x; x = x.else) {
    const plan = planRule(x, ev.q.root);
    let result: Value | undefined;
    const valueC = plan.value!;
    const fr = newFrame(plan, ev, (f) =>
      valueC.gen(f, (v) => {
        if (result === undefined) result = v;
        else if (!equal(result, v)) throw conflict(msg, x!.location);
        return plan.constValue;
      }),
    );
    ev.q.enter();
    try {
      plan.body(fr);
    } finally {
      ev.q.leave();
    }
    if (result !== undefined) return result;
  }
  return undefined;
}

export function evalComplete(node: RuleNode, ev: EvalCtx): Value | undefined {
  const m = ev.memo.get(node);
  if (m !== undefined) return m === UNDEF ? undefined : m;
  const msg = 'complete rules must not produce multiple outputs';
  let result: Value | undefined;
  let from: CompiledRule | undefined;
  const tr = ev.q.tracer;
  if (tr) traceEvent(ev, 'Enter', node);
  for (const r of candidates(node, 'complete', ev)) {
    const v = ruleValue(r, ev, msg);
    if (v === undefined) continue;
    if (result !== undefined && !equal(result, v)) throw conflict(msg, r.location ?? from?.location);
    result = v;
    from = r;
  }
  if (result === undefined && node.default) result = ruleValue(node.default, ev, msg);
  ev.memo.set(node, result === undefined ? UNDEF : result);
  if (tr) traceEvent(ev, result === undefined ? 'Fail' : 'Exit', node);
  return result;
}

function traceEvent(ev: EvalCtx, op: 'Enter' | 'Exit' | 'Fail', node: RuleNode): void {
  const r = node.complete[0] ?? node.sets[0] ?? node.funcs[0] ?? node.default;
  const l = r?.location;
  ev.q.tracer?.event?.({ op, message: 'data.' + node.path.join('.'), depth: ev.q.depth, location: l ? { file: l.file, row: l.row, col: l.col } : undefined });
}

export function evalSet(node: RuleNode, ev: EvalCtx): Value {
  const m = ev.memo.get(node);
  if (m !== undefined && m !== UNDEF) return m;
  const s = new RSet();
  if (ev.q.tracer) traceEvent(ev, 'Enter', node);
  for (const r of candidates(node, 'sets', ev)) {
    const plan = planRule(r, ev.q.root);
    const keyC = plan.key!;
    const fr = newFrame(plan, ev, (f) => keyC.gen(f, (v) => (s.add(v), false)));
    ev.q.enter();
    try {
      plan.body(fr);
    } finally {
      ev.q.leave();
    }
  }
  ev.memo.set(node, s);
  return s;
}

/** Every (keys, value) a general ref-head rule produces. */
export function generalSolutions(r: CompiledRule, ev: EvalCtx, emit: (keys: Value[], value: Value, setLeaf: boolean) => void): void {
  for (let x: CompiledRule | undefined = r; x; x = x.else) {
    const plan = planRule(x, ev.q.root);
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
    const fr = newFrame(plan, ev, (f) => keysFrom(f, new Array(n), 0));
    ev.q.enter();
    try {
      plan.body(fr);
    } finally {
      ev.q.leave();
    }
    if (any) return;
  }
}

function argsKey(args: Value[]): string {
  let s = '';
  for (const a of args) s += valueKey(a) + '\u0000';
  return s;
}

/** Calls a user function with argument values. Undefined when no rule applies. */
export function callFunction(node: RuleNode, args: Value[], ev: EvalCtx): Value | undefined {
  let memo = ev.fnMemo.get(node);
  const key = argsKey(args);
  if (memo) {
    const m = memo.get(key);
    if (m !== undefined) return m === UNDEF ? undefined : m;
  } else ev.fnMemo.set(node, (memo = new Map()));
  const msg = 'functions must not produce multiple outputs for same inputs';
  let result: Value | undefined;
  for (const r of node.funcs) {
    const v = functionRuleValue(r, args, ev, msg);
    if (v === undefined) continue;
    if (result !== undefined && !equal(result, v)) throw conflict(msg, r.location);
    result = v;
  }
  if (result === undefined && node.default) result = functionRuleValue(node.default, args, ev, msg);
  memo.set(key, result === undefined ? UNDEF : result);
  return result;
}

function functionRuleValue(r: CompiledRule, args: Value[], ev: EvalCtx, msg: string): Value | undefined {
  for (let x: CompiledRule | undefined = r; x; x = x.else) {
    const plan = planRule(x, ev.q.root);
    let result: Value | undefined;
    const valueC = plan.value;
    const n = plan.args.length;
    const body = plan.body;
    const argsFrom = (f: Frame, i: number): boolean => (i === n ? body(f) : plan.args[i]!.match(f, args[i]!, (g) => argsFrom(g, i + 1)));
    const fr = newFrame(plan, ev, (f) => {
      if (!valueC) {
        result = true;
        return true;
      }
      return valueC.gen(f, (v) => {
        if (result === undefined) result = v;
        else if (!equal(result, v)) throw conflict(msg, x!.location);
        return plan.constValue;
      });
    });
    if (args.length < n) return undefined;
    ev.q.enter();
    try {
      argsFrom(fr, 0);
    } finally {
      ev.q.leave();
    }
    if (result !== undefined) return result;
  }
  return undefined;
}
