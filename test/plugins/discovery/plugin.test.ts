// Discovery in one process: a loopback service serving the discovery bundle and the policy
// bundles, two decision-log collectors, PluginManager + startServer. The discovered
// configuration switches the policy bundle, the collector and the labels live, keeps the
// events buffered for a collector that was down, survives bad discovery bundles, and is
// shown by /v1/config, /v1/status and /health?bundles.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { archive, fastTiming, gunzipJSON, httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../../loopback.js';

type Doc = Record<string, any>;

const policy = (who: string): Record<string, string> => ({ 'authz/p.rego': `package authz\n\nallow if input.user == "${who}"\n` });

const files: BundleFiles = {};
const servers: TestHTTPServer[] = [];
const logged: Record<'a' | 'b', Doc[]> = { a: [], b: [] };
const down = { a: false, b: false };
let urls: Record<'bundles' | 'a' | 'b', string>;

function collector(name: 'a' | 'b') {
  return httpServer((req, res) => {
    if (req.url === '/logs' && !down[name]) {
      logged[name].push(...(gunzipJSON(req.body) as Doc[]));
      res.statusCode = 204;
    } else res.statusCode = req.url === '/status' ? 200 : 500;
    res.end();
  });
}

let etag = 0;
async function publishDiscovery(revision: string, config: Doc | { rego: string }): Promise<void> {
  const bundle = 'rego' in config ? { revision, modules: { 'config.rego': config.rego as string } } : { revision, data: { config } };
  files['/discovery.tar.gz'] = { body: await archive(bundle), etag: `"d${++etag}"` };
}

/** A discovered configuration: the policy bundle `name` at `resource`, logs to `logs`. */
function discovered(o: { name: string; resource: string; logs: 'a' | 'b'; stage: string; extra?: Doc }): Doc {
  return {
    // no header deadline for the collectors (0, as Go's): at 20 ms a configured second the default 10 s is 200 ms, and an
    // upload the collector took but answered after it is sent again (at least once, as OPA): a decision logged twice
    services: { a: { url: urls.a, response_header_timeout_seconds: 0 }, b: { url: urls.b, response_header_timeout_seconds: 0, credentials: { bearer: { token: 'secret-token-b' } } } },
    bundles: { [o.name]: { service: 'disco', resource: o.resource, polling: { min_delay_seconds: 1, max_delay_seconds: 2 } } },
    decision_logs: { service: o.logs, reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } },
    labels: { stage: o.stage, app: 'from-discovery' },
    ...o.extra,
  };
}

beforeAll(async () => {
  files['/bundles/alice.tar.gz'] = { body: await archive({ revision: 'alice-1', roots: ['authz'], modules: policy('alice') }), etag: '"alice"' };
  files['/bundles/bob.tar.gz'] = { body: await archive({ revision: 'bob-1', roots: ['authz'], modules: policy('bob') }), etag: '"bob"' };
  const bundles = await httpServer(serveBundles(files));
  const a = await collector('a');
  const b = await collector('b');
  servers.push(bundles, a, b);
  urls = { bundles: bundles.url, a: a.url, b: b.url };
});

afterAll(async () => {
  for (const s of servers) await s.close();
});

async function start(boot: Doc): Promise<{ manager: PluginManager; server: RunningServer; stop(): Promise<void> }> {
  // config.raw becomes the live document /v1/config shows: a copy, so the caller's stays the boot one
  const config = validateConfig(structuredClone(boot));
  const engine = new RegolithEngine();
  const manager = new PluginManager({ config, engine, timing: fastTiming(20), id: 'disc-1', version: '1.0.0' });
  await manager.start();
  const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
  return {
    manager,
    server,
    stop: async () => {
      await server.close();
      await manager.stop();
    },
  };
}

async function get(s: RunningServer, path: string): Promise<{ status: number; json: Doc }> {
  const r = await fetch(s.url + path);
  return { status: r.status, json: (await r.json()) as Doc };
}

