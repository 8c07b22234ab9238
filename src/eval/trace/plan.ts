// The traced variants of compiled steps. The planner calls these only when it builds a
// plan with `traced` set (a query run with a tracer), so the untraced plans stay exactly
// as they are: no per-step checks, no extra closures.

import type { Body, Expr, Location, Rule } from '../../lang/ast.js';
import { forEachVarShallow } from '../../compiler/terms.js';
import type { Frame } from '../context.js';
import type { Value } from '../../value/index.js';
import type { PlanCtx } from '../closures/ctx.js';
import type { Step } from '../closures/types.js';
import type { TraceNode, TraceSink } from './events.js';

function sinkOf(fr: Frame): TraceSink {
  return fr.ev.q.tracer as TraceSink;
}

type LocalSlots = [string, number][];

/** The user-visible variables an expression mentions, with their slots. */
function localSlots(e: Expr, pc: PlanCtx): LocalSlots {
  const names = new Set<string>();
  const add = (n: string) => {
    if (n !== 'input' && n !== 'data' && !n.startsWith('$')) names.add(n);
  };
  const t = e.terms;
  if (Array.isArray(t)) t.forEach((x, i) => (i === 0 && x.type === 'ref' ? undefined : forEachVarShallow(x, add)));
  else if (t.type === 'somedecl') t.symbols.forEach((s) => forEachVarShallow(s, add));
  else if (t.type === 'every') forEachVarShallow(t.domain, add);
  else forEachVarShallow(t, add);
  return [...names].map((n) => [n.replace(/#\d+$/, ''), pc.slotOf(n)]);
}

function readLocals(fr: Frame, ls: LocalSlots): [string, Value][] | undefined {
  if (ls.length === 0) return undefined;
  const out: [string, Value][] = [];
  for (const [name, slot] of ls) {
    const v = fr.slots[slot];
    if (v !== undefined) out.push([name, v]);
  }
  return out;
}

/**
 * Eval before the expression runs; Redo each time the rest of the body backtracks into
 * it; Fail when it produced no solution (as OPA's evalExpr does).
 */
export function traceExpr(e: Expr, pc: PlanCtx, next: Step, build: (k: Step) => Step): Step {
  const node: TraceNode = { type: 'expr', expr: e };
  const ls = localSlots(e, pc);
  const loc = e.location;
  // per-invocation flag, saved around re-entry
  let defined = false;
  const k: Step = (fr) => {
    defined = true;
    const stop = next(fr);
    if (!stop) sinkOf(fr).emit('Redo', node, loc, readLocals(fr, ls));
    return stop;
  };
  const inner = build(k);
  return (fr) => {
    const s = sinkOf(fr);
    s.emit('Eval', node, loc, readLocals(fr, ls));
    const saved = defined;
    defined = false;
    const stop = inner(fr);
    if (!defined) s.emit('Fail', node, loc, readLocals(fr, ls));
    defined = saved;
    return stop;
  };
}

/** A rule body as a child query: Enter the rule, Exit per solution, Redo on backtracking. */
export function traceRuleBody(rule: Rule, path: string, body: (tail: Step) => Step, tail: Step): Step {
  const node: TraceNode = { type: 'rule', rule, path };
  const loc = rule.location;
  const inner = body((fr) => {
    const s = sinkOf(fr);
    s.emit('Exit', node, loc);
    const stop = tail(fr);
    if (!stop) s.emit('Redo', node, loc);
    return stop;
  });
  return (fr) => {
    const s = sinkOf(fr);
    s.push();
    try {
      s.emit('Enter', node, loc);
      return inner(fr);
    } finally {
      s.pop();
    }
  };
}

/** A nested body (negation, `every` iteration, comprehension) as a child query. */
export function traceChildBody(body: Body, text: string, location: Location | undefined, inner: Step): Step {
  const node: TraceNode = { type: 'body', body, text };
  return (fr) => {
    const s = sinkOf(fr);
    s.push();
    try {
      s.emit('Enter', node, location);
      return inner(fr);
    } finally {
      s.pop();
    }
  };
}

/** The top-level query: Enter, Exit per solution, Redo when looking for more. */
export function traceQuery(body: Body, text: string, location: Location | undefined, build: (tail: Step) => Step, tail: Step): Step {
  const node: TraceNode = { type: 'body', body, text };
  const inner = build((fr) => {
    const s = sinkOf(fr);
    s.emit('Exit', node, location);
    const stop = tail(fr);
    if (!stop) s.emit('Redo', node, location);
    return stop;
  });
  return (fr) => {
    sinkOf(fr).emit('Enter', node, location);
    return inner(fr);
  };
}
