// The bundle plugin against a real loopback bundle service, with faults injected.

import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { StoreActivator } from '../../../src/plugins/bundle/activate.js';
import { BundlePlugin } from '../../../src/plugins/bundle/plugin.js';
import { BundlePersistence } from '../../../src/plugins/bundle/persist.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { packEntries } from '../../../src/bundle/index.js';
import { archive, fastTiming, httpServer, waitFor, type TestHTTPServer } from '../../loopback.js';

const POLICY = (v: string) => `package authz\nallow if input.user == "${v}"\n`;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

interface Setup {
  engine: RegolithEngine;
  plugin: BundlePlugin;
  server: TestHTTPServer;
}

async function setup(
  files: Record<string, { body: Buffer; etag?: string; status?: number; delayMs?: number } | undefined>,
  extra: Record<string, unknown> = {},
  opts: { persistDir?: string; bundles?: Record<string, unknown> } = {},
): Promise<Setup> {
  const server = await httpServer(async (req, res) => {
    const f = files[req.url.split('?')[0]!];
    if (!f) {
      res.statusCode = 404;
      return void res.end();
    }
    if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
    if (f.etag && req.headers['if-none-match'] === f.etag) {
      res.statusCode = 304;
      return void res.end();
    }
    res.statusCode = f.status ?? 200;
    if (f.etag) res.setHeader('etag', f.etag);
    res.end(f.body);
  });
  cleanup.push(() => server.close());
  const config = validateConfig({
    services: { acme: { url: server.url, response_header_timeout_seconds: 25 } },
    bundles: opts.bundles ?? { authz: { service: 'acme', resource: '/bundles/authz.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 2 }, ...extra } },
    ...(opts.persistDir ? { persistence_directory: opts.persistDir } : {}),
  });
  const engine = new RegolithEngine();
  const clients = new Map(Object.entries(config.services).map(([n, s]) => [n, new ServiceClient(s, 20)]));
  const plugin = new BundlePlugin({
    config,
    clients,
    activator: new StoreActivator(engine),
    timing: fastTiming(),
    persistence: opts.persistDir ? new BundlePersistence(opts.persistDir) : undefined,
  });
  cleanup.push(() => plugin.stop());
  return { engine, plugin, server };
}

async function allowed(engine: RegolithEngine, user: string): Promise<unknown> {
  return (await engine.evaluate(['authz', 'allow'], { input: { user } })).result;
}

describe('bundle plugin', () => {
  it('activates, sends If-None-Match, handles 304, and picks up an update by polling', async () => {
    const files: Record<string, { body: Buffer; etag?: string }> = {
      '/bundles/authz.tar.gz': { body: await archive({ revision: 'r1', roots: ['authz'], modules: { 'authz/p.rego': POLICY('alice') }, data: { authz: { n: 1 } } }), etag: '"e1"' },
    };
    const { engine, plugin, server } = await setup(files);
    expect(plugin.status().state).toBe('NOT_READY');
    await plugin.start();
    await waitFor('activation', () => plugin.status().state === 'OK');
    expect(await allowed(engine, 'alice')).toBe(true);
    expect(engine.store.read(['authz', 'n'])).toBe(1);
    expect(engine.store.read(['system', 'bundles', 'authz', 'manifest', 'revision'])).toBe('r1');
    await waitFor('a conditional request', () => server.requests.some((r) => r.headers['if-none-match'] === '"e1"'));
    const st = plugin.bundleStatuses()['authz']!;
    expect(st.active_revision).toBe('r1');
    expect(st.last_successful_request >= st.last_successful_download).toBe(true);
    expect(st.metrics.timer_bundle_request_ns).toBeGreaterThan(0);
    expect(st.code).toBeUndefined();

    files['/bundles/authz.tar.gz'] = { body: await archive({ revision: 'r2', roots: ['authz'], modules: { 'authz/p.rego': POLICY('bob') } }), etag: '"e2"' };
    await waitFor('revision r2', () => plugin.bundleStatuses()['authz']!.active_revision === 'r2');
    expect(await allowed(engine, 'bob')).toBe(true);
    expect(await allowed(engine, 'alice')).toBeUndefined();
    // Data under the root that the new revision no longer carries is gone.
    expect(() => engine.store.read(['authz', 'n'])).toThrow();
  });

  it('keeps the last good bundle through 500s, truncated archives, compile errors and timeouts', async () => {
    const good = await archive({ revision: 'good', roots: ['authz'], modules: { 'authz/p.rego': POLICY('alice') } });
    const files: Record<string, { body: Buffer; etag?: string; status?: number; delayMs?: number }> = { '/bundles/authz.tar.gz': { body: good, etag: '"g"' } };
    const { engine, plugin } = await setup(files);
    await plugin.start();
    await waitFor('activation', () => plugin.status().state === 'OK');

    const faults: [string, { body: Buffer; etag?: string; status?: number; delayMs?: number }, RegExp][] = [
      ['500', { body: Buffer.from('boom'), status: 500 }, /server replied with Internal Server Error/],
      ['truncated', { body: good.subarray(0, good.length - 20), etag: '"t"' }, /bundle authz:/],
      [
        'compile error',
        { body: await archive({ revision: 'bad', roots: ['authz'], modules: { 'authz/p.rego': 'package authz\nallow if undefined_fn(1)\n' } }), etag: '"c"' },
        /undefined_fn/,
      ],
      ['timeout', { body: good, status: 200, delayMs: 1500 }, /timeout awaiting response headers/],
    ];
    for (const [what, fault, msg] of faults) {
      const before = plugin.bundleStatuses()['authz']!.last_request;
      files['/bundles/authz.tar.gz'] = fault;
      if (what === 'timeout') {
        // 25 configured seconds at 20ms/s = 500ms: the server's 1500ms delay exceeds it.
        await waitFor(what, () => /timeout/.test(plugin.bundleStatuses()['authz']!.message ?? ''), 5000);
      } else {
        await waitFor(what, () => {
          const s = plugin.bundleStatuses()['authz']!;
          return s.last_request !== before && s.code === 'bundle_error' && msg.test(s.message ?? '');
        });
      }
      const s = plugin.bundleStatuses()['authz']!;
      expect(s.message, what).toMatch(msg);
      expect(s.active_revision, what).toBe('good');
      expect(await allowed(engine, 'alice'), what).toBe(true);
      expect(plugin.status().state).toBe('OK');
    }
    files['/bundles/authz.tar.gz'] = { body: await archive({ revision: 'next', roots: ['authz'], modules: { 'authz/p.rego': POLICY('carol') } }), etag: '"n"' };
    await waitFor('recovery', () => plugin.bundleStatuses()['authz']!.active_revision === 'next');
    expect(plugin.bundleStatuses()['authz']!.code).toBeUndefined();
    expect(await allowed(engine, 'carol')).toBe(true);
  });

  it('clears a download error once the service answers 304 for the active bundle, as OPA', async () => {
    const good = await archive({ revision: 'good', roots: ['authz'], modules: { 'authz/p.rego': POLICY('alice') } });
    const files: Record<string, { body: Buffer; etag?: string; status?: number }> = { '/bundles/authz.tar.gz': { body: good, etag: '"g"' } };
    const { plugin, server } = await setup(files);
    await plugin.start();
    await waitFor('activation', () => plugin.status().state === 'OK');
    files['/bundles/authz.tar.gz'] = { body: Buffer.from('down'), status: 503 };
    await waitFor('the error', () => plugin.bundleStatuses()['authz']!.code === 'bundle_error');
    const failedAt = plugin.bundleStatuses()['authz']!.last_request;
    const seen = server.requests.length;
    // the service is back with the same bundle: it answers 304
    files['/bundles/authz.tar.gz'] = { body: good, etag: '"g"' };
    await waitFor('a successful request after the error', () => plugin.bundleStatuses()['authz']!.last_successful_request > failedAt);
    expect(server.requests.slice(seen).some((r) => r.headers['if-none-match'] === '"g"')).toBe(true);
    const s = plugin.bundleStatuses()['authz']!;
    expect(s.code).toBeUndefined();
    expect(s.message).toBeUndefined();
    expect(s.active_revision).toBe('good');
    expect(s.last_successful_download < failedAt).toBe(true); // nothing was downloaded again
  });

  it('reports a never-activated bundle as NOT_READY with the error', async () => {
    const { plugin } = await setup({});
    await plugin.start();
    await waitFor('an error', () => plugin.bundleStatuses()['authz']!.code === 'bundle_error');
    expect(plugin.bundleStatuses()['authz']).toMatchObject({ http_code: '404', message: 'server replied with Not Found', active_revision: '' });
    expect(plugin.status().state).toBe('NOT_READY');
  });

  it('serves several bundles with disjoint roots and rejects an overlapping one', async () => {
    const files = {
      '/a.tar.gz': { body: await archive({ revision: 'a1', roots: ['authz'], modules: { 'authz/p.rego': POLICY('alice') } }) },
      '/b.tar.gz': { body: await archive({ revision: 'b1', roots: ['roles'], data: { roles: { admin: ['ann'] } } }) },
      '/c.tar.gz': { body: await archive({ revision: 'c1', roots: ['roles/extra'], data: { roles: { extra: 1 } } }) },
    };
    const polling = { min_delay_seconds: 1, max_delay_seconds: 1 };
    const { engine, plugin } = await setup(files, {}, {
      bundles: {
        a: { service: 'acme', resource: 'a.tar.gz', polling },
        b: { service: 'acme', resource: 'b.tar.gz', polling },
        c: { service: 'acme', resource: 'c.tar.gz', polling },
      },
    });
    await plugin.start();
    await waitFor('a and b', () => plugin.bundleStatuses()['a']!.active_revision === 'a1' && plugin.bundleStatuses()['b']!.active_revision === 'b1');
    await waitFor('c rejected', () => plugin.bundleStatuses()['c']!.code === 'bundle_error');
    expect(plugin.bundleStatuses()['c']!.message).toMatch(/overlapping roots/);
    expect(engine.store.read(['roles', 'admin'])).toEqual(['ann']);
    expect(await allowed(engine, 'alice')).toBe(true);
  });

  it('applies a delta bundle on top of the active snapshot', async () => {
    const files: Record<string, { body: Buffer; etag?: string }> = {
      '/bundles/authz.tar.gz': { body: await archive({ revision: 's1', roots: ['authz'], data: { authz: { users: { alice: true }, old: 1 } } }), etag: '"s1"' },
    };
    const { engine, plugin } = await setup(files);
    await plugin.start();
    await waitFor('snapshot', () => plugin.bundleStatuses()['authz']!.active_revision === 's1');
    const patch = { data: [{ op: 'upsert', path: '/authz/users/bob', value: true }, { op: 'remove', path: '/authz/old' }] };
    const delta = packEntries([
      { path: 'patch.json', bytes: Buffer.from(JSON.stringify(patch)) },
      { path: '.manifest', bytes: Buffer.from(JSON.stringify({ revision: 'd1', roots: ['authz'] })) },
    ]);
    files['/bundles/authz.tar.gz'] = { body: delta, etag: '"d1"' };
    await waitFor('delta', () => plugin.bundleStatuses()['authz']!.active_revision === 'd1');
    expect(plugin.bundleStatuses()['authz']!.type).toBe('delta');
    expect(engine.store.read(['authz', 'users'])).toEqual({ alice: true, bob: true });
    expect(() => engine.store.read(['authz', 'old'])).toThrow();
  });

  it('verifies a bundle signed by the bundle-format code and rejects a tampered one', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const priv = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const signed = await archive({ revision: 'signed', roots: ['authz'], modules: { 'authz/p.rego': POLICY('alice') } }, { key: priv, algorithm: 'RS256', keyid: 'k1' });
    const files: Record<string, { body: Buffer; etag?: string }> = { '/bundles/authz.tar.gz': { body: signed, etag: '"1"' } };
    const server = await httpServer((req, res) => {
      const f = files['/bundles/authz.tar.gz']!;
      if (req.headers['if-none-match'] === f.etag) {
        res.statusCode = 304;
        return void res.end();
      }
      res.setHeader('etag', f.etag!);
      res.end(f.body);
    });
    cleanup.push(() => server.close());
    const config = validateConfig({
      services: { acme: { url: server.url } },
      keys: { k1: { algorithm: 'RS256', key: pub } },
      bundles: { authz: { service: 'acme', polling: { min_delay_seconds: 1, max_delay_seconds: 1 }, signing: { keyid: 'k1' } } },
    });
    const engine = new RegolithEngine();
    const plugin = new BundlePlugin({ config, clients: new Map([['acme', new ServiceClient(config.services['acme']!, 20)]]), activator: new StoreActivator(engine), timing: fastTiming() });
    cleanup.push(() => plugin.stop());
    await plugin.start();
    await waitFor('signed activation', () => plugin.bundleStatuses()['authz']!.active_revision === 'signed');
    expect(await allowed(engine, 'alice')).toBe(true);

    // Same signatures, one policy file changed: the digest no longer matches.
    const tampered = await archive({ revision: 'signed', roots: ['authz'], modules: { 'authz/p.rego': POLICY('mallory') } });
    const { readTarballEntries } = await import('../../../src/bundle/index.js');
    const sigs = (await readTarballEntries(signed)).find((e) => e.path === '.signatures.json')!;
    const entries = (await readTarballEntries(tampered)).map((e) => ({ path: e.path, bytes: e.bytes }));
    files['/bundles/authz.tar.gz'] = { body: packEntries([...entries, { path: '.signatures.json', bytes: sigs.bytes }]), etag: '"2"' };
    await waitFor('rejection', () => plugin.bundleStatuses()['authz']!.code === 'bundle_error');
    expect(plugin.bundleStatuses()['authz']!.message).toMatch(/digest mismatch/);
    expect(await allowed(engine, 'mallory')).toBeUndefined();
    expect(await allowed(engine, 'alice')).toBe(true);

    // An unsigned bundle is refused when signing is configured.
    files['/bundles/authz.tar.gz'] = { body: tampered, etag: '"3"' };
    await waitFor('unsigned rejection', () => /missing \.signatures\.json/.test(plugin.bundleStatuses()['authz']!.message ?? ''));
  });

  it('persists the activated bundle and serves it at start-up while the service is down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-persist-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const files: Record<string, { body: Buffer; etag?: string; status?: number } | undefined> = {
      '/bundles/authz.tar.gz': { body: await archive({ revision: 'p1', roots: ['authz'], modules: { 'authz/p.rego': POLICY('alice') } }) },
    };
    const first = await setup(files, { persist: true }, { persistDir: dir });
    await first.plugin.start();
    await waitFor('activation', () => first.plugin.status().state === 'OK');
    await first.plugin.stop();

    files['/bundles/authz.tar.gz'] = { body: Buffer.from('down'), status: 503 };
    const second = await setup(files, { persist: true }, { persistDir: dir });
    await second.plugin.start();
    // Activated from disk before any download succeeded.
    expect(second.plugin.bundleStatuses()['authz']!.active_revision).toBe('p1');
    expect(await allowed(second.engine, 'alice')).toBe(true);
    await waitFor('download error', () => second.plugin.bundleStatuses()['authz']!.http_code === '503');
    expect(await allowed(second.engine, 'alice')).toBe(true);
  });

  it('long polls with Prefer: wait=N', async () => {
    const files = { '/bundles/authz.tar.gz': { body: await archive({ revision: 'lp', roots: ['authz'] }), etag: '"lp"' } };
    const { plugin, server } = await setup(files, { polling: { long_polling_timeout_seconds: 3 } });
    await plugin.start();
    await waitFor('activation', () => plugin.status().state === 'OK');
    expect(server.requests[0]!.headers['prefer']).toBe('wait=3');
  });
});
