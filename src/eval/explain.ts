// Explanations (OPA's explain=notes|fails|full|debug): a tracer that keeps every event of
// a query, then renders the events a mode shows as OPA's pretty lines or JSON events.

import type { TraceEvent, Tracer } from './trace/events.js';
import { explainEvents, prettyLines, type ExplainMode } from './trace/pretty.js';
import { eventsJSON } from './trace/json.js';

export type { TraceEvent, TraceOp, TraceNode, Tracer } from './trace/events.js';
export type { ExplainMode } from './trace/pretty.js';

export class BufferTracer implements Tracer {
  /** Every event of the run, unfiltered. */
  readonly all: TraceEvent[] = [];
  constructor(readonly mode: ExplainMode | 'off' = 'full') {}

  note(): void {
    // notes arrive as Note events too
  }

  event(e: TraceEvent): void {
    this.all.push(e);
  }

  /** The events the mode shows. */
  get events(): TraceEvent[] {
    return explainEvents(this.all, this.mode === 'off' ? 'full' : this.mode);
  }

  /** Lines like `opa eval --explain <mode>` prints. */
  lines(): string[] {
    return prettyLines(this.events);
  }

  /** OPA's JSON trace events (the HTTP API's `explanation` without `pretty`). */
  json(): Record<string, unknown>[] {
    return eventsJSON(this.events);
  }
}
