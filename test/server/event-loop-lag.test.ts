// The event loop's lag in /metrics: the lag beyond the sampling interval, not the interval
// itself (an idle loop reads ~0 although it is sampled every 100 ms), a stall shows at its
// size, and each gauge is there once, in place of prom-client's own.

import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createHttpMetrics } from '../../src/server/metrics.js';
import { LAG_GAUGE_NAMES, SAMPLE_MS } from '../../src/server/event-loop-lag.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function lag(registry: Registry): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of await registry.getMetricsAsJSON()) {
    if (LAG_GAUGE_NAMES.includes(m.name)) out[m.name.replace(/^nodejs_eventloop_lag_|_seconds$/g, '')] = m.values[0]!.value;
  }
  return out;
}

describe('the event loop lag gauges', () => {
  it('read the lag beyond the interval: ~0 when idle, a stall at its size', async () => {
    const registry = new Registry();
    createHttpMetrics(registry, true);
    // the first read starts the window over
    await lag(registry);
    await sleep(6 * SAMPLE_MS);
    const idle = await lag(registry);
    expect(Object.keys(idle).sort()).toEqual(['max', 'mean', 'min', 'p50', 'p90', 'p99', 'stddev']);
    // the interval itself (0.1 s) is not in them; what is left is timer jitter
    expect(idle['p50']).toBeLessThan(0.05);
    expect(idle['min']).toBeGreaterThanOrEqual(0);
    // a 300 ms stall shows as one late sample (read a window later: the statistics of one
    // scrape are taken together, and a read within a second of the last shares its snapshot)
    await sleep(1100);
    await lag(registry);
    // (Node's histogram drops the first sample after a reset: the stall comes a few samples later)
    await sleep(3 * SAMPLE_MS);
    const until = performance.now() + 300;
    while (performance.now() < until);
    await sleep(1100);
    const stalled = await lag(registry);
    expect(stalled['max']).toBeGreaterThan(0.15);
    expect(stalled['max']).toBeLessThan(5);
  });

  it('are registered once each, in place of prom-client\'s', async () => {
    const registry = new Registry();
    createHttpMetrics(registry, true);
    const text = await registry.metrics();
    for (const name of LAG_GAUGE_NAMES) {
      expect(text.split('\n').filter((l) => l.startsWith(`# TYPE ${name} `))).toHaveLength(1);
      expect(text).toContain(`# HELP ${name} The `);
    }
    expect(text).toContain('# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop lags.');
    // prom-client's scrape-time lag (no timer) stays
    expect(text).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
  });
});
