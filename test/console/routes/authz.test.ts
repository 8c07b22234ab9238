// The console is behind the authorization gate like every route: with
// --authorization=basic and a policy that denies /ui, every /ui route is refused before it
// runs (the playground evaluates nothing, no stream subscribes, no impact is called).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import type { ConsoleOptions } from '../../../src/console/index.js';
import { fakeBuild, startUi, type UiServer } from './helpers.js';

const AUTHZ = `package system.authz

default allow := false

# the console only for the operator's token
allow if input.path[0] != "ui"

allow if {
	input.path[0] == "ui"
	input.identity == "operator"
}
`;

let build: ReturnType<typeof fakeBuild>;
let s: UiServer;
let impactCalls = 0;
let subscriptions = 0;

beforeAll(async () => {
  build = fakeBuild();
  const engine = new RegolithEngine();
  await engine.putPolicy('authz.rego', AUTHZ);
  const decisions: ConsoleOptions['decisions'] = {
    recent: () => ['{"decision_id":"secret-decision"}'],
    subscribe: () => {
      subscriptions++;
      return () => {};
    },
  };
  s = await startUi(
    {
      assetsDir: build.dir,
      decisions,
      impact: async () => {
        impactCalls++;
        return { status: 200, body: {} };
      },
    },
    { engine, access: { authentication: 'token', authorization: 'basic' } },
  );
});
afterAll(async () => {
  await s.close();
  build.remove();
});

const ROUTES: [string, string, string?][] = [
  ['GET', '/ui'],
  ['GET', '/ui/'],
  ['GET', '/ui/assets/app-1234.js'],
  ['POST', '/ui/api/eval', JSON.stringify({ modules: {}, query: 'true' })],
  ['POST', '/ui/api/fmt', JSON.stringify({ text: 'package a' })],
  ['GET', '/ui/api/decisions'],
  ['GET', '/ui/api/decisions/stream'],
  ['POST', '/ui/api/impact', '{}'],
  ['GET', '/ui/api/status'],
  ['GET', '/ui/api/session'],
];

describe('authorization', () => {
  it.each(ROUTES)('refuses %s %s to an unauthorized caller', async (method, path, body) => {
    for (const headers of [{}, { authorization: 'Bearer someone-else' }] as Record<string, string>[]) {
      const r = await fetch(s.url + path, { method, body, headers });
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({ code: 'unauthorized', message: 'request rejected by administrative policy' });
    }
  });

  it('ran nothing behind the refusals', () => {
    expect(impactCalls).toBe(0);
    expect(subscriptions).toBe(0);
  });

  it.each(ROUTES.filter(([, p]) => p !== '/ui/api/decisions/stream'))('lets the operator through to %s %s', async (method, path, body) => {
    const r = await fetch(s.url + path, { method, body, headers: { authorization: 'Bearer operator' } });
    expect(r.status).toBe(200);
    await r.arrayBuffer();
  });

  it('lets the operator open the stream', async () => {
    const ac = new AbortController();
    const r = await fetch(`${s.url}/ui/api/decisions/stream`, { headers: { authorization: 'Bearer operator' }, signal: ac.signal });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    ac.abort();
  });

  it('tells the signed-in console how the server authenticates', async () => {
    const r = await fetch(`${s.url}/ui/api/session`, { headers: { authorization: 'Bearer operator' } });
    expect(await r.json()).toEqual({ authentication: 'token' });
  });

  it('still answers the rest of the API as the policy says', async () => {
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
  });
});
