// `eval --instrument`: OPA's instrumentation metrics, for what Regolith can measure from
// outside its evaluator. A tracer watches the evaluation: an expression that calls a
// built-in runs from its Eval event to the next event of the query (the next expression,
// its Fail, or the rule's Exit); when that next event enters a rule, the call was a user
// function and is not counted. Each such span is one `eval_op_builtin_call` sample: the
// total as `timer_eval_op_builtin_call_ns` and the distribution as
// `histogram_eval_op_builtin_call` (go-metrics statistics), OPA's names. OPA's other
// instrumentation (plug, resolve, rule index, virtual/base/comprehension caches, partial
// evaluation ops) has no counterpart in Regolith's evaluator and is not reported.

import type { Term, TraceEvent, Tracer } from '../engine/index.js';
import { goFloat, statistics } from './eval-stats.js';

/** Operators OPA evaluates by unification, not as built-in calls. */
const UNIFY = new Set(['eq', 'assign', 'internal.member_2', 'internal.member_3']);

function refName(t: Term | undefined): string | undefined {
  if (t?.type !== 'ref') return undefined;
  return t.value.map((x) => (x.type === 'var' || x.type === 'string' ? x.value : '?')).join('.');
}

function hasCall(t: Term): boolean {
  switch (t.type) {
    case 'call':
      return true;
    case 'ref':
    case 'array':
    case 'set':
      return t.value.some(hasCall);
    case 'object':
      return t.value.some(([k, v]) => hasCall(k) || hasCall(v));
    default:
      return false;
  }
}

function callsBuiltin(e: TraceEvent): boolean {
  if (e.op !== 'Eval' || e.node?.type !== 'expr') return false;
  const t = e.node.expr.terms;
  if (!Array.isArray(t)) return !Array.isArray(t) && t.type !== 'somedecl' && t.type !== 'every' && hasCall(t);
  return !UNIFY.has(refName(t[0]) ?? '') || t.slice(1).some(hasCall);
}

export class InstrumentTracer implements Tracer {
  private readonly samples: number[] = [];
  private pending: bigint | undefined;

  note(): void {}

  event(e: TraceEvent): void {
    const now = process.hrtime.bigint();
    if (this.pending !== undefined && !(e.op === 'Enter' && e.node?.type === 'rule')) this.samples.push(Number(now - this.pending));
    this.pending = callsBuiltin(e) ? process.hrtime.bigint() : undefined;
  }

  /** OPA's metric names for what was measured (nothing when no built-in was called). */
  metrics(): { timers: Record<string, number>; histograms: Record<string, Record<string, number>> } {
    if (this.samples.length === 0) return { timers: {}, histograms: {} };
    return {
      timers: { timer_eval_op_builtin_call_ns: this.samples.reduce((a, b) => a + b, 0) },
      histograms: { histogram_eval_op_builtin_call: statistics(this.samples) },
    };
  }
}

/** A histogram as Go's fmt prints a map in the pretty metrics table: `map[75%:1 90%:2 ...]`. */
export function goMapText(m: Record<string, number>): string {
  return `map[${Object.keys(m)
    .sort()
    .map((k) => `${k}:${goFloat(m[k]!)}`)
    .join(' ')}]`;
}
