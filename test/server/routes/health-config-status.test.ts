import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { req, start, type TestServer } from '../helpers.js';
import type { PluginStatus } from '../../../src/server/index.js';

let s: TestServer;
const plugins: Record<string, PluginStatus> = {};
const config = {
  services: { acme: { url: 'https://example.com', credentials: { bearer: { token: 'secret' } } } },
  keys: { k1: { algorithm: 'RS256', key: 'PUBLIC', private_key: 'PRIVATE' } },
  labels: { app: 'demo' },
  bundles: { authz: { service: 'acme' } },
  decision_logs: { console: true },
};
let statusReport: unknown = { labels: { id: 'x', version: '1' } };
beforeAll(async () => {
  s = await start({ config, pluginStatus: () => plugins, status: () => statusReport as never });
});
afterAll(() => s.close());

describe('health API', () => {
  it('/health is 200 {} when the server can evaluate', async () => {
    const r = await req(s, 'GET', '/health');
    expect(r.status).toBe(200);
    expect(r.text).toBe('{}\n');
  });
  it('bundles=true waits for bundle activation', async () => {
    plugins['bundle'] = { state: 'NOT_READY' };
    const r = await req(s, 'GET', '/health?bundles=true');
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ error: 'not all configured bundles have been activated' });
    expect((await req(s, 'GET', '/health')).status).toBe(200);
    plugins['bundle'] = { state: 'OK' };
    expect((await req(s, 'GET', '/health?bundles')).status).toBe(200);
  });
  it('plugins=true needs every plugin OK, except excluded ones', async () => {
    plugins['decision_logs'] = { state: 'ERROR' };
    const r = await req(s, 'GET', '/health?plugins');
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ error: 'not all plugins in OK state' });
    expect((await req(s, 'GET', '/health?plugins&exclude-plugin=decision_logs')).status).toBe(200);
    expect((await req(s, 'GET', '/health?exclude-plugin=decision_logs')).status).toBe(200);
    delete plugins['decision_logs'];
  });
  it('unable to evaluate is 500', async () => {
    const s2 = await start();
    s2.engine.query = async () => {
      throw new Error('broken');
    };
    try {
      const r = await req(s2, 'GET', '/health');
      expect(r.status).toBe(500);
      expect(r.json).toEqual({ error: 'unable to perform evaluation' });
    } finally {
      await s2.close();
    }
  });
  it('/health/<rule> evaluates data.system.health.<rule> with plugin state as input', async () => {
    let seen: unknown;
    s.engine.virtual.set('system/health/live', () => true);
    s.engine.virtual.set('system/health/ready', (input) => {
      seen = input;
      return (input as { plugins_ready: boolean }).plugins_ready;
    });
    s.engine.virtual.set('system/health/odd', () => 'yes');
    expect((await req(s, 'GET', '/health/live')).status).toBe(200);
    plugins['bundle'] = { state: 'OK' };
    const ready = await req(s, 'GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(seen).toEqual({ plugin_state: { bundle: 'OK' }, plugins_ready: true });
    const odd = await req(s, 'GET', '/health/odd');
    expect(odd.status).toBe(500);
    expect(odd.json).toEqual({ error: 'health policy was not true at data.system.health.odd' });
    const undef = await req(s, 'GET', '/health/nothing');
    expect(undef.status).toBe(500);
    expect(undef.json).toEqual({ error: 'health policy was undefined at data.system.health.nothing' });
  });
});

describe('config and status', () => {
  it('/v1/config removes credentials and private keys', async () => {
    const r = await req(s, 'GET', '/v1/config');
    expect(r.status).toBe(200);
    const result = (r.json as { result: Record<string, any> }).result;
    expect(result['services']).toEqual({ acme: { url: 'https://example.com' } });
    expect(result['keys']).toEqual({ k1: { algorithm: 'RS256' } });
    expect(result['labels'].app).toBe('demo');
    expect(result['labels'].version).toBeTruthy();
    expect(result['bundles']).toEqual(config.bundles);
    expect(result['default_decision']).toBe('/system/main');
    expect(JSON.stringify(r.json)).not.toMatch(/secret|PRIVATE|PUBLIC/);
    expect(config.services.acme.credentials.bearer.token).toBe('secret'); // the live config is untouched
    expect((await req(s, 'GET', '/v1/config?pretty=true')).text).toMatch(/^\{\n {2}"result": \{/);
  });
  it('/v1/status returns the status report, or 500 when the plugin is off', async () => {
    const r = await req(s, 'GET', '/v1/status');
    expect(r.json).toEqual({ result: { labels: { id: 'x', version: '1' } } });
    statusReport = undefined;
    const off = await req(s, 'GET', '/v1/status');
    expect(off.status).toBe(500);
    expect(off.json).toEqual({ code: 'internal_error', message: 'status plugin not enabled' });
  });
});

describe('metrics and catch-alls', () => {
  it('/metrics exposes http_request_duration_seconds by code, handler and method', async () => {
    await req(s, 'GET', '/v1/data/x');
    const r = await req(s, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(r.text).toMatch(/http_request_duration_seconds_count\{code="200",handler="v1\/data",method="get"\} \d+/);
    expect(r.text).toMatch(/handler="health"/);
  });
  it('unknown paths are 404 like Go\'s mux', async () => {
    const r = await req(s, 'GET', '/nope');
    expect(r.status).toBe(404);
    expect(r.text).toBe('404 page not found\n');
  });
  it('GET / serves the index page', async () => {
    const r = await req(s, 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
  });
});
