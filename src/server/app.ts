// Assembles the Hono application: one module per API family, each declaring its routes
// (route-table.ts), and the families the caller adds (the web console, which the runtime
// wires: the server never imports it). OPA answers unknown paths with Go's "404 page not
// found" and known resources with a wrong method with an empty 405.

import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { resolveContext, type App, type Env, type ServerContext, type ServerOptions } from './context.js';
import { createHttpMetrics, metricsRoutes } from './metrics.js';
import { dataReadRoutes } from './routes/data-read.js';
import { dataWriteRoutes } from './routes/data-write.js';
import { v0Routes } from './routes/v0.js';
import { policiesRoutes } from './routes/policies.js';
import { queryRoutes } from './routes/query.js';
import { compileRoutes } from './routes/compile.js';
import { batchRoutes } from './routes/batch.js';
import { healthRoutes } from './routes/health.js';
import { eventsRoutes } from './routes/events.js';
import { configStatusRoutes } from './routes/config.js';
import { indexRoutes } from './routes/index-page.js';
import { declared, wrongMethodPaths, type MountShared, type RouteDecl, type RouteFamily } from './route-table.js';
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

/** What the diagnostic listener serves (--diagnostic-addr); the others serve these first. */
const DIAGNOSTIC: readonly RouteFamily[] = [healthRoutes, metricsRoutes];
const API: readonly RouteFamily[] = [dataReadRoutes, dataWriteRoutes, v0Routes, policiesRoutes, queryRoutes, compileRoutes, batchRoutes, eventsRoutes, configStatusRoutes, indexRoutes];

/** Every route the server itself declares (families given in ServerOptions.families come on top). */
export const SERVER_ROUTES: readonly RouteDecl[] = declared([...DIAGNOSTIC, ...API]);

export function createApp(opts: ServerOptions): CreatedApp {
  const ctx = resolveContext(opts);
  const registry = opts.registry ?? new Registry();
  const metrics = createHttpMetrics(registry, opts.processMetrics ?? true);
  const app = new Hono<Env>();

  // Request logging and metrics live in the Node listener (listener.ts), not in Hono
  // middleware: with no middleware, Hono calls the one matching handler directly.
  const shared: MountShared = { registry, durations: metrics.durations };
  for (const f of DIAGNOSTIC) f.mount(app, ctx, shared);
  if (opts.diagnostic) {
    app.notFound(() => new Response('404 page not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } }));
    return { app, ctx, registry, durations: metrics.durations };
  }
  const families = [...API, ...(opts.families ?? [])];
  for (const f of families) f.mount(app, ctx, shared);

  // after every route: a wrong method on a known resource
  for (const p of wrongMethodPaths(families)) {
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
