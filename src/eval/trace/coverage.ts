// Test coverage as `opa test --coverage` computes it: an expression's line is covered when
// the expression was evaluated (Eval), a rule's head line when the rule produced a value
// (Exit); every other rule head and expression of the modules is not covered.

import type { Body, Expr, Module, Rule, Term } from '../../lang/ast.js';
import { forEachChildTerm } from '../../lang/visit.js';
import type { TraceEvent, Tracer } from './events.js';

export interface Range {
  start: { row: number };
  end: { row: number };
}

export interface FileCoverage {
  covered?: Range[];
  not_covered?: Range[];
  covered_lines?: number;
  not_covered_lines?: number;
  coverage?: number;
}

export interface CoverageReport {
  files: Record<string, FileCoverage>;
  covered_lines?: number;
  not_covered_lines?: number;
  coverage?: number;
}

/** Collects the covered rows of each file (shareable across many query runs). */
export class CoverageTracer implements Tracer {
  readonly hits = new Map<string, Set<number>>();

  note(): void {}

  event(e: TraceEvent): void {
    if (e.op === 'Exit' && e.node?.type === 'rule') this.hit(e.node.rule.head.location ?? e.node.rule.location);
    else if (e.op === 'Eval' && e.node?.type === 'expr') this.hit(e.node.expr.location);
  }

  private hit(l: { file: string; row: number } | undefined): void {
    if (!l || !l.file) return;
    let s = this.hits.get(l.file);
    if (!s) this.hits.set(l.file, (s = new Set()));
    s.add(l.row);
  }
}

/** Sorted rows to OPA's ranges of consecutive rows. */
function ranges(rows: number[]): Range[] {
  const out: Range[] = [];
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r === last.end.row + 1) last.end.row = r;
    else out.push({ start: { row: r }, end: { row: r } });
  }
  return out;
}

function lines(rs: Range[] | undefined): number {
  let n = 0;
  for (const r of rs ?? []) n += r.end.row - r.start.row + 1;
  return n;
}

// OPA rounds with math.Round(x*10*p)/(10*p) for p=2, i.e. to the nearest 0.05
function round(x: number): number {
  return Math.round(x * 20) / 20;
}

function walkRules(m: Module, fn: (r: Rule) => void): void {
  for (const r of m.rules) for (let x: Rule | undefined = r; x; x = x.else) fn(x);
}

function walkTermBodies(t: Term, fn: (e: Expr) => void): void {
  forEachChildTerm(
    t,
    (x) => walkTermBodies(x, fn),
    undefined,
    (b) => walkBody(b, fn),
  );
}

function walkBody(b: Body, fn: (e: Expr) => void): void {
  for (const e of b) {
    fn(e);
    const t = e.terms;
    if (Array.isArray(t)) t.forEach((x) => walkTermBodies(x, fn));
    else if (t.type === 'every') walkBody(t.body, fn);
    else if (t.type === 'somedecl') t.symbols.forEach((x) => walkTermBodies(x, fn));
    else walkTermBodies(t, fn);
  }
}

/** A plain `some x` declaration is not code that runs (OPA leaves it out). */
function counts(e: Expr): boolean {
  const t = e.terms;
  if (!Array.isArray(t) && t.type === 'somedecl') return t.symbols.some((s) => s.type === 'call');
  return !!e.location?.file;
}

export function coverageReport(hits: Map<string, Set<number>>, modules: Map<string, Module>): CoverageReport {
  const files: Record<string, FileCoverage> = {};
  for (const [file, rows] of hits) files[file] = { covered: ranges([...rows]) };
  for (const [file, m] of modules) {
    const rows = hits.get(file) ?? new Set<number>();
    const missing: number[] = [];
    walkRules(m, (r) => {
      const head = r.head.location ?? r.location;
      if (head?.file && !rows.has((r.location ?? head).row)) missing.push(head.row);
      walkBody(r.body, (e) => {
        if (counts(e) && e.location && !rows.has(e.location.row)) missing.push(e.location.row);
      });
    });
    const f = (files[file] ??= {});
    if (missing.length) f.not_covered = ranges(missing);
  }
  let covered = 0;
  let notCovered = 0;
  for (const f of Object.values(files)) {
    const c = lines(f.covered);
    const n = lines(f.not_covered);
    if (c) f.covered_lines = c;
    if (n) f.not_covered_lines = n;
    if (c + n) f.coverage = round((100 * c) / (c + n));
    if (!f.covered?.length) delete f.covered;
    covered += c;
    notCovered += n;
  }
  const report: CoverageReport = { files };
  if (covered) report.covered_lines = covered;
  if (notCovered) report.not_covered_lines = notCovered;
  report.coverage = covered + notCovered ? round((100 * covered) / (covered + notCovered)) : 0;
  return report;
}

/** OPA's CoverageThresholdError message. */
export function thresholdMessage(coverage: number, threshold: number): string {
  return `Code coverage threshold not met: got ${coverage.toFixed(2)} instead of ${threshold.toFixed(2)}`;
}
