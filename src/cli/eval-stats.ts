// What `opa eval --profile`, `--count` and `--coverage` add to the output, in OPA's shapes:
// the profile table (durations as Go prints them), the statistics of a timer over several
// runs (go-metrics' histogram: count, min, max, mean, stddev, percentiles), the profile
// aggregated over runs, and the one-row coverage table.

import type { ExprStats } from '../engine/profiler.js';
import { asciiTable } from './result-table.js';

/** Go's time.Duration String(): 0s, 850ns, 1.5µs, 12.345ms, 2.5s, 1m0s, 1h2m3s. */
export function goDuration(nsIn: number): string {
  let ns = Math.trunc(nsIn);
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  ns = Math.abs(ns);
  const frac = (n: number, unit: number): string => {
    const whole = Math.floor(n / unit);
    const rest = String(n % unit).padStart(String(unit).length - 1, '0').replace(/0+$/, '');
    return rest ? `${whole}.${rest}` : String(whole);
  };
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${frac(ns, 1e3)}µs`;
  if (ns < 1e9) return `${sign}${frac(ns, 1e6)}ms`;
  const h = Math.floor(ns / 3.6e12);
  const m = Math.floor((ns % 3.6e12) / 6e10);
  const s = frac(ns % 6e10, 1e9);
  return `${sign}${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

/** Go's %v of a float64 (strconv 'g', shortest): exponent form from 1e21 down to 1e6 and below 1e-4. */
export function goFloat(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  const exp = x === 0 ? 0 : Math.floor(Math.log10(Math.abs(x)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = x.toExponential().split('e') as [string, string];
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return String(x);
}

/** go-metrics' sample percentile (interpolated between neighbours, over the sorted values). */
function percentile(sorted: number[], p: number): number {
  const pos = p * (sorted.length + 1);
  if (pos < 1) return sorted[0]!;
  if (pos >= sorted.length) return sorted[sorted.length - 1]!;
  const lower = sorted[Math.trunc(pos) - 1]!;
  const upper = sorted[Math.trunc(pos)]!;
  return lower + (pos - Math.floor(pos)) * (upper - lower);
}

/** OPA's metrics.Statistics: keys in the order Go's JSON encoder writes a map (sorted). */
export function statistics(values: number[]): Record<string, number> {
  const xs = [...values].sort((a, b) => a - b);
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const stddev = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  return {
    '75%': percentile(xs, 0.75),
    '90%': percentile(xs, 0.9),
    '95%': percentile(xs, 0.95),
    '99%': percentile(xs, 0.99),
    '99.9%': percentile(xs, 0.999),
    '99.99%': percentile(xs, 0.9999),
    count: n,
    max: xs[n - 1]!,
    mean,
    median: percentile(xs, 0.5),
    min: xs[0]!,
    stddev,
  };
}

export interface AggregatedExprStats {
  total_time_ns_stats: Record<string, number>;
  location: ExprStats['location'];
  num_eval: number;
  num_redo: number;
  num_gen_expr: number;
}

/** OPA's profiler.AggregateProfiles: the runs' rows paired by position. */
export function aggregateProfiles(profiles: ExprStats[][]): AggregatedExprStats[] {
  const first = profiles[0] ?? [];
  return first.map((s, j) => ({
    total_time_ns_stats: statistics(profiles.map((p) => p[j]?.total_time_ns ?? 0)),
    location: s.location,
    num_eval: s.num_eval,
    num_redo: s.num_redo,
    num_gen_expr: s.num_gen_expr,
  }));
}

/** Each timer's statistics over the runs (OPA's aggregated_metrics). */
export function aggregateMetrics(runs: Record<string, number>[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const name of Object.keys(runs[0] ?? {}).filter((k) => k.startsWith('timer_')).sort()) out[name] = statistics(runs.map((r) => r[name] ?? 0));
  return out;
}

/** ast.Location's String(): file:row, else the expression's text (a query's own expressions). */
function locationText(l: ExprStats['location']): string {
  if (l.file) return `${l.file}:${l.row}`;
  return l.text ? l.text : `${l.row}:${l.col}`;
}

const STAT_KEYS = ['min', 'max', 'mean', '90%', '99%'];

export function profileTable(profile: ExprStats[]): string {
  if (!profile.length) return '';
  const rows = profile.map((s) => [goDuration(s.total_time_ns), String(s.num_eval), String(s.num_redo), String(s.num_gen_expr), locationText(s.location)]);
  return asciiTable(['Time', 'Num Eval', 'Num Redo', 'Num Gen Expr', 'Location'], rows);
}

export function aggregatedProfileTable(profile: AggregatedExprStats[]): string {
  if (!profile.length) return '';
  const rows = profile.map((s) => [...STAT_KEYS.map((k) => goDuration(s.total_time_ns_stats[k] ?? 0)), String(s.num_eval), String(s.num_redo), String(s.num_gen_expr), locationText(s.location)]);
  return asciiTable([...STAT_KEYS.map(titleCase), 'Num Eval', 'Num Redo', 'Num Gen Expr', 'Location'], rows);
}

export function aggregatedMetricsTable(metrics: Record<string, Record<string, number>>): string {
  const names = Object.keys(metrics).sort();
  if (!names.length) return '';
  // min and max are integers (int64) in go-metrics, the others float64: Go's %v prints them differently.
  const cell = (k: string, v: number) => (k === 'min' || k === 'max' ? String(Math.trunc(v)) : goFloat(v));
  return asciiTable(['Metric', ...STAT_KEYS.map(titleCase)], names.map((n) => [n, ...STAT_KEYS.map((k) => cell(k, metrics[n]![k] ?? 0))]));
}

/** The coverage table of `opa eval --coverage --format pretty`: one row, no header. */
export function coverageTable(coverage: number): string {
  const cells = ['Overall Coverage', coverage.toFixed(2)];
  const line = '+' + cells.map((c) => '-'.repeat(c.length + 2)).join('+') + '+';
  return `${line}\n|${cells.map((c) => ` ${c} `).join('|')}|\n${line}\n`;
}

function titleCase(s: string): string {
  return s.replace(/(^|\s)\S/g, (c) => c.toUpperCase());
}
