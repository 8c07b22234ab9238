// Prometheus metrics with OPA's names: http_request_duration_seconds{code,handler,method}
// for every API request, served at GET /metrics in the text exposition format.

import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MiddlewareHandler } from 'hono';
import type { App, Env } from './context.js';

// OPA's default buckets for http_request_duration_seconds.
export const DEFAULT_BUCKETS = [1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 0.01, 0.1, 1];

export interface HttpMetrics {
  registry: Registry;
  middleware: MiddlewareHandler<Env>;
}

export function createHttpMetrics(registry: Registry, processMetrics: boolean, buckets = DEFAULT_BUCKETS): HttpMetrics {
  const existing = registry.getSingleMetric('http_request_duration_seconds');
  const duration =
    (existing as Histogram<'code' | 'handler' | 'method'> | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'A histogram of duration for requests.',
      labelNames: ['code', 'handler', 'method'],
      buckets,
      registers: [registry],
    });
  if (processMetrics && !registry.getSingleMetric('process_cpu_seconds_total')) collectDefaultMetrics({ register: registry });
  const middleware: MiddlewareHandler<Env> = async (c, next) => {
    const start = process.hrtime.bigint();
    await next();
    const handler = c.get('handler') ?? 'catchall';
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    duration.observe({ code: String(c.res.status), handler, method: c.req.method.toLowerCase() }, seconds);
  };
  return { registry, middleware };
}

export function registerMetricsEndpoint(app: App, registry: Registry): void {
  app.get('/metrics', async (c) => {
    c.set('handler', 'metrics');
    const text = await registry.metrics();
    return new Response(text, { status: 200, headers: { 'content-type': registry.contentType } });
  });
}
