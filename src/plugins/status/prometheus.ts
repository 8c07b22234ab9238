// The `metrics.prometheus` part of the status document: every metric family of the
// registry in the JSON shape of Prometheus' client model (as OPA reports it), keyed by name.

import type { Registry } from 'prom-client';

interface PromValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

interface PromFamily {
  name: string;
  help: string;
  type: string;
  values: PromValue[];
}

function labelPairs(labels: Record<string, string | number>): { name: string; value: string }[] {
  return Object.entries(labels)
    .filter(([k]) => k !== 'le' && k !== 'quantile')
    .map(([name, value]) => ({ name, value: String(value) }));
}

function family(f: PromFamily): Record<string, unknown> {
  const type = String(f.type).toUpperCase();
  const metric: Record<string, unknown>[] = [];
  if (type === 'HISTOGRAM' || type === 'SUMMARY') {
    // Group bucket/sum/count samples per label set.
    const groups = new Map<string, { label: { name: string; value: string }[]; buckets: unknown[]; quantiles: unknown[]; sum?: number; count?: number }>();
    for (const v of f.values) {
      const label = labelPairs(v.labels);
      const key = JSON.stringify(label);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { label, buckets: [], quantiles: [] }));
      const mn = v.metricName ?? f.name;
      if (mn.endsWith('_bucket')) g.buckets.push({ cumulative_count: v.value, upper_bound: v.labels['le'] === '+Inf' ? 'Infinity' : Number(v.labels['le']) });
      else if (mn.endsWith('_sum')) g.sum = v.value;
      else if (mn.endsWith('_count')) g.count = v.value;
      else if (v.labels['quantile'] !== undefined) g.quantiles.push({ quantile: Number(v.labels['quantile']), value: v.value });
    }
    for (const g of groups.values()) {
      metric.push(
        type === 'HISTOGRAM'
          ? { label: g.label, histogram: { sample_count: g.count ?? 0, sample_sum: g.sum ?? 0, bucket: g.buckets } }
          : { label: g.label, summary: { sample_count: g.count ?? 0, sample_sum: g.sum ?? 0, quantile: g.quantiles } },
      );
    }
  } else {
    const kind = type === 'COUNTER' ? 'counter' : type === 'GAUGE' ? 'gauge' : 'untyped';
    for (const v of f.values) metric.push({ label: labelPairs(v.labels), [kind]: { value: v.value } });
  }
  return { name: f.name, help: f.help, type, metric };
}

export async function prometheusDocument(registry: Registry): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const f of (await registry.getMetricsAsJSON()) as unknown as PromFamily[]) out[f.name] = family(f);
  return out;
}
