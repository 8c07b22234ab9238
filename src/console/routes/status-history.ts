// The dashboard's last hour: every `intervalMs` (10 s) a sample of decisions per second,
// request latency percentiles over the interval, and memory; and the bundle, adapter and
// discovery errors as they appear (an error is recorded when it first shows, again when it
// changes or comes back after a success). Everything is read when sampling (the request
// histogram, the plugins' statuses, process.memoryUsage): nothing runs per decision. The
// history starts when the server does; an error that comes and goes between two samples
// is not seen. With --workers the workers answer the decisions: their histograms are read
// from their registries at each sample (ConsoleOptions.otherProcesses) and added up, each
// process's counts compared with its own previous reading (a replaced worker starts anew).

import type { Value } from '../../value/index.js';
import type { DurationHistogram } from '../../server/duration-histogram.js';
import { HTTP_DURATION } from '../../server/duration-histogram.js';
import { bucketCountsOf, quantiles, type HistogramValue, type Latency } from './latency.js';
import type { OtherProcesses } from '../options.js';

export const SAMPLE_MS = 10_000;
export const KEEP_MS = 60 * 60_000;
export const MAX_ERRORS = 100;

/** Handlers whose GET and POST requests are decisions (the data API). */
const DECISION_HANDLERS = new Set(['v1/data', 'v0/data']);

export interface Sample {
  /** Milliseconds since the epoch. */
  t: number;
  decisions_per_s: number;
  /** Seconds, over the requests of the interval; null when there were none. */
  latency: Latency;
  rss: number;
  heap_used: number;
}

export interface ErrorEntry {
  /** When the error was first seen (RFC 3339). */
  time: string;
  kind: 'bundle' | 'adapter' | 'discovery';
  name: string;
  code: string;
  message: string;
}

type Parts = { bundles?: Value; adapters?: Value; discovery?: Value };

/** A worker that does not answer within this is left out of the sample. */
const OTHERS_MS = 2_000;

/** What one process counted since it started: decisions, and requests per latency bucket. */
interface Reading {
  decisions: number;
  buckets: number[];
}

