// The status plugin and plugin states behind a real server: pushes to a loopback status
// endpoint, GET /v1/status, /health?bundles, /health?plugins and system.health policies.

import pino from 'pino';
import { Registry, Counter } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { startServer } from '../../../src/server/index.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { archive, fastTiming, httpServer, waitFor } from '../../loopback.js';

type Doc = Record<string, any>;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

describe('status and health', () => {
  it('pushes status on changes, serves it at /v1/status, and gates /health on bundle activation', async () => {
    let bundle: { body: Buffer; status: number } = { body: Buffer.from('not yet'), status: 500 };
    const pushes: Doc[] = [];
    const svc = await httpServer((req, res) => {
      if (req.url === '/bundles/authz') {
        res.statusCode = bundle.status;
        return void res.end(bundle.body);
      }
      if (req.url === '/status' && req.method === 'POST') {
        pushes.push(JSON.parse(req.body.toString()));
        res.statusCode = 200;
        return void res.end();
      }
      res.statusCode = 404;
      res.end();
    });
    cleanup.push(() => svc.close());
    const config = validateConfig({
      services: { acme: { url: svc.url } },
      labels: { region: 'eu' },
      bundles: { authz: { service: 'acme', polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } },
      status: { service: 'acme', prometheus: true },
    });
    const registry = new Registry();
    new Counter({ name: 'test_requests_total', help: 'test counter', registers: [registry] }).inc(3);
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config, engine, registry, timing: fastTiming(), id: 'i-1', version: '9.9.9' });
    await manager.start();
    const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
    cleanup.push(() => manager.stop());
    cleanup.push(() => server.close());
    const get = async (p: string) => {
      const r = await fetch(server.url + p);
      return { status: r.status, body: (await r.json()) as Doc };
    };

    // The failure is visible in the pushed status and in health.
    await waitFor('an error push', () => pushes.find((p) => p.bundles?.authz?.code === 'bundle_error'));
    expect(await get('/health?bundles=true')).toEqual({ status: 500, body: { error: 'not all configured bundles have been activated' } });
    expect(await get('/health?plugins=true')).toEqual({ status: 500, body: { error: 'not all plugins in OK state' } });
    expect(await get('/health?plugins=true&exclude-plugin=bundle')).toEqual({ status: 200, body: {} });
    expect((await get('/v1/status')).body.result.plugins.bundle).toEqual({ state: 'NOT_READY' });

    bundle = {
      status: 200,
      body: await archive({
        revision: 'rev-7',
        roots: ['authz', 'system/health'],
        modules: {
          'authz/p.rego': 'package authz\nallow := true\n',
          'system/health/h.rego': 'package system.health\nready if input.plugin_state.bundle == "OK"\nlive if input.plugins_ready\n',
        },
      }),
    };
    const pushed = await waitFor('an activation push', () => pushes.find((p) => p.bundles?.authz?.active_revision === 'rev-7'));
    expect(pushed).toMatchObject({
      labels: { id: 'i-1', version: '9.9.9', region: 'eu' },
      bundles: { authz: { name: 'authz', active_revision: 'rev-7' } },
      plugins: { bundle: { state: 'OK' }, status: { state: 'OK' } },
    });
    expect(pushed.bundles.authz.code).toBeUndefined();
    expect(pushed.metrics.prometheus.test_requests_total).toMatchObject({ name: 'test_requests_total', type: 'COUNTER', metric: [{ counter: { value: 3 } }] });

    const st = (await get('/v1/status')).body.result;
    expect(st.bundles.authz).toMatchObject({ name: 'authz', active_revision: 'rev-7', metrics: { timer_bundle_request_ns: expect.any(Number) } });
    for (const k of ['last_successful_activation', 'last_successful_download', 'last_successful_request', 'last_request']) {
      expect(Date.parse(st.bundles.authz[k]), k).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(st.labels).toMatchObject({ id: 'i-1', version: '9.9.9' });
    expect(await get('/health?bundles=true')).toEqual({ status: 200, body: {} });
    expect(await get('/health?plugins=true')).toEqual({ status: 200, body: {} });
    expect(await get('/health/ready')).toEqual({ status: 200, body: {} });
    expect(await get('/health/live')).toEqual({ status: 200, body: {} });
    // The provenance of data responses names the bundle revision.
    const d = await fetch(`${server.url}/v1/data/authz/allow?provenance=true`).then((r) => r.json() as Promise<Doc>);
    expect(d.result).toBe(true);
    expect(d.provenance.bundles).toEqual({ authz: { revision: 'rev-7' } });
  });

  it('/v1/config shows the configuration without secrets', async () => {
    const config = validateConfig({
      services: { acme: { url: 'http://127.0.0.1:1', credentials: { bearer: { token: 'SECRET' } } } },
      keys: { k: { algorithm: 'HS256', key: 'HMACSECRET' } },
      status: { console: true },
    });
    const engine = new RegolithEngine();
    const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false });
    cleanup.push(() => server.close());
    const text = await fetch(`${server.url}/v1/config`).then((r) => r.text());
    expect(text).not.toContain('SECRET');
    const doc = JSON.parse(text) as Doc;
    expect(doc.result.services.acme).toEqual({ url: 'http://127.0.0.1:1' });
    expect(doc.result.keys.k).toEqual({ algorithm: 'HS256' });
  });
});
