// The whole sidecar flow in one test, as src/plugins/manager.ts documents it: a loopback
// bundle service serving a signed bundle (built by the bundle-format code), a decision-log
// collector and a status endpoint; PluginManager + startServer; decisions over HTTP.

import { generateKeyPairSync } from 'node:crypto';
import * as http from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { PluginManager } from '../../src/plugins/manager.js';
import { archive, fastTiming, gunzipJSON, httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../loopback.js';

type Doc = Record<string, any>;

const POLICY = `package authz

default allow := false

allow if input.user in data.authz.admins
`;

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUB = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const PRIV = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const files: BundleFiles = {};
const events: Doc[] = [];
const statuses: Doc[] = [];
const servers: TestHTTPServer[] = [];
let manager: PluginManager;
let server: RunningServer;

beforeAll(async () => {
  files['/bundles/authz.tar.gz'] = {
    body: await archive({ revision: 'rev-42', roots: ['authz'], modules: { 'authz/policy.rego': POLICY }, data: { authz: { admins: ['alice'] } } }, { key: PRIV, algorithm: 'RS256', keyid: 'signer' }),
    etag: '"v1"',
  };
  const bundles = await httpServer(serveBundles(files));
  const collector = await httpServer((req, res) => {
    if (req.method === 'POST' && req.url === '/logs' && req.headers['content-encoding'] === 'gzip') {
      events.push(...(gunzipJSON(req.body) as Doc[]));
      res.statusCode = 204;
    } else res.statusCode = 400;
    res.end();
  });
  const status = await httpServer((req, res) => {
    if (req.method === 'POST' && req.url === '/status') {
      statuses.push(JSON.parse(req.body.toString()) as Doc);
      res.statusCode = 200;
    } else res.statusCode = 400;
    res.end();
  });
  servers.push(bundles, collector, status);

  const config = validateConfig({
    services: { bundles: { url: bundles.url }, logs: { url: collector.url }, monitor: { url: status.url } },
    labels: { env: 'test' },
    keys: { signer: { algorithm: 'RS256', key: PUB } },
    bundles: { authz: { service: 'bundles', resource: '/bundles/authz.tar.gz', signing: { keyid: 'signer' }, polling: { min_delay_seconds: 5, max_delay_seconds: 10 } } },
    decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } },
    status: { service: 'monitor' },
  });
  const engine = new RegolithEngine();
  manager = new PluginManager({ config, engine, timing: fastTiming(), id: 'sidecar-e2e', version: '1.0.0' });
  await manager.start();
  server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
});

afterAll(async () => {
  await server?.close();
  await manager?.stop();
  for (const s of servers) await s.close();
});

/** A request on its own connection, so that the test knows the client's "ip:port". */
function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Doc; client: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request(server.url + path, { method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Doc) : {}, client: `${r.socket!.localAddress}:${r.socket!.localPort}` });
      });
    });
    r.on('error', reject);
    r.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('sidecar end to end', () => {
  it('activates the signed bundle, decides, ships decision events and reports status', async () => {
    // Health turns OK once the signed bundle is verified and activated.
    await waitFor('bundle activation', async () => (await call('GET', '/health?bundles=true')).status === 200);
    expect(await call('GET', '/health?bundles=true')).toMatchObject({ status: 200, json: {} });

    // Decisions over HTTP, with the bundle's policy and data.
    const yes = await call('POST', '/v1/data/authz/allow', { input: { user: 'alice' } });
    const no = await call('POST', '/v1/data/authz/allow', { input: { user: 'bob' } });
    expect(yes).toMatchObject({ status: 200, json: { result: true } });
    expect(no).toMatchObject({ status: 200, json: { result: false } });
    const batch = await call('POST', '/v1/batch/data/authz/allow', { inputs: { a: { user: 'alice' }, b: { user: 'carol' } } });
    expect(batch.status).toBe(200);
    expect(batch.json.responses).toMatchObject({ a: { result: true }, b: { result: false } });

    // Every decision reaches the collector, under its response's decision_id.
    const decisions = [
      { id: yes.json.decision_id as string, client: yes.client, input: { user: 'alice' }, result: true },
      { id: no.json.decision_id as string, client: no.client, input: { user: 'bob' }, result: false },
      { id: batch.json.responses.a.decision_id as string, client: batch.client, input: { user: 'alice' }, result: true },
      { id: batch.json.responses.b.decision_id as string, client: batch.client, input: { user: 'carol' }, result: false },
    ];
    expect(new Set(decisions.map((d) => d.id)).size).toBe(4);
    await waitFor('all decision events', () => decisions.every((d) => events.some((e) => e.decision_id === d.id)), 10_000);
    for (const d of decisions) {
      const matching = events.filter((e) => e.decision_id === d.id);
      expect(matching).toHaveLength(1);
      expect(matching[0]).toMatchObject({
        decision_id: d.id,
        path: 'authz/allow',
        input: d.input,
        result: d.result,
        requested_by: d.client,
        bundles: { authz: { revision: 'rev-42' } },
        labels: { id: 'sidecar-e2e', version: '1.0.0', env: 'test' },
      });
      expect(d.client).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(Date.parse(matching[0]!.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    }

    // The status endpoint heard the activation.
    const pushed = await waitFor('a status push with the active revision', () => statuses.find((s) => s.bundles?.authz?.active_revision === 'rev-42'));
    expect(pushed).toMatchObject({ labels: { id: 'sidecar-e2e', version: '1.0.0', env: 'test' }, bundles: { authz: { name: 'authz', active_revision: 'rev-42' } } });
    expect(pushed.bundles.authz.code).toBeUndefined();
    const st = (await call('GET', '/v1/status')).json.result;
    expect(st.bundles.authz.active_revision).toBe('rev-42');
    expect(st.plugins).toMatchObject({ bundle: { state: 'OK' }, decision_logs: { state: 'OK' }, status: { state: 'OK' } });
    expect(await call('GET', '/health?plugins=true')).toMatchObject({ status: 200, json: {} });
  });
});
