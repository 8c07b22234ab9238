// The output formats of `opa eval`: json (the whole {"result": [...]} document), values,
// bindings, raw (scripting: strings unquoted), and pretty (a bare value for a single
// expression without bindings, a table otherwise, "undefined" when there is no result).

import { toJSONText, type PartialQueries, type RawResult, type RegoErrorDetail, type Value } from '../engine/index.js';
import { prettyErrorText } from '../runtime/policy-set.js';
import { jsonText, ordered } from './json-out.js';
import { EVAL_FORMATS } from './options.js';
import { asciiTable, limit } from './result-table.js';
import type { CoverageReport } from '../engine/index.js';
import type { ExprStats } from '../engine/profiler.js';
import { aggregatedMetricsTable, aggregatedProfileTable, coverageTable, profileTable, type AggregatedExprStats } from './eval-stats.js';
import { goMapText } from './instrument.js';

export { EVAL_FORMATS };
export type EvalFormat = (typeof EVAL_FORMATS)[number];

export interface EvalOutput {
  results?: RawResult[];
  errors?: RegoErrorDetail[];
  metrics?: Record<string, number>;
  /** --instrument: OPA's histogram metrics (go-metrics statistics), shown among the metrics. */
  histograms?: Record<string, Record<string, number>>;
  /** Explanation lines (pretty) or events (json). */
  explanation?: { lines: string[]; events: unknown[] };
  /** Residual queries and support modules (--partial). */
  partial?: PartialQueries;
  /** --count above 1: each timer's statistics over the runs (instead of metrics). */
  aggregatedMetrics?: Record<string, Record<string, number>>;
  /** --coverage: the report over the modules loaded. */
  coverage?: CoverageReport;
  /** --profile: the rows, sorted and limited. */
  profile?: ExprStats[];
  /** How many of `errors` are built-in errors collected by --show-builtin-errors (not fatal). */
  builtinErrorCount?: number;
  /** --profile with --count above 1. */
  aggregatedProfile?: AggregatedExprStats[];
}

export interface Printed {
  stdout: string;
  stderr: string;
}

function bindingsObject(r: RawResult): Record<string, Value> {
  const o: Record<string, Value> = {};
  for (const k of [...r.bindings.keys()].sort()) o[k] = r.bindings.get(k)!;
  return o;
}

function errorsJSON(errors: RegoErrorDetail[]): unknown[] {
  return errors.map((e) =>
    ordered({
      message: e.message,
      code: e.code || undefined,
      location: e.location ? ordered({ file: e.location.file, row: e.location.row, col: e.location.col }) : undefined,
      details: e.details as Value | undefined,
    }),
  );
}

const locationJSON = (l: ExprStats['location']) => ordered({ file: l.file, row: l.row, col: l.col });

function profileJSON(p: ExprStats[]): unknown[] {
  return p.map((s) => ordered({ location: locationJSON(s.location), total_time_ns: s.total_time_ns, num_eval: s.num_eval, num_redo: s.num_redo, num_gen_expr: s.num_gen_expr }));
}

function aggregatedProfileJSON(p: AggregatedExprStats[]): unknown[] {
  return p.map((s) => ordered({ total_time_ns_stats: s.total_time_ns_stats, location: locationJSON(s.location), num_eval: s.num_eval, num_redo: s.num_redo, num_gen_expr: s.num_gen_expr }));
}

type Ranges = { start: { row: number }; end: { row: number } }[] | undefined;
const rangesJSON = (rs: Ranges) => rs?.map((r) => ordered({ start: ordered({ row: r.start.row }), end: ordered({ row: r.end.row }) }));

/** cover.Report in Go's field order (files, covered_lines, not_covered_lines, coverage). */
function coverageJSON(c: CoverageReport): unknown {
  const files: Record<string, unknown> = {};
  for (const name of Object.keys(c.files).sort()) {
    const f = c.files[name]!;
    files[name] = ordered({ covered: rangesJSON(f.covered), not_covered: rangesJSON(f.not_covered), covered_lines: f.covered_lines || undefined, not_covered_lines: f.not_covered_lines || undefined, coverage: f.coverage || undefined });
  }
  return ordered({ files: ordered(files), covered_lines: c.covered_lines || undefined, not_covered_lines: c.not_covered_lines || undefined, coverage: c.coverage || undefined });
}

function jsonOutput(o: EvalOutput, discard = false): string {
  const results = o.results?.map((r) =>
    ordered({
      expressions: r.expressions.map((e) =>
        ordered({
          value: e.value,
          text: e.text,
          location: e.location ? ordered({ row: e.location.row, col: e.location.col }) : undefined,
        }),
      ),
      bindings: r.bindings.size ? bindingsObject(r) : undefined,
    }),
  );
  return (
    jsonText(
      ordered({
        metrics: o.metrics && o.histograms ? sortedKeys({ ...o.metrics, ...o.histograms }) : o.metrics,
        aggregated_metrics: o.aggregatedMetrics,
        coverage: o.coverage ? coverageJSON(o.coverage) : undefined,
        errors: o.errors?.length ? errorsJSON(o.errors) : undefined,
        // --format discard: the document without the values (OPA writes "discarded" in their place).
        result: results?.length ? (discard ? 'discarded' : results) : undefined,
        partial: o.partial ? o.partial.evalOutput() : undefined,
        explanation: o.explanation?.events.length ? o.explanation.events : undefined,
        profile: o.profile?.length ? profileJSON(o.profile) : undefined,
        aggregated_profile: o.aggregatedProfile?.length ? aggregatedProfileJSON(o.aggregatedProfile) : undefined,
      }),
    ) + '\n'
  );
}

