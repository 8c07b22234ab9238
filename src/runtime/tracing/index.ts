// Starting distributed tracing for `regolith run`. OpenTelemetry is an optional peer
// dependency: otel.ts is imported only when distributed_tracing has a type, and a missing
// package stops start-up naming the npm install to run.

import type { TracingConfig } from '../../plugins/tracing/config.js';
import type { OnTracingError, Tracing } from './otel.js';

const PACKAGES = '@opentelemetry/core@3 @opentelemetry/resources@3 @opentelemetry/sdk-trace@3';

export type { OnTracingError, Tracing };

/**
 * Starts tracing for the process; onError hears of spans that could not be delivered at
 * shutdown, onExportFailed of every export that failed while running.
 */
export async function startTracing(cfg: TracingConfig, onError: OnTracingError = () => {}, onExportFailed: OnTracingError = () => {}): Promise<Tracing> {
  const exporter = cfg.type === 'grpc' ? '@opentelemetry/exporter-trace-otlp-grpc@0.301 @grpc/grpc-js@1' : '@opentelemetry/exporter-trace-otlp-http@0.301';
  try {
    const mod = await import('./otel.js');
    return await mod.startTracing(cfg, onError, onExportFailed);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(`distributed_tracing needs the OpenTelemetry packages, which are not installed: npm install ${PACKAGES} ${exporter} (beside regolith)`);
    }
    throw e;
  }
}
