// Trace events as OPA's topdown emits them (Enter, Eval, Exit, Redo, Fail, Index, Note),
// and the per-query sink the traced plans report to. Only traced plans (built when a
// query runs with a tracer) touch this module, so untraced evaluation never pays for it.

import type { Body, Expr, Location, Rule } from '../../lang/ast.js';
import type { Value } from '../../value/index.js';

export type TraceOp = 'Enter' | 'Exit' | 'Eval' | 'Fail' | 'Redo' | 'Note' | 'Index' | 'Save';

/** What an event is about: an expression, a rule (with its data path) or a query body. */
export type TraceNode = { type: 'expr'; expr: Expr } | { type: 'rule'; rule: Rule; path: string } | { type: 'body'; body: Body; text: string };

export interface TraceLocation {
  file: string;
  row: number;
  col: number;
}

export interface TraceEvent {
  op: TraceOp;
  queryId: number;
  parentId: number;
  node?: TraceNode;
  location?: TraceLocation;
  /** Bindings of the variables the node mentions, as the user named them. */
  locals?: [string, Value][];
  /** Note text, or extra detail ("early" on an Exit that stopped the search). */
  message?: string;
}

/** Receives events (OPA's QueryTracer); `note` gets the text of each trace() call. */
export interface Tracer {
  note(msg: string): void;
  event?(e: TraceEvent): void;
  /** A test case entered (internal.test_case, which the test runner injects into parameterized tests). */
  testCase?(path: Value): void;
}

export function traceLocation(l: Location | undefined): TraceLocation | undefined {
  return l ? { file: l.file, row: l.row, col: l.col } : undefined;
}

/** The printed form of a node: a rule's path, an expression's or body's source text. */
export function nodeText(n: TraceNode | undefined): string {
  if (!n) return '';
  if (n.type === 'rule') return n.path;
  if (n.type === 'body') return n.text;
  const text = n.expr.location?.text ?? '';
  // the positive half of `not x` shares its location: print it without the `not`
  return n.expr.negated ? text : text.replace(/^not\s+/, '');
}

/**
 * Tracks the query-id hierarchy of one evaluation (each rule body, negation, `every`
 * iteration and comprehension is a child query of the one that reached it) and forwards
 * events to the caller's tracer. Evaluation of a child always finishes before its parent
 * continues, so a stack is enough.
 */
export class TraceSink implements Tracer {
  private nextId = 1;
  private readonly stack: number[] = [0];
  /** Where the built-in being called is written (for Note events from trace()). */
  noteLocation: () => Location | undefined = () => undefined;

  constructor(readonly target: Tracer) {}

  get current(): number {
    return this.stack[this.stack.length - 1]!;
  }

  get parent(): number {
    return this.stack.length > 1 ? this.stack[this.stack.length - 2]! : 0;
  }

  /** Starts a child query of the current one; returns its id. */
  push(): number {
    const id = this.nextId++;
    this.stack.push(id);
    return id;
  }

  pop(): void {
    if (this.stack.length > 1) this.stack.pop();
  }

  emit(op: TraceOp, node: TraceNode | undefined, location: Location | undefined, locals?: [string, Value][], message?: string): void {
    const e: TraceEvent = { op, queryId: this.current, parentId: this.parent, node, location: traceLocation(location) };
    if (locals && locals.length) e.locals = locals;
    if (message) e.message = message;
    this.buffered.push(e);
  }

  note(msg: string): void {
    this.emit('Note', undefined, this.noteLocation(), undefined, msg);
  }

  event(e: TraceEvent): void {
    this.buffered.push(e);
  }

  testCase(path: Value): void {
    this.cases.push(path);
  }

  private cases: Value[] = [];

  /**
   * Events are held until the run ends: a run suspended for I/O is started again, and
   * only the run that finishes (or fails) is what the caller sees.
   */
  private buffered: TraceEvent[] = [];

  flush(): void {
    for (const e of this.buffered) {
      this.target.event?.(e);
      if (e.op === 'Note') this.target.note(e.message ?? '');
    }
    this.buffered = [];
    for (const p of this.cases) this.target.testCase?.(p);
    this.cases = [];
  }
}
