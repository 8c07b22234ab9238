// Which process answers a request under --workers, as derived from the routes'
// declarations: the table the --workers end-to-end test (test/cli/workers.test.ts) relies
// on — writes, /v1/status, /metrics, events and the console's impact, status and recent
// decisions at the primary; decisions, reads, the playground, the pages and the live
// stream at the worker — and every route the app and the console register is declared.

import { describe, expect, it } from 'vitest';
import { primaryOwns } from '../../../src/runtime/workers/protocol.js';
import { createApp, SERVER_ROUTES } from '../../../src/server/index.js';
import { CONSOLE_ROUTES, consoleRoutes } from '../../../src/console/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';

const PRIMARY: [string, string][] = [
  ['PUT', '/v1/data'],
  ['PUT', '/v1/data/kv/items/a'],
  ['PATCH', '/v1/data'],
  ['PATCH', '/v1/data/kv'],
  ['DELETE', '/v1/data/kv/ryw'],
  ['DELETE', '/v1/data'],
  ['PUT', '/v1/policies/extra'],
  ['DELETE', '/v1/policies/extra'],
  ['GET', '/v1/status'],
  // the active configuration: the primary's, which discovery may have changed
  ['GET', '/v1/config'],
  ['GET', '/metrics'],
  ['POST', '/v1/events/ci'],
  ['POST', '/v1/events'],
  ['POST', '/ui/api/impact'],
  ['GET', '/ui/api/status'],
  ['GET', '/ui/api/decisions'],
];

const WORKER: [string, string][] = [
  ['POST', '/v1/data/authz/allow'],
  ['GET', '/v1/data/kv/items'],
  ['GET', '/v1/data'],
  ['POST', '/'],
  ['POST', '/v0/data/authz/allow'],
  ['POST', '/v1/batch/data/authz'],
  ['GET', '/v1/query'],
  ['POST', '/v1/query'],
  ['POST', '/v1/compile'],
  ['GET', '/v1/compile/filters/include'],
  ['GET', '/v1/policies'],
  ['GET', '/v1/policies/extra'],
  ['GET', '/health'],
  ['GET', '/health/live'],
  ['GET', '/'],
  ['GET', '/ui'],
  ['GET', '/ui/'],
  ['GET', '/ui/assets/app-1234.js'],
  ['POST', '/ui/api/eval'],
  ['POST', '/ui/api/fmt'],
  ['GET', '/ui/api/decisions/stream'],
  // no route: answered (404 or 405) where it arrives
  ['GET', '/v1/status/x'],
  ['GET', '/metricsx'],
  ['PATCH', '/v1/policies/x'],
  ['POST', '/v1/eventsx'],
];

describe('primaryOwns, derived from the route declarations', () => {
  it.each(PRIMARY)('the primary answers %s %s', (method, path) => expect(primaryOwns(method, path)).toBe(true));
  it.each(WORKER)('a worker answers %s %s', (method, path) => expect(primaryOwns(method, path)).toBe(false));

  it('has a declaration for every route a worker registers, console included', () => {
    const { app } = createApp({
      engine: new RegolithEngine(),
      processMetrics: false,
      events: { has: () => false, handle: async () => ({ status: 200, body: {} }) },
      families: [consoleRoutes({ assetsDir: '/nonexistent' })],
    });
    const registered = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
    const declared = new Set([...SERVER_ROUTES, ...CONSOLE_ROUTES].map((r) => `${r.method} ${r.path}`));
    expect([...registered].sort()).toEqual([...declared].sort());
  });
});
