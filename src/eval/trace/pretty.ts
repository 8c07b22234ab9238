// Explain modes and OPA's pretty trace lines ("query:1     | Eval x = 1"). The filters
// follow OPA's lineage package: notes and fails keep each matching event with the chain
// of Enter/Redo events of the rules and queries that led to it; full keeps everything.

import { nodeText, type TraceEvent } from './events.js';

export type ExplainMode = 'notes' | 'fails' | 'full' | 'debug';

/** The events an explain mode shows. */
export function explainEvents(events: readonly TraceEvent[], mode: ExplainMode): TraceEvent[] {
  if (mode === 'full' || mode === 'debug') return events.slice();
  return lineage(events, mode === 'notes' ? 'Note' : 'Fail');
}

function lineage(events: readonly TraceEvent[], op: 'Note' | 'Fail'): TraceEvent[] {
  const out: TraceEvent[] = [];
  let open = new Map<number, TraceEvent>();
  for (const e of events) {
    if (e.op === op) {
      const path: TraceEvent[] = [e];
      let cur = open.get(e.queryId);
      let prev: TraceEvent | undefined;
      while (cur && cur !== prev) {
        path.push(cur);
        prev = cur;
        cur = open.get(cur.parentId);
      }
      for (let i = path.length - 1; i >= 0; i--) out.push(path[i]!);
      open = new Map();
    }
    if ((e.op === 'Enter' || e.op === 'Redo') && (e.node?.type === 'rule' || e.node?.type === 'body')) open.set(e.queryId, e);
  }
  return out;
}

/** Depth of each query: its parent's depth plus one (the top query is 1). */
function depthOf(depths: Map<number, number>, e: TraceEvent): number {
  let d = depths.get(e.queryId);
  if (d === undefined) {
    d = (depths.get(e.parentId) ?? 0) + 1;
    depths.set(e.queryId, d);
  }
  return d;
}

function padding(e: TraceEvent, depth: number): string {
  const flat = e.op === 'Enter' || (e.op === 'Redo' && e.node?.type !== 'expr');
  const n = flat ? depth : depth + 1;
  return n > 1 ? '| '.repeat(n - 1) : '';
}

/** One event without its location, as OPA's formatEvent prints it. */
export function formatEvent(e: TraceEvent, depth: number): string {
  const pad = padding(e, depth);
  if (e.op === 'Note') return `${pad}Note ${JSON.stringify(e.message ?? '')}`;
  const text = nodeText(e.node);
  return e.message ? `${pad}${e.op} ${text} ${e.message}` : `${pad}${e.op} ${text}`;
}

function locationText(e: TraceEvent): string {
  const l = e.location;
  if (!l) return '';
  return `${l.file === '' ? 'query' : l.file}:${l.row}`;
}

/** OPA's PrettyTraceWithLocation: a location column, then the indented event. */
export function prettyLines(events: readonly TraceEvent[]): string[] {
  const depths = new Map<number, number>();
  let longest = 0;
  for (const e of events) if (e.location) longest = Math.max(longest, (e.location.file || 'query').length + String(e.location.row).length + 1);
  const width = longest + 4;
  return events.map((e) => `${locationText(e).padEnd(width)} ${formatEvent(e, depthOf(depths, e))}`);
}

/** OPA's PrettyTrace (no locations). */
export function prettyLinesPlain(events: readonly TraceEvent[]): string[] {
  const depths = new Map<number, number>();
  return events.map((e) => formatEvent(e, depthOf(depths, e)));
}
