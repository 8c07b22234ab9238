// End to end: the built `regolith run` binary configured only with a discovery section; a
// real nginx serves the discovery bundle and the policy bundles; two real HTTP collectors
// take decision logs and status. Changing the discovery bundle switches the running server
// to another policy bundle and another collector and back; a bad discovery bundle keeps the
// last good configuration; /v1/config, /v1/status and /health?bundles say so. Once as one
// process, once with --workers 2. Skipped, with the reason printed, only without nginx.

import * as http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../cli/helpers.js';
import { archive, gunzipJSON, httpServer, waitFor, type TestHTTPServer } from '../../loopback.js';
import { startRun, type RunProcess } from '../../runtime/run-process.js';
import { NGINX, startNginx, type Nginx } from '../../nginx.js';

type Doc = Record<string, any>;

if (!NGINX) console.log('discovery end-to-end test skipped: no nginx binary (apt-get install -y nginx)');

const policy = (who: string): Record<string, string> => ({ 'authz/p.rego': `package authz\n\nallow if input.user == "${who}"\n` });

let nginx: Nginx;
let dir = '';
const collectors: Record<'a' | 'b', TestHTTPServer> = {} as never;
const logged: Record<'a' | 'b', Doc[]> = { a: [], b: [] };
const down = { a: false };
const runs: RunProcess[] = [];

function collector(name: 'a' | 'b'): Promise<TestHTTPServer> {
  return httpServer((req, res) => {
    if (req.url === '/logs' && !(name === 'a' && down.a)) {
      logged[name].push(...(gunzipJSON(req.body) as Doc[]));
      res.statusCode = 204;
    } else res.statusCode = req.url === '/status' ? 200 : 500;
    res.end();
  });
}

// waits for the build, which others may be running: minutes on a loaded machine (it passed 300 s under stress)
beforeAll(() => {
  if (NGINX) ensureBuilt();
}, 900_000);
beforeAll(async () => {
  if (!NGINX) return;
  dir = mkdtempSync(join(tmpdir(), 'regolith-discovery-e2e-'));
  nginx = await startNginx();
  collectors.a = await collector('a');
  collectors.b = await collector('b');
  nginx.publish('bundles/alice.tar.gz', await archive({ revision: 'alice-1', roots: ['authz'], modules: policy('alice') }));
  nginx.publish('bundles/bob.tar.gz', await archive({ revision: 'bob-1', roots: ['authz'], modules: policy('bob') }));
}, 300_000);

afterAll(async () => {
  for (const r of runs) await r.kill('SIGKILL');
  await nginx?.stop();
  await collectors.a?.close();
  await collectors.b?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The configuration the discovery bundle gives (a Rego decision over its data). */
async function publishDiscovery(revision: string, o: { bundle: string; resource: string; logs: 'a' | 'b' } | { rego: string }): Promise<void> {
  if ('rego' in o) {
    nginx.publish('discovery.tar.gz', await archive({ revision, modules: { 'config.rego': o.rego } }));
    return;
  }
  const rego = `package config

main := {
  "services": {"a": {"url": data.urls.a}, "b": {"url": data.urls.b, "credentials": {"bearer": {"token": "collector-b-secret"}}}},
  "bundles": {data.target.bundle: {"service": "web", "resource": data.target.resource, "polling": {"min_delay_seconds": 1, "max_delay_seconds": 1}}},
  "decision_logs": {"service": data.target.logs, "reporting": {"min_delay_seconds": 1, "max_delay_seconds": 1}},
  "status": {"service": data.target.logs},
  "labels": {"revision": "${revision}"},
}
`;
  const data = { urls: { a: collectors.a.url, b: collectors.b.url }, target: o };
  nginx.publish('discovery.tar.gz', await archive({ revision, modules: { 'config.rego': rego }, data }));
}

/** A request on a connection of its own (with --workers, connections spread over the workers). */
function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Doc }> {
  return new Promise((resolve, reject) => {
    const r = http.request(url + path, { method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Doc) : {} });
      });
    });
    r.on('error', reject);
    r.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function decide(url: string, user: string): Promise<{ result: unknown; id: string }> {
  const r = await call(url, 'POST', '/v1/data/authz/allow', { input: { user } });
  return { result: r.json.result, id: r.json.decision_id };
}

/** Several decisions on fresh connections agree (with workers: every worker has switched). */
async function allDecide(url: string, user: string, want: unknown, n: number): Promise<boolean> {
  for (let i = 0; i < n; i++) if ((await decide(url, user)).result !== want) return false;
  return true;
}

