// Assembles the Hono application: one module per API family. OPA answers unknown paths
// with Go's "404 page not found" and known resources with a wrong method with an empty 405.

import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { resolveContext, type App, type Env, type ServerContext, type ServerOptions } from './context.js';
import { createHttpMetrics, registerMetricsEndpoint } from './metrics.js';
import { registerDataRead } from './routes/data-read.js';
import { registerDataWrite } from './routes/data-write.js';
import { registerV0 } from './routes/v0.js';
import { registerPolicies } from './routes/policies.js';
import { registerQuery } from './routes/query.js';
import { registerCompile } from './routes/compile.js';
import { registerBatch } from './routes/batch.js';
import { registerHealth } from './routes/health.js';
import { registerEvents } from './routes/events.js';
import { registerConfigStatus } from './routes/config.js';
import { registerIndex } from './routes/index-page.js';
import { registerConsole } from './console.js';
import { errorResponse, toHttpError } from './errors.js';
import { label } from './handler.js';
import type { DurationHistogram } from './duration-histogram.js';

export interface CreatedApp {
  app: App;
  ctx: ServerContext;
  registry: Registry;
  /** http_request_duration_seconds, recorded by the Node listener (listener.ts). */
  durations: DurationHistogram;
}

const METHOD_NOT_ALLOWED = ['/v0/data', '/v0/data/*', '/v1/data', '/v1/data/*', '/v1/policies', '/v1/policies/*', '/v1/query', '/v1/query/*'];

export function createApp(opts: ServerOptions): CreatedApp {
  const ctx = resolveContext(opts);
  const registry = opts.registry ?? new Registry();
  const metrics = createHttpMetrics(registry, opts.processMetrics ?? true);
  const app = new Hono<Env>();

  // Request logging and metrics live in the Node listener (listener.ts), not in Hono
  // middleware: with no middleware, Hono calls the one matching handler directly.
  registerHealth(app, ctx);
  registerMetricsEndpoint(app, registry);
  if (opts.diagnostic) {
    app.notFound(() => new Response('404 page not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } }));
    return { app, ctx, registry, durations: metrics.durations };
  }
  registerDataRead(app, ctx);
  registerDataWrite(app, ctx);
  registerV0(app, ctx);
  registerPolicies(app, ctx);
  registerQuery(app, ctx);
  registerCompile(app, ctx);
  registerBatch(app, ctx);
  registerEvents(app, ctx);
  registerConfigStatus(app, ctx);
  registerIndex(app, ctx);
  registerConsole(app, ctx, metrics.durations);

  for (const p of METHOD_NOT_ALLOWED) {
    app.all(p, (c) => {
      label(c, 'catchall');
      return new Response(null, { status: 405 });
    });
  }
  app.notFound((c) => {
    label(c, 'catchall');
    return new Response('404 page not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  });
  app.onError((err) => errorResponse(toHttpError(err)));
  return { app, ctx, registry, durations: metrics.durations };
}