function decisionsSoFar(values: readonly HistogramValue[]): number {
  let n = 0;
  for (const v of values) {
    if (!v.metricName?.endsWith('_count')) continue;
    // the histogram's method label is lower case, as OPA's
    const m = String(v.labels['method'] ?? '').toLowerCase();
    if (DECISION_HANDLERS.has(String(v.labels['handler'] ?? '')) && (m === 'get' || m === 'post')) n += v.value;
  }
  return n;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request histogram's values in a registry's getMetricsAsJSON(), none when it has no such metric. */
function durationValues(metrics: unknown): HistogramValue[] {
  if (!Array.isArray(metrics)) return [];
  const m: unknown = metrics.find((x) => isObj(x) && x['name'] === HTTP_DURATION);
  return isObj(m) && Array.isArray(m['values']) ? (m['values'] as HistogramValue[]) : [];
}

/** The error a status shows (OPA's code and message, or its first error), or undefined when it is fine. */
function errorOf(s: unknown): { code: string; message: string } | undefined {
  if (!isObj(s)) return undefined;
  const errors = Array.isArray(s['errors']) ? (s['errors'] as unknown[]).map(String) : [];
  if (!s['code'] && !s['message'] && !errors.length) return undefined;
  return { code: String(s['code'] ?? ''), message: String(s['message'] ?? errors[0] ?? '') };
}

export class StatusHistory {
  readonly samples: Sample[] = [];
  readonly errors: ErrorEntry[] = [];
  /** The previous sample's time and each process's reading then ('' is this process). */
  private prev: { t: number; by: Map<string, Reading> };
  private readonly current = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private sampling = false;

  constructor(
    private readonly durations: DurationHistogram,
    private readonly parts: () => Parts,
    private readonly intervalMs = SAMPLE_MS,
    private readonly keepMs = KEEP_MS,
    private readonly others?: OtherProcesses,
  ) {
    // the other processes start with the server: their first reading counts from zero
    this.prev = { t: Date.now(), by: new Map([['', this.readingOf(durations.get().values)]]) };
  }

  /** Samples every interval from now on (the timer never keeps the process alive). */
  start(): this {
    this.timer ??= setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
    this.errorsNow();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private readingOf(values: readonly HistogramValue[]): Reading {
    return { decisions: decisionsSoFar(values), buckets: bucketCountsOf(values, this.durations.upperBounds.length + 1) };
  }

  /** Every process's counts now: this one's, and the other processes' that answer in time. */
  async readAll(): Promise<Map<string, Reading>> {
    const by = new Map([['', this.readingOf(this.durations.get().values)]]);
    if (!this.others) return by;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<[]>((r) => (timer = setTimeout(() => r([]), OTHERS_MS)));
    const others = await Promise.race([this.others().catch(() => []), late]);
    clearTimeout(timer);
    for (const o of others) by.set(`worker ${o.id}`, this.readingOf(durationValues(o.metrics)));
    return by;
  }

  /** Percentiles over every request since start, every process's. */
  async latencyNow(): Promise<Latency> {
    const total = new Array<number>(this.durations.upperBounds.length + 1).fill(0);
    for (const r of (await this.readAll()).values()) r.buckets.forEach((n, i) => (total[i]! += n));
    return quantiles(this.durations.upperBounds, total);
  }

  async sample(now = Date.now()): Promise<void> {
    if (this.sampling) return; // a worker still answering the last one
    this.sampling = true;
    try {
      const by = await this.readAll();
      const seconds = Math.max((now - this.prev.t) / 1000, 1e-3);
      let decisions = 0;
      const delta = new Array<number>(this.durations.upperBounds.length + 1).fill(0);
      for (const [key, r] of by) {
        const p = this.prev.by.get(key);
        decisions += Math.max(0, r.decisions - (p?.decisions ?? 0));
        r.buckets.forEach((n, i) => (delta[i]! += Math.max(0, n - (p?.buckets[i] ?? 0))));
      }
      const mem = process.memoryUsage();
      this.samples.push({ t: now, decisions_per_s: decisions / seconds, latency: quantiles(this.durations.upperBounds, delta), rss: mem.rss, heap_used: mem.heapUsed });
      while (this.samples.length && this.samples[0]!.t < now - this.keepMs) this.samples.shift();
      this.prev = { t: now, by };
      this.errorsNow(now);
    } finally {
      this.sampling = false;
    }
  }

  /** Records the errors showing now that were not showing (or showed another error) at the last look. */
  errorsNow(now = Date.now()): void {
    let p: Parts;
    try {
      p = this.parts();
    } catch {
      return;
    }
    const seen = new Set<string>();
    const look = (kind: ErrorEntry['kind'], name: string, s: unknown) => {
      const key = `${kind}\0${name}`;
      const e = errorOf(s);
      if (!e) return;
      seen.add(key);
      const text = `${e.code}\0${e.message}`;
      if (this.current.get(key) === text) return;
      this.current.set(key, text);
      this.errors.push({ time: new Date(now).toISOString(), kind, name, ...e });
      if (this.errors.length > MAX_ERRORS) this.errors.splice(0, this.errors.length - MAX_ERRORS);
    };
    if (isObj(p.bundles)) for (const [name, s] of Object.entries(p.bundles)) look('bundle', name, s);
    if (isObj(p.adapters)) for (const [name, s] of Object.entries(p.adapters)) look('adapter', name, s);
    if (p.discovery !== undefined) look('discovery', isObj(p.discovery) && typeof p.discovery['name'] === 'string' ? p.discovery['name'] : 'discovery', p.discovery);
    // cleared errors: the next one of the same source is recorded even if the text repeats
    for (const key of [...this.current.keys()]) if (!seen.has(key)) this.current.delete(key);
  }
}