async function start(args: string[]): Promise<RunProcess> {
  const cfg = join(dir, `config-${runs.length}.json`);
  writeFileSync(
    cfg,
    JSON.stringify({
      services: { web: { url: nginx.url } },
      labels: { app: 'discovery-e2e' },
      discovery: { resource: 'discovery.tar.gz', decision: 'config/main', polling: { min_delay_seconds: 1, max_delay_seconds: 1 } },
    }),
  );
  const run = await startRun([...args, '-c', cfg]);
  runs.push(run);
  return run;
}

describe.skipIf(!NGINX)('discovery end to end (nginx, the built binary)', () => {
  it.each([
    ['one process', [] as string[], 1],
    ['--workers 2', ['--workers', '2'], 6],
  ])('%s: switches policy bundle and collector, keeps the last good configuration, and back', async (_name, args, n) => {
    logged.a.length = logged.b.length = 0;
    down.a = false;
    await publishDiscovery('d1', { bundle: 'main', resource: 'bundles/alice.tar.gz', logs: 'a' });
    const run = await start(args);
    const url = run.url;
    try {
      await waitFor('health with the discovery bundle and the discovered one', async () => (await call(url, 'GET', '/health?bundles')).status === 200, 30_000);
      expect(await allDecide(url, 'alice', true, n)).toBe(true);
      const one = await decide(url, 'alice');
      await waitFor('the decision at collector a', () => logged.a.some((e) => e.decision_id === one.id), 15_000);
      expect(logged.a.find((e) => e.decision_id === one.id)).toMatchObject({ labels: { app: 'discovery-e2e', revision: 'd1' }, bundles: { main: { revision: 'alice-1' } } });

      // /v1/config: the discovered configuration, the collector's token removed.
      const cfg = (await call(url, 'GET', '/v1/config')).json.result;
      expect(cfg.bundles).toEqual({ main: expect.objectContaining({ resource: 'bundles/alice.tar.gz' }) });
      expect(cfg.decision_logs.service).toBe('a');
      expect(JSON.stringify(cfg)).not.toContain('collector-b-secret');
      // /v1/status: the discovery bundle, and the discovery plugin OK.
      const st = (await call(url, 'GET', '/v1/status')).json.result;
      expect(st.discovery).toMatchObject({ name: 'discovery', active_revision: 'd1' });
      expect(st.plugins.discovery).toEqual({ state: 'OK' });

      // Collector a goes down; decisions wait in the buffer.
      down.a = true;
      const waiting = [await decide(url, 'alice'), await decide(url, 'alice')];

      // Another bundle (main removed, second added) and collector b.
      await publishDiscovery('d2', { bundle: 'second', resource: 'bundles/bob.tar.gz', logs: 'b' });
      await waitFor('bob allowed everywhere', () => allDecide(url, 'bob', true, n), 30_000);
      expect((await decide(url, 'alice')).result).toBeUndefined();
      const two = await decide(url, 'bob');
      await waitFor('the buffered and the new decisions at collector b', () => [...waiting, two].every((d) => logged.b.some((e) => e.decision_id === d.id)), 15_000);
      expect(logged.b.find((e) => e.decision_id === two.id)).toMatchObject({ labels: { revision: 'd2' }, bundles: { second: { revision: 'bob-1' } } });
      for (const d of waiting) expect(logged.a.some((e) => e.decision_id === d.id)).toBe(false);
      expect((await call(url, 'GET', '/v1/config')).json.result.decision_logs.service).toBe('b');

      // A bad discovery bundle: the last good configuration stays, the error is reported.
      await publishDiscovery('bad', { rego: 'package config\n\nmain := y\n' });
      await waitFor('the discovery error in /v1/status', async () => (await call(url, 'GET', '/v1/status')).json.result.discovery?.code === 'bundle_error', 15_000);
      const bad = (await call(url, 'GET', '/v1/status')).json.result.discovery;
      expect(bad.active_revision).toBe('d2');
      expect(bad.message).toMatch(/unsafe/);
      expect(await allDecide(url, 'bob', true, n)).toBe(true);
      expect((await call(url, 'GET', '/v1/config')).json.result.bundles).toEqual({ second: expect.anything() });
      expect((await call(url, 'GET', '/health?bundles')).status).toBe(200);

      // And back.
      down.a = false;
      await publishDiscovery('d3', { bundle: 'main', resource: 'bundles/alice.tar.gz', logs: 'a' });
      await waitFor('alice allowed everywhere again', () => allDecide(url, 'alice', true, n), 30_000);
      const three = await decide(url, 'alice');
      await waitFor('the decision at collector a again', () => logged.a.some((e) => e.decision_id === three.id), 15_000);
      const back = (await call(url, 'GET', '/v1/status')).json.result.discovery;
      expect(back).toMatchObject({ active_revision: 'd3' });
      expect(back.code).toBeUndefined();
    } finally {
      await run.kill('SIGTERM');
    }
  }, 180_000);
});