async function decide(s: RunningServer, user: string): Promise<{ result: unknown; id: string }> {
  const r = await fetch(`${s.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) });
  const j = (await r.json()) as Doc;
  return { result: j.result, id: j.decision_id };
}

const BOOT = (): Doc => ({
  // no header deadline (0): 200 ms at this time scale, missed under load (a download error in place of the status message)
  services: { disco: { url: urls.bundles, response_header_timeout_seconds: 0 } },
  labels: { app: 'boot' },
  discovery: { resource: '/discovery.tar.gz', decision: 'config', polling: { min_delay_seconds: 1, max_delay_seconds: 2 } },
});

describe('discovery', () => {
  it('switches the policy bundle and the collector live, keeps buffered events, keeps the last good configuration', async () => {
    delete files['/discovery.tar.gz'];
    down.a = down.b = false;
    const s = await start(BOOT());
    try {
      // No discovery bundle yet: not ready, the download error in the status.
      await waitFor('the 404', () => s.manager.discovery!.bundleStatus().code === 'bundle_error');
      expect((await get(s.server, '/health?bundles')).status).toBe(500);
      expect(s.manager.pluginStates()['discovery']).toEqual({ state: 'NOT_READY' });

      await publishDiscovery('d1', discovered({ name: 'main', resource: '/bundles/alice.tar.gz', logs: 'a', stage: 'one' }));
      await waitFor('health with discovery and the discovered bundle', async () => (await get(s.server, '/health?bundles')).status === 200, 10_000);
      expect(await decide(s.server, 'alice')).toMatchObject({ result: true });

      // /v1/config: the discovered configuration merged under the boot one, credentials removed.
      const cfg = (await get(s.server, '/v1/config')).json.result;
      expect(cfg.bundles.main.resource).toBe('/bundles/alice.tar.gz');
      expect(cfg.decision_logs.service).toBe('a');
      expect(cfg.labels).toMatchObject({ app: 'boot', stage: 'one' });
      expect(cfg.discovery.resource).toBe('/discovery.tar.gz');
      expect(JSON.stringify(cfg)).not.toContain('secret-token-b');

      // Decision events go to collector a, with the discovered labels (boot's app wins).
      const first = await decide(s.server, 'alice');
      await waitFor('the event at a', () => logged.a.some((e) => e.decision_id === first.id), 10_000);
      expect(logged.a.find((e) => e.decision_id === first.id)!.labels).toEqual({ app: 'boot', stage: 'one', id: 'disc-1', version: '1.0.0' });
      expect(logged.a.find((e) => e.decision_id === first.id)!.bundles).toEqual({ main: { revision: 'alice-1' } });

      // The discovery status (OPA's bundle status shape) and the override message.
      const st = s.manager.statusDocument() as Doc | undefined;
      expect(st).toBeUndefined(); // no status plugin configured
      const ds = s.manager.discovery!.bundleStatus();
      expect(ds).toMatchObject({ name: 'discovery', active_revision: 'd1', type: 'snapshot' });
      expect(ds.message).toBe('Keys in the discovered configuration overridden by boot configuration: labels.app');
      expect(ds.code).toBeUndefined();

      // Collector a goes down: events wait in the buffer.
      down.a = true;
      const buffered = [await decide(s.server, 'alice'), await decide(s.server, 'bob'), await decide(s.server, 'alice')];
      await waitFor('a failed upload', () => s.manager.decisionLogs!.uploadStatus().code === 'decision_logs_error', 10_000);

      // Discovery switches to another bundle (main removed, second added) and collector b.
      await publishDiscovery('d2', discovered({ name: 'second', resource: '/bundles/bob.tar.gz', logs: 'b', stage: 'two', extra: { status: { service: 'b' } } }));
      await waitFor('bob allowed', async () => (await decide(s.server, 'bob')).result === true, 10_000);
      expect((await decide(s.server, 'alice')).result).toBeUndefined();
      const after = await decide(s.server, 'bob');
      // The buffered events reach the new collector, each once; nothing of them at a.
      await waitFor('buffered and new events at b', () => [...buffered, after].every((d) => logged.b.some((e) => e.decision_id === d.id)), 10_000);
      for (const d of buffered) {
        expect(logged.b.filter((e) => e.decision_id === d.id)).toHaveLength(1);
        expect(logged.a.some((e) => e.decision_id === d.id)).toBe(false);
      }
      const ev = logged.b.find((e) => e.decision_id === after.id)!;
      expect(ev.labels).toMatchObject({ stage: 'two', app: 'boot' });
      expect(ev.bundles).toEqual({ second: { revision: 'bob-1' } });
      // The status plugin, started by discovery, reports the discovery bundle.
      const status = (await get(s.server, '/v1/status')).json.result;
      expect(status.discovery).toMatchObject({ name: 'discovery', active_revision: 'd2' });
      expect(status.bundles).toEqual({ second: expect.objectContaining({ active_revision: 'bob-1' }) });
      expect(status.plugins.discovery).toEqual({ state: 'OK' });
      expect(status.labels).toMatchObject({ stage: 'two' });

      // Bad discovery bundles: each keeps the last good configuration and reports its error.
      const bad: [string, Doc | { rego: string }, RegExp][] = [
        ['bad-rego', { rego: 'package config\n\nmissing := y\n' }, /unsafe|undefined/],
        ['bad-config', discovered({ name: 'x', resource: '/bundles/alice.tar.gz', logs: 'a', stage: 'bad', extra: { bundles: { x: { service: 'nope' } } } }), /bundles\.x\.service/],
        ['bad-service', { ...discovered({ name: 'x', resource: '/r', logs: 'a', stage: 'bad' }), services: { disco: { url: 'http://127.0.0.1:9' } } }, /updates to the discovery service are not allowed/],
        ['no-config', { rego: 'package other\n\nx := 1\n' }, /undefined configuration/],
      ];
      for (const [rev, doc, err] of bad) {
        await publishDiscovery(rev, doc);
        await waitFor(`the ${rev} error`, async () => {
          const d = (await get(s.server, '/v1/status')).json.result.discovery;
          return d.code === 'bundle_error' && err.test(d.message);
        }, 10_000);
        expect((await decide(s.server, 'bob')).result).toBe(true);
        expect((await get(s.server, '/v1/config')).json.result.decision_logs.service).toBe('b');
        expect(s.manager.discovery!.bundleStatus().active_revision).toBe('d2');
      }
      // Discovery stays OK (it was applied once); bundles stay healthy.
      expect((await get(s.server, '/health?bundles')).status).toBe(200);

      // And back: alice's bundle, collector a (up again).
      down.a = false;
      await publishDiscovery('d3', discovered({ name: 'main', resource: '/bundles/alice.tar.gz', logs: 'a', stage: 'three', extra: { status: { service: 'b' } } }));
      await waitFor('alice allowed again', async () => (await decide(s.server, 'alice')).result === true, 10_000);
      const back = await decide(s.server, 'alice');
      await waitFor('the event at a again', () => logged.a.some((e) => e.decision_id === back.id), 10_000);
      expect((await get(s.server, '/v1/status')).json.result.discovery).toMatchObject({ active_revision: 'd3' });
      expect((await get(s.server, '/v1/status')).json.result.discovery.code).toBeUndefined();
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('refuses an unsigned discovery bundle when keys are configured, and applies a signed one', async () => {
    down.a = down.b = false;
    await publishDiscovery('u1', discovered({ name: 'main', resource: '/bundles/alice.tar.gz', logs: 'a', stage: 'u' }));
    const s = await start({ ...BOOT(), keys: { k: { algorithm: 'HS256', key: 'shared-secret' } } });
    try {
      await waitFor('the signature error', () => /signature/i.test(s.manager.discovery!.bundleStatus().message ?? ''), 10_000);
      expect(s.manager.pluginStates()['discovery']!.state).toBe('NOT_READY');
      files['/discovery.tar.gz'] = {
        body: await archive({ revision: 's1', data: { config: discovered({ name: 'main', resource: '/bundles/alice.tar.gz', logs: 'a', stage: 's' }) } }, { key: 'shared-secret', algorithm: 'HS256', keyid: 'k' }),
        etag: `"d${++etag}"`,
      };
      await waitFor('the signed one', () => s.manager.discovery!.bundleStatus().active_revision === 's1', 10_000);
      await waitFor('alice', async () => (await decide(s.server, 'alice')).result === true, 10_000);
    } finally {
      await s.stop();
    }
  }, 30_000);

  it('persist: a restarted server applies the persisted discovery bundle while the service is down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-discovery-'));
    try {
      await publishDiscovery('p1', discovered({ name: 'main', resource: '/bundles/alice.tar.gz', logs: 'a', stage: 'p' }));
      const boot = { ...BOOT(), persistence_directory: dir, discovery: { ...BOOT().discovery, persist: true } };
      const s1 = await start(boot);
      await waitFor('p1', () => s1.manager.discovery!.bundleStatus().active_revision === 'p1', 10_000);
      await s1.stop();

      delete files['/discovery.tar.gz'];
      const s2 = await start(boot);
      try {
        // Applied from disk before start() resolved: the discovered bundle is configured.
        expect(Object.keys(s2.manager.config.bundles)).toEqual(['main']);
        expect(s2.manager.discovery!.bundleStatus().active_revision).toBe('p1');
        await waitFor('alice from the persisted configuration', async () => (await decide(s2.server, 'alice')).result === true, 10_000);
        await waitFor('the download error', () => s2.manager.discovery!.bundleStatus().code === 'bundle_error', 10_000);
      } finally {
        await s2.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