function isBool(v: Value): boolean {
  return typeof v === 'boolean';
}

function prettyResult(results: RawResult[], prettyLimit: number): string {
  const first = results[0]!;
  if (results.length === 1 && first.bindings.size === 0) {
    if (first.expressions.length === 1 || first.expressions.every((e) => isBool(e.value))) {
      return toJSONText(first.expressions[0]!.value, 2) + '\n';
    }
  }
  // Columns: variables (sorted), then expressions that are not plain boolean checks.
  type Key = { name: string; pick: (r: RawResult) => Value | undefined };
  const keys: Key[] = [...first.bindings.keys()].sort().map((name) => ({ name, pick: (r) => r.bindings.get(name) }));
  first.expressions.forEach((e, i) => {
    if (!isBool(e.value) || first.bindings.size === 0) keys.push({ name: e.text, pick: (r) => r.expressions[i]?.value });
  });
  const rows = results.map((r) => keys.map((k) => {
    const v = k.pick(r);
    return limit(v === undefined ? 'null' : toJSONText(v), prettyLimit);
  }));
  return asciiTable(keys.map((k) => k.name), rows);
}

/** Go's map order (sorted keys), as OPA's JSON writes its metrics. */
function sortedKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]!]));
}

function metricsTable(metrics: Record<string, number>, histograms: Record<string, Record<string, number>> = {}): string {
  const rows: [string, string][] = Object.keys(metrics).map((n) => [n, String(metrics[n])]);
  for (const [n, h] of Object.entries(histograms)) rows.push([n, goMapText(h)]);
  return asciiTable(['Metric', 'Value'], rows.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Renders the output in a format; errors go to stderr except in the json format. */
export function renderEval(o: EvalOutput, format: EvalFormat, prettyLimit = 80): Printed {
  if (format === 'json' || format === 'discard') return { stdout: jsonOutput(o, format === 'discard'), stderr: '' };
  if (o.errors?.length) return { stdout: '', stderr: prettyErrorText(o.errors) + '\n' };
  if (o.partial) {
    const trace = format === 'pretty' && o.explanation?.lines.length ? o.explanation.lines.join('\n') + '\n' : '';
    return { stdout: trace + partialText(o.partial, format, o.metrics), stderr: '' };
  }
  const results = o.results ?? [];
  switch (format) {
    case 'values':
      return { stdout: results.map((r) => toJSONText(r.expressions.map((e) => e.value), 2) + '\n').join(''), stderr: '' };
    case 'bindings':
      return { stdout: results.map((r) => jsonText(bindingsObject(r)) + '\n').join(''), stderr: '' };
    case 'raw':
      return {
        stdout: results
          .map((r) => r.expressions.map((e) => (typeof e.value === 'string' ? e.value : toJSONText(e.value))).join(' ') + '\n')
          .join(''),
        stderr: '',
      };
    case 'source':
      return { stdout: '', stderr: 'regolith: --format source is only for --partial\n' };
    case 'pretty': {
      let out = '';
      if (o.explanation?.lines.length) out += o.explanation.lines.join('\n') + '\n';
      out += results.length === 0 ? 'undefined\n' : prettyResult(results, prettyLimit);
      if (o.metrics) out += metricsTable(o.metrics, o.histograms);
      if (o.profile) out += profileTable(o.profile);
      if (o.aggregatedMetrics) out += aggregatedMetricsTable(o.aggregatedMetrics);
      if (o.aggregatedProfile) out += aggregatedProfileTable(o.aggregatedProfile);
      if (o.coverage) out += coverageTable(o.coverage.coverage ?? 0);
      return { stdout: out, stderr: '' };
    }
  }
}

/** --partial: `source` prints Rego (# Query N / # Module N); the other formats a table. */
function partialText(p: PartialQueries, format: EvalFormat, metrics?: Record<string, number>): string {
  const queries = p.queriesText;
  const modules = p.supportText;
  if (format === 'source') {
    const parts = [...queries.map((q, i) => `# Query ${i + 1}\n${q}\n`), ...modules.map((m, i) => `# Module ${i + 1}\n${m}`)];
    return parts.join('\n');
  }
  if (!queries.length) return 'false\n';
  const rows: [string, string][] = [...queries.map((q, i) => [`Query ${i + 1}`, q || 'true'] as [string, string]), ...modules.map((m, i) => [`Support ${i + 1}`, m.replace(/\n+$/, '')] as [string, string])];
  let out = boxTable(rows);
  if (metrics) out += metricsTable(metrics);
  return out;
}

/** A two-column table with multi-line cells, as opa eval --partial prints. */
function boxTable(rows: [string, string][]): string {
  const lines = rows.map(([a, b]) => [a, b.split('\n').map((l) => l.replace(/\t/g, '  '))] as const);
  const w1 = Math.max(...lines.map(([a]) => a.length));
  const w2 = Math.max(...lines.flatMap(([, b]) => b.map((l) => l.length)));
  const rule = `+${'-'.repeat(w1 + 2)}+${'-'.repeat(w2 + 2)}+\n`;
  let out = rule;
  for (const [a, b] of lines) {
    b.forEach((l, i) => (out += `| ${(i === 0 ? a : '').padEnd(w1)} | ${l.padEnd(w2)} |\n`));
    out += rule;
  }
  return out;
}
