// Paths a bundle owns are refused by the Data and Policy APIs (400, OPA's messages), on a
// server whose PluginManager activated the bundle from a loopback bundle service.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { PluginManager } from '../../src/plugins/manager.js';
import { archive, fastTiming, httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../loopback.js';

const MODULE = 'package authz\nallow if input.user == data.authz.admins[_]\n';

let svc: TestHTTPServer;
let manager: PluginManager;
let server: RunningServer;
let engine: RegolithEngine;
const files: BundleFiles = {};

beforeAll(async () => {
  files['/bundles/authz'] = {
    body: await archive({ revision: 'r1', roots: ['authz', 'shared/lists'], modules: { 'authz/p.rego': MODULE }, data: { authz: { admins: ['alice'] }, shared: { lists: { a: 1 } } } }),
  };
  svc = await httpServer(serveBundles(files));
  const config = validateConfig({
    services: { acme: { url: svc.url } },
    bundles: { authz: { service: 'acme', resource: '/bundles/authz', polling: { min_delay_seconds: 60, max_delay_seconds: 60 } } },
  });
  engine = new RegolithEngine();
  manager = new PluginManager({ config, engine, timing: fastTiming() });
  await manager.start();
  server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
  await waitFor('activation', () => manager.bundle!.status().state === 'OK');
});
afterAll(async () => {
  await server.close();
  await manager.stop();
  await svc.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(server.url + path, { method, body: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

const owned = (path: string) => ({ status: 400, json: { code: 'invalid_parameter', message: `path ${path} is owned by bundle "authz"` } });

describe('bundle-owned paths', () => {
  it('refuses PUT, PATCH and DELETE at, under and above a root', async () => {
    expect(await call('PUT', '/v1/data/authz/admins', ['mallory'])).toEqual(owned('authz/admins'));
    expect(await call('PUT', '/v1/data/authz', {})).toEqual(owned('authz'));
    expect(await call('PUT', '/v1/data/shared', {})).toEqual(owned('shared'));
    expect(await call('DELETE', '/v1/data/shared/lists/a')).toEqual(owned('shared/lists/a'));
    // Even a path that does not exist yet; and the scope check comes before If-None-Match.
    expect(await call('DELETE', '/v1/data/authz/nothing')).toEqual(owned('authz/nothing'));
    const inm = await fetch(`${server.url}/v1/data/authz/admins`, { method: 'PUT', body: '[]', headers: { 'if-none-match': '*' } });
    expect(inm.status).toBe(400);
    expect(await call('PUT', '/v1/data', {})).toEqual({
      status: 400,
      json: { code: 'invalid_parameter', message: "can't write to document root with bundle roots configured" },
    });
    expect(await call('PATCH', '/v1/data/authz', [{ op: 'add', path: '/admins/-', value: 'mallory' }])).toEqual(owned('authz/admins/-'));
    // The bundle's data is untouched, and its decision unchanged.
    expect((await call('GET', '/v1/data/authz/admins')).json.result).toEqual(['alice']);
    expect((await call('POST', '/v1/data/authz/allow', { input: { user: 'mallory' } })).json.result).toBeUndefined();
    expect((await call('POST', '/v1/data/authz/allow', { input: { user: 'alice' } })).json.result).toBe(true);
  });

  it('a PATCH touching one owned path applies none of its operations', async () => {
    const r = await call('PATCH', '/v1/data', [
      { op: 'add', path: '/mine', value: 1 },
      { op: 'add', path: '/shared/lists/b', value: 2 },
    ]);
    expect(r).toEqual(owned('shared/lists/b'));
    expect((await call('GET', '/v1/data/mine')).json.result).toBeUndefined();
  });

  it('writes elsewhere still work (including siblings of a root)', async () => {
    expect((await call('PUT', '/v1/data/shared/other', { x: 1 })).status).toBe(204);
    expect((await call('PATCH', '/v1/data/shared/other', [{ op: 'add', path: '/y', value: 2 }])).status).toBe(204);
    expect((await call('GET', '/v1/data/shared/other')).json.result).toEqual({ x: 1, y: 2 });
    expect((await call('DELETE', '/v1/data/shared/other')).status).toBe(204);
  });

  it('refuses policies whose package lies in an owned path, and the bundle modules themselves', async () => {
    const ids = engine.listPolicies().map((p) => p.id);
    expect(ids).toEqual(['authz/authz/p.rego']);
    expect(await call('PUT', '/v1/policies/extra.rego', 'package authz.extra\nx := 1\n')).toEqual(owned('authz/extra'));
    expect(await call('PUT', '/v1/policies/top.rego', 'package shared\nx := 1\n')).toEqual(owned('shared'));
    // Re-uploading a bundle module, even unchanged, and deleting it.
    expect(await call('PUT', '/v1/policies/authz/authz/p.rego', MODULE)).toEqual(owned('authz'));
    expect(await call('PUT', '/v1/policies/authz/authz/p.rego', 'package other\ny := 1\n')).toEqual(owned('authz'));
    expect(await call('DELETE', '/v1/policies/authz/authz/p.rego')).toEqual(owned('authz'));
    expect(engine.listPolicies().map((p) => p.id)).toEqual(['authz/authz/p.rego']);
    expect(engine.getPolicy('authz/authz/p.rego')!.raw).toBe(MODULE);
    // Outside the roots: accepted, and removable.
    expect(await call('PUT', '/v1/policies/mine.rego', 'package mine\nx := 1\n')).toEqual({ status: 200, json: {} });
    expect((await call('DELETE', '/v1/policies/mine.rego')).status).toBe(200);
    // A missing policy is still 404.
    expect((await call('DELETE', '/v1/policies/nope.rego')).status).toBe(404);
  });
});
