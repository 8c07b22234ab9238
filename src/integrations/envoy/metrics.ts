// enable-performance-metrics: OPA's plugin adds grpc_request_duration_seconds{handler="check"}
// (a histogram of answered Checks) and error_counter{reason} to the server's Prometheus
// registry, so /metrics shows them beside the HTTP server's.

import { Counter, Histogram, type Registry } from 'prom-client';

export function performanceMetrics(registry: Registry, buckets: number[]): { observe(seconds: number): void; error(reason: string): void } {
  const existing = registry.getSingleMetric('grpc_request_duration_seconds');
  const duration = (existing as Histogram<'handler'> | undefined) ?? new Histogram({ name: 'grpc_request_duration_seconds', help: 'A histogram of duration for grpc authz requests.', labelNames: ['handler'], buckets, registers: [registry] });
  const errors = (registry.getSingleMetric('error_counter') as Counter<'reason'> | undefined) ?? new Counter({ name: 'error_counter', help: 'A counter for errors', labelNames: ['reason'], registers: [registry] });
  return {
    observe: (s) => duration.observe({ handler: 'check' }, s),
    error: (reason) => errors.inc({ reason }),
  };
}
