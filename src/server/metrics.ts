// Prometheus metrics with OPA's names: http_request_duration_seconds{code,handler,method}
// for every API request (recorded by the listener, observe.ts), served at GET /metrics in
// the text exposition format.

import { Registry, collectDefaultMetrics } from 'prom-client';
import type { App } from './context.js';
import type { RouteFamily } from './route-table.js';
import { DurationHistogram } from './duration-histogram.js';
import { registerEventLoopLag } from './event-loop-lag.js';
import { label } from './handler.js';

// OPA's default buckets for http_request_duration_seconds.
export const DEFAULT_BUCKETS = [1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 0.01, 0.1, 1];

export interface HttpMetrics {
  registry: Registry;
  durations: DurationHistogram;
}

/**
 * prom-client's default metrics sample the event loop's lag every
 * `eventLoopMonitoringPrecision` ms with a timer of their own; ours (event-loop-lag.ts)
 * replace those gauges, so theirs is given an interval it never reaches (~24 days).
 */
const PROM_CLIENT_LAG_NEVER_MS = 2 ** 31 - 1;

export function createHttpMetrics(registry: Registry, processMetrics: boolean, buckets = DEFAULT_BUCKETS): HttpMetrics {
  const durations = DurationHistogram.in(registry, buckets);
  if (processMetrics && !registry.getSingleMetric('process_cpu_seconds_total')) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: PROM_CLIENT_LAG_NEVER_MS });
    registerEventLoopLag(registry);
  }
  return { registry, durations };
}

/** Under --workers the primary answers: it adds up every worker's metrics and its own. */
export const metricsRoutes: RouteFamily = {
  routes: [{ method: 'GET', path: '/metrics', answeredBy: 'primary' }],
  mount: (app, _ctx, shared) => registerMetricsEndpoint(app, shared.registry),
};

export function registerMetricsEndpoint(app: App, registry: Registry): void {
  app.get('/metrics', async (c) => {
    label(c, 'metrics');
    const text = await registry.metrics();
    return new Response(text, { status: 200, headers: { 'content-type': registry.contentType } });
  });
}
