// OPA's expression profiler (v1/profiler): the time from one expression's Eval or Redo
// event to the next event of either kind is charged to the first expression's row, with
// the number of evaluations, redos and distinct expressions on that row (num_gen_expr).
// `opa eval --profile` reports the rows sorted by the criteria of --profile-sort.

import type { TraceEvent, TraceLocation, Tracer } from './events.js';

export interface ExprStats {
  /** Where the expression is; `text` (the expression's source) names a query's own expressions. */
  location: TraceLocation & { text?: string };
  total_time_ns: number;
  num_eval: number;
  num_redo: number;
  num_gen_expr: number;
}

/** OPA's default order (presentation.DefaultProfileSortOrder). */
export const DEFAULT_PROFILE_SORT = ['total_time_ns', 'num_eval', 'num_redo', 'file', 'line'];

type Less = (a: ExprStats, b: ExprStats) => boolean;
const CRITERIA: Record<string, Less> = {
  total_time_ns: (a, b) => a.total_time_ns > b.total_time_ns,
  num_eval: (a, b) => a.num_eval > b.num_eval,
  num_redo: (a, b) => a.num_redo > b.num_redo,
  num_gen_expr: (a, b) => a.num_gen_expr > b.num_gen_expr,
  file: (a, b) => a.location.file > b.location.file,
  line: (a, b) => a.location.row > b.location.row,
};

interface Current {
  location: ExprStats['location'];
  op: 'Eval' | 'Redo';
  index: number;
}

export class Profiler implements Tracer {
  /** file -> row -> stats */
  private readonly hits = new Map<string, Map<number, ExprStats>>();
  /** file -> row -> expression indexes seen there */
  private readonly exprs = new Map<string, Map<number, Set<number>>>();
  private started = 0n;
  private current: Current | undefined;

  note(): void {}

  event(e: TraceEvent): void {
    if ((e.op !== 'Eval' && e.op !== 'Redo') || e.node?.type !== 'expr') return;
    const l = e.node.expr.location;
    // Expressions without a location are grouped together, as OPA groups them under "???".
    const location = l ? { file: l.file, row: l.row, col: l.col, text: l.text } : { file: '', row: 0, col: 0, text: '???' };
    this.charge();
    this.current = { location, op: e.op, index: e.node.expr.index };
  }

  /** Charges the time since the current expression started to its row. */
  private charge(): void {
    const now = process.hrtime.bigint();
    const c = this.current;
    if (c) {
      const { file, row } = c.location;
      let rows = this.hits.get(file);
      if (!rows) this.hits.set(file, (rows = new Map()));
      let s = rows.get(row);
      if (!s) rows.set(row, (s = { location: c.location, total_time_ns: 0, num_eval: 0, num_redo: 0, num_gen_expr: 0 }));
      s.total_time_ns += Number(now - this.started);
      if (c.op === 'Eval') s.num_eval++;
      else s.num_redo++;
      let idx = this.exprs.get(file);
      if (!idx) this.exprs.set(file, (idx = new Map()));
      let set = idx.get(row);
      if (!set) idx.set(row, (set = new Set()));
      set.add(c.index);
    }
    this.started = now;
  }

  /** The rows sorted by `criteria` (unknown names ignored), at most `limit` of them (all when <= 0). */
  report(limit: number, criteria: string[] = DEFAULT_PROFILE_SORT): ExprStats[] {
    if (this.current) {
      this.charge();
      this.current = undefined;
    }
    const stats: ExprStats[] = [];
    for (const [file, rows] of this.hits) {
      for (const [row, s] of rows) stats.push({ ...s, location: { ...s.location }, num_gen_expr: this.exprs.get(file)?.get(row)?.size ?? 0 });
    }
    const less = criteria.map((c) => CRITERIA[c]).filter((f): f is Less => f !== undefined);
    if (less.length === 0) return stats;
    stats.sort((a, b) => {
      for (const f of less) {
        if (f(a, b)) return -1;
        if (f(b, a)) return 1;
      }
      return 0;
    });
    return limit <= 0 || limit > stats.length ? stats : stats.slice(0, limit);
  }
}

/** The sort order --profile-sort gives: the criteria named, then OPA's default ones not named. */
export function profileSortOrder(named: string[]): string[] {
  return [...named, ...DEFAULT_PROFILE_SORT.filter((c) => !named.includes(c))];
}
