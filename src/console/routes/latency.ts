// Request latency percentiles from http_request_duration_seconds: per-bucket counts of the
// server's requests (the console's own left out) and their quantiles, interpolated within
// buckets as Prometheus' histogram_quantile does.

import type { DurationHistogram } from '../../server/duration-histogram.js';

export interface Latency {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** One value of a histogram in prom-client's JSON shape (getMetricsAsJSON: the series labels merged in). */
export interface HistogramValue {
  labels: Record<string, string | number | undefined>;
  value: number;
  metricName?: string;
}

/** Requests per bucket of http_request_duration_seconds since start (the last is +Inf), the console's own (handler ui*) left out. */
export function bucketCounts(h: DurationHistogram): number[] {
  return bucketCountsOf(h.get().values, h.upperBounds.length + 1);
}

/** The same from a histogram's values (another process's, read from its registry), with `n` buckets. */
export function bucketCountsOf(values: readonly HistogramValue[], n: number): number[] {
  const counts = new Array<number>(n).fill(0);
  // cumulative bucket values per series: turn them back into per-bucket counts and add up
  const series = new Map<string, number[]>();
  for (const v of values) {
    if (!v.metricName?.endsWith('_bucket')) continue;
    const handler = String(v.labels['handler'] ?? '');
    if (handler === 'ui' || handler.startsWith('ui/')) continue;
    const key = `${v.labels['code']} ${handler} ${v.labels['method']}`;
    let s = series.get(key);
    if (!s) series.set(key, (s = []));
    s.push(v.value);
  }
  for (const cum of series.values()) {
    for (let i = 0; i < cum.length && i < counts.length; i++) counts[i]! += cum[i]! - (i ? cum[i - 1]! : 0);
  }
  return counts;
}

/** Percentiles of per-bucket counts, interpolated within buckets as Prometheus' histogram_quantile does; null without requests. */
export function quantiles(bounds: readonly number[], counts: readonly number[]): Latency {
  const total = counts.reduce((a, b) => a + b, 0);
  const q = (p: number): number | null => {
    if (!total) return null;
    const rank = p * total;
    let acc = 0;
    for (let i = 0; i < counts.length; i++) {
      const n = counts[i]!;
      if (acc + n >= rank && n > 0) {
        if (i >= bounds.length) return bounds[bounds.length - 1] ?? null; // in +Inf: the highest bound
        const lo = i ? bounds[i - 1]! : 0;
        const hi = bounds[i]!;
        return lo + ((hi - lo) * (rank - acc)) / n;
      }
      acc += n;
    }
    return bounds[bounds.length - 1] ?? null;
  };
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99) };
}

/** Percentiles of http_request_duration_seconds over every request since start, the console's own requests left out. */
export function latency(h: DurationHistogram): Latency {
  return quantiles(h.upperBounds, bucketCounts(h));
}

