// Explanations of a partial evaluation (the Compile API's `explain`, `eval --partial
// --explain`): the same trace events as full evaluation — Enter of the query and of each
// inlined rule, Eval of each expression, Fail where a branch ends, Exit where one holds —
// plus OPA's Save, for each expression kept for the residual. Only traced runs build one.

import type { Body, Expr, Rule } from '../lang/ast.js';
import { traceLocation, type TraceEvent, type TraceOp, type Tracer } from '../eval/trace/events.js';
import { formatBody } from '../lang/index.js';

export class PartialTrace {
  /** Frame id -> id of the frame that was evaluating when it was created. */
  private readonly parents = new Map<number, number>();
  /** The frame of the expression being evaluated. */
  current = -1;

  constructor(private readonly target: Tracer) {}

  /** A new frame: a child query of the one evaluating now. */
  opened(frame: number): void {
    this.parents.set(frame, this.current);
  }

  private emit(op: TraceOp, frame: number, e: Omit<TraceEvent, 'op' | 'queryId' | 'parentId'>): void {
    const parent = this.parents.get(frame) ?? -1;
    this.target.event?.({ op, queryId: frame + 1, parentId: parent + 1, ...e });
  }

  query(op: 'Enter' | 'Exit', frame: number, body: Body, text: string): void {
    this.emit(op, frame, { node: { type: 'body', body, text }, location: traceLocation(body[0]?.location) });
  }

  rule(op: 'Enter' | 'Exit', frame: number, rule: Rule, path: string): void {
    this.emit(op, frame, { node: { type: 'rule', rule, path }, location: traceLocation(rule.location) });
  }

  expr(op: 'Eval' | 'Fail' | 'Redo', frame: number, expr: Expr): void {
    this.emit(op, frame, { node: { type: 'expr', expr }, location: traceLocation(expr.location) });
  }

  /** A saved expression, printed as saved (known values plugged in), not as written. */
  save(frame: number, expr: Expr): void {
    const at = expr.location;
    const text = formatBody([{ ...expr, location: undefined }]);
    const shown: Expr = { ...expr, location: at ? { ...at, text } : undefined };
    this.emit('Save', frame, { node: { type: 'expr', expr: shown }, location: traceLocation(at) });
  }
}
