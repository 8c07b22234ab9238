// Tracing for explanations (OPA's explain=notes|fails|full|debug). The evaluator reports
// events to a Tracer; explain modes filter and format them.

export type TraceOp = 'Enter' | 'Exit' | 'Eval' | 'Fail' | 'Redo' | 'Note';

export interface TraceEvent {
  op: TraceOp;
  /** What the event is about: a rule path, an expression's text, or a note. */
  message: string;
  location?: { file: string; row: number; col: number };
  depth: number;
}

export interface Tracer {
  note(msg: string): void;
  event?(e: TraceEvent): void;
}

export type ExplainMode = 'off' | 'notes' | 'fails' | 'full' | 'debug';

/** Collects events and renders them as OPA's pretty trace lines. */
export class BufferTracer implements Tracer {
  readonly events: TraceEvent[] = [];
  depth = 0;
  constructor(readonly mode: ExplainMode = 'full') {}
  note(msg: string): void {
    this.events.push({ op: 'Note', message: msg, depth: this.depth });
  }
  event(e: TraceEvent): void {
    if (this.mode === 'notes') return;
    if (this.mode === 'fails' && e.op !== 'Fail') return;
    this.events.push(e);
  }
  /** Lines like OPA's `opa eval --explain`: "| | Note \"msg\"". */
  lines(): string[] {
    return this.events.map((e) => {
      const indent = '| '.repeat(e.depth + 1);
      const where = e.location ? `${e.location.file}:${e.location.row} ` : 'query:1 ';
      return e.op === 'Note' ? `${where}${indent}Note ${JSON.stringify(e.message)}` : `${where}${indent}${e.op} ${e.message}`;
    });
  }
}
