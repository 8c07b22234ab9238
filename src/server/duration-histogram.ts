// http_request_duration_seconds as a prom-client metric whose observe() is cheap enough
// for every request: prom-client's Histogram validates and hashes the label object on
// each observation (~2 µs); here a label set is resolved once to its counters and an
// observation is a bucket search and three additions. The registry reads it through the
// same get()/getForPromString() shapes as a prom-client Histogram, so /metrics and the
// status plugin's status.prometheus show it exactly as before.

import type { Registry } from 'prom-client';

export const HTTP_DURATION = 'http_request_duration_seconds';

interface Series {
  code: number;
  handler: string;
  method: string;
  labels: Record<string, string>;
  /** Non-cumulative counts per bucket; the last slot is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

interface PromValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
}

export class DurationHistogram {
  readonly name = HTTP_DURATION;
  readonly help = 'A histogram of duration for requests.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private series = new Map<string, Series>();
  /** The series of the previous observation: most requests repeat it. */
  private last: Series | undefined;

  constructor(readonly upperBounds: readonly number[]) {}

  /** Records one request. */
  observe(code: number, handler: string, method: string, seconds: number): void {
    let s = this.last;
    if (s === undefined || s.code !== code || s.handler !== handler || s.method !== method) {
      const key = `${code} ${handler} ${method}`;
      s = this.series.get(key);
      if (!s) {
        const counts = new Array<number>(this.upperBounds.length + 1).fill(0);
        s = { code, handler, method, labels: { code: String(code), handler, method }, counts, sum: 0, count: 0 };
        this.series.set(key, s);
      }
      this.last = s;
    }
    const b = this.upperBounds;
    let i = 0;
    while (i < b.length && seconds > b[i]!) i++;
    s.counts[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** prom-client's text exposition shape: `le` as the label, the series labels shared. */
  getForPromString(): { name: string; help: string; type: string; values: PromValue[]; aggregator: string } {
    const values: PromValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i < this.upperBounds.length; i++) {
        acc += s.counts[i]!;
        values.push({ labels: { le: this.upperBounds[i]! }, sharedLabels: s.labels, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** prom-client's JSON shape (getMetricsAsJSON): series labels merged into each value's labels. */
  get(): { name: string; help: string; type: string; values: PromValue[]; aggregator: string } {
    const m = this.getForPromString();
    m.values = m.values.map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } }));
    return m;
  }

  reset(): void {
    this.series = new Map();
    this.last = undefined;
  }

  /** The histogram already in `registry` (one per registry, shared by its servers) or a new one. */
  static in(registry: Registry, upperBounds: readonly number[]): DurationHistogram {
    const existing = registry.getSingleMetric(HTTP_DURATION) as unknown;
    if (existing instanceof DurationHistogram) return existing;
    if (existing) throw new Error(`${HTTP_DURATION} is already registered with another type`);
    const h = new DurationHistogram(upperBounds);
    registry.registerMetric(h as never);
    return h;
  }
}
