// nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds: how late the event loop
// ran a timer that should have fired every SAMPLE_MS, over the time since the last scrape.
//
// prom-client's default metrics carry the same gauges, sampled every 10 ms: that timer woke
// every process 100 times a second (~0.7% of a core each, idle; ~7 µs a decision with
// --workers 2 at 2,000/s, bench/README). Here the timer fires every 100 ms. Node's histogram
// records the whole time between two firings, the interval included (prom-client's gauges read
// ~0.010 s on an idle loop); these report what is beyond the interval, the lag itself, so that
// a longer interval does not raise them: an idle loop reads ~0, a 300 ms stall ~0.2-0.3 s.
// A stall shorter than SAMPLE_MS shows only when it delays a firing, and Node's histogram drops
// the first firing after a reset (each scrape's): a stall just as a scrape ends goes unseen.

import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

/** How often the lag is sampled, in ms. */
export const SAMPLE_MS = 100;

/** The gauges' names, help and how --workers' primary combines the workers' values (prom-client's). */
const GAUGES = [
  ['min', 'The minimum recorded event loop lag.', 'min'],
  ['max', 'The maximum recorded event loop lag.', 'max'],
  ['mean', 'The mean of the recorded event loop lags.', 'average'],
  ['stddev', 'The standard deviation of the recorded event loop lags.', 'average'],
  ['p50', 'The 50th percentile of the recorded event loop lags.', 'average'],
  ['p90', 'The 90th percentile of the recorded event loop lags.', 'average'],
  ['p99', 'The 99th percentile of the recorded event loop lags.', 'average'],
] as const;

type Stat = (typeof GAUGES)[number][0];

const gaugeName = (stat: Stat): string => `nodejs_eventloop_lag_${stat}_seconds`;

export const LAG_GAUGE_NAMES: readonly string[] = GAUGES.map(([stat]) => gaugeName(stat));

/** One statistic of the samples since the last reset, in seconds beyond the interval. */
function statOf(h: IntervalHistogram, stat: Stat): number {
  if (h.count === 0) return 0;
  const interval = SAMPLE_MS * 1e6;
  const beyond = (ns: number): number => Math.max(0, ns - interval) / 1e9;
  switch (stat) {
    case 'min':
      return beyond(h.min);
    case 'max':
      return beyond(h.max);
    case 'mean':
      return beyond(h.mean);
    case 'stddev':
      return h.stddev / 1e9;
    case 'p50':
      return beyond(h.percentile(50));
    case 'p90':
      return beyond(h.percentile(90));
    case 'p99':
      return beyond(h.percentile(99));
  }
}

/**
 * The statistics of one scrape are taken together, and the samples start over: a gauge read
 * more than this long after the last snapshot takes a new one (a scrape reads all seven
 * within it).
 */
const SNAPSHOT_MS = 1000;

/** Registers the lag gauges in `registry` (replacing any of the same names) and starts sampling. */
export function registerEventLoopLag(registry: Registry): void {
  const h = monitorEventLoopDelay({ resolution: SAMPLE_MS });
  h.enable();
  let snapshot = {} as Record<Stat, number>;
  let takenAt = -Infinity;
  const current = (): Record<Stat, number> => {
    const now = performance.now();
    if (now - takenAt > SNAPSHOT_MS) {
      snapshot = {} as Record<Stat, number>;
      for (const [s] of GAUGES) snapshot[s] = statOf(h, s);
      h.reset();
      takenAt = now;
    }
    return snapshot;
  };
  for (const [stat, help, aggregator] of GAUGES) {
    const name = gaugeName(stat);
    registry.removeSingleMetric(name);
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator,
      collect() {
        this.set(current()[stat]);
      },
    });
  }
}
