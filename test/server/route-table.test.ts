// Every route the server registers is declared, with the process that answers it under
// --workers; the 405 answers come from the declared resources. A route added with app.get
// (or app.post, ...) and no declaration fails here; one declared without `answeredBy`
// does not compile.

import { describe, expect, it } from 'vitest';
import { createApp, SERVER_ROUTES } from '../../src/server/index.js';
import { answeredByPrimary, wrongMethodPaths, type RouteDecl, type RouteFamily } from '../../src/server/route-table.js';
import { FakeEngine } from './fake-engine.js';

const key = (r: { method: string; path: string }): string => `${r.method} ${r.path}`;

/** An app with every optional family on (event adapters), and its registered routes. */
function registered(families: RouteFamily[] = []): { handlers: string[]; catchAll: string[] } {
  const { app } = createApp({ engine: new FakeEngine(), processMetrics: false, events: { has: () => false, handle: async () => ({ status: 200, body: {} }) }, families });
  return {
    handlers: app.routes.filter((r) => r.method !== 'ALL').map(key),
    catchAll: app.routes.filter((r) => r.method === 'ALL').map((r) => r.path),
  };
}

describe('the route declarations', () => {
  it('declare every route the server registers, and register every one declared', () => {
    const { handlers } = registered();
    expect([...new Set(handlers)].sort()).toEqual(SERVER_ROUTES.map(key).sort());
    expect(new Set(SERVER_ROUTES.map(key)).size).toBe(SERVER_ROUTES.length);
  });

  it("mount a caller's family after the server's own, declarations and all", () => {
    const extra: RouteFamily = {
      routes: [{ method: 'POST', path: '/extra/*', answeredBy: 'primary' }],
      resources: ['/extra/*'],
      mount: (app) => app.post('/extra/*', (c) => c.text('x')),
    };
    const { handlers, catchAll } = registered([extra]);
    expect(handlers.at(-1)).toBe('POST /extra/*');
    expect(catchAll).toContain('/extra/*');
  });

  it('answer a wrong method with 405 on the declared resources, 404 elsewhere', async () => {
    const { catchAll } = registered();
    expect(catchAll.sort()).toEqual(['/v0/data', '/v0/data/*', '/v1/data', '/v1/data/*', '/v1/policies', '/v1/policies/*', '/v1/query', '/v1/query/*']);
    const { app } = createApp({ engine: new FakeEngine(), processMetrics: false });
    expect((await app.request('/v1/policies/x', { method: 'POST' })).status).toBe(405);
    expect((await app.request('/v1/query/x')).status).toBe(405);
    expect((await app.request('/v1/compile', { method: 'PUT' })).status).toBe(404);
    expect((await app.request('/health', { method: 'POST' })).status).toBe(404);
  });
});

describe('answeredByPrimary', () => {
  const routes: RouteDecl[] = [
    { method: 'GET', path: '/a', answeredBy: 'primary' },
    { method: 'POST', path: '/a', answeredBy: 'worker' },
    { method: 'PUT', path: '/b/*', answeredBy: 'primary' },
    { method: 'GET', path: '/b/*', answeredBy: 'worker' },
  ];
  const owns = answeredByPrimary(routes);

  it('matches exact paths, and a /* path as Hono does (the path itself and every path below), by method', () => {
    expect(owns('GET', '/a')).toBe(true);
    expect(owns('GET', '/a/')).toBe(false);
    expect(owns('POST', '/a')).toBe(false);
    expect(owns('PUT', '/b/x/y')).toBe(true);
    expect(owns('PUT', '/b/')).toBe(true);
    expect(owns('PUT', '/b')).toBe(true);
    expect(owns('PUT', '/bx')).toBe(false);
    expect(owns('GET', '/b/x')).toBe(false);
    expect(owns('DELETE', '/b/x')).toBe(false);
  });

  it("follows Hono's router: a /* route answers the path itself", async () => {
    const { app } = createApp({ engine: new FakeEngine(), processMetrics: false });
    // DELETE /v1/data reaches the DELETE /v1/data/* handler (a write: the primary's), not the 405
    expect((await app.request('/v1/data', { method: 'DELETE' })).status).not.toBe(405);
    expect(answeredByPrimary(SERVER_ROUTES)('DELETE', '/v1/data')).toBe(true);
  });

  it('lists each 405 path once', () => {
    const f = (resources: string[]): RouteFamily => ({ routes: [], resources, mount: () => {} });
    expect(wrongMethodPaths([f(['/x', '/x/*']), f(['/x', '/y'])])).toEqual(['/x', '/x/*', '/y']);
  });
});
