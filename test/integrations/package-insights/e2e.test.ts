// The package insights adapter end to end: a real server whose data adapter reads lockfiles
// and a stand-in insights API over loopback, and serves data.insights to the shipped
// supply-chain policy; through several pages, batches over 5,000, throttling, server
// errors, timeouts and malformed bodies, keeping the last good data.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../loopback.js';
import { serve, shippedPolicy, type Served } from '../../plugins/adapters/harness.js';
import { addVersion, insightsStandIn, type InsightsStandIn } from './stand-in.js';

let dir: string;
let api: InsightsStandIn;
let running: Served[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regolith-insights-'));
  api = await insightsStandIn();
});
afterEach(async () => {
  for (const s of running) await s.stop();
  running = [];
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const POLICY = { 'supply_chain.rego': shippedPolicy('supply-chain/supply_chain.rego') };

function npmLock(pkgs: Record<string, string>): string {
  const packages: Record<string, unknown> = { '': { name: 'app', version: '1.0.0' } };
  for (const [name, version] of Object.entries(pkgs)) packages[`node_modules/${name}`] = { version, resolved: `https://registry.example/${name}/-/${version}.tgz` };
  return JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages });
}

/** The usual project: five npm packages (one of each kind of problem), a Python one, a purl. */
function project(): { lockfiles: string[] } {
  addVersion(api, 'NPM', 'left-pad', '1.3.0', { licenses: ['MIT'] });
  addVersion(api, 'NPM', '@types/node', '20.11.5', { licenses: ['MIT'], provenance: true });
  addVersion(api, 'NPM', 'copyleft-lib', '2.0.0', { licenses: ['GPL-3.0-only'] });
  addVersion(api, 'NPM', 'old-thing', '0.1.0', { licenses: ['ISC'], deprecated: true });
  addVersion(api, 'NPM', 'vulnerable', '4.0.0', { licenses: ['Apache-2.0'], advisories: ['GHSA-xxxx-yyyy-zzzz'] });
  addVersion(api, 'PYPI', 'Typing_Extensions', '4.9.0', { licenses: ['PSF-2.0'], upstreamName: 'typing_extensions' });
  addVersion(api, 'MAVEN', 'org.apache.commons:commons-lang3', '3.14.0', { licenses: ['Apache-2.0'] });
  api.requirements.set('NPM/left-pad@1.3.0', { npm: { dependencies: { dependencies: [], devDependencies: [{ name: 'tape', requirement: '*' }], optionalDependencies: [], peerDependencies: [], bundleDependencies: [] } } });
  writeFileSync(join(dir, 'package-lock.json'), npmLock({ 'left-pad': '1.3.0', '@types/node': '20.11.5', 'copyleft-lib': '2.0.0', 'old-thing': '0.1.0', vulnerable: '4.0.0', 'not-published': '9.9.9' }));
  writeFileSync(join(dir, 'requirements.txt'), 'Typing_Extensions==4.9.0  # pinned\n');
  return { lockfiles: [join(dir, 'package-lock.json'), join(dir, 'requirements.txt')] };
}

/** The header deadline is 0 (none, as Go's) unless the test makes the stand-in hang: at 20 ms a configured second any deadline is one a loaded machine misses, and the retry shows as a page or batch asked twice (500 ms was missed under stress-ng at load ~20). */
function config(adapter: Record<string, unknown>, extra: Record<string, unknown> = {}, headerTimeoutSeconds = 0): Record<string, unknown> {
  return {
    services: { insights: { url: api.url, response_header_timeout_seconds: headerTimeoutSeconds } },
    adapters: { insights: { type: 'package_insights', service: 'insights', polling: { min_delay_seconds: 1, max_delay_seconds: 1 }, ...adapter } },
    ...extra,
  };
}

async function start(cfg: Record<string, unknown>, policies: Record<string, string> = POLICY): Promise<Served> {
  const s = await serve(cfg, policies);
  running.push(s);
  return s;
}

const activated = (s: Served) =>
  waitFor('the adapter to activate', async () => (await s.get('/health?bundles')).status === 200, 10_000).catch(async (e: Error) => {
    throw new Error(`${e.message}: ${JSON.stringify((await s.get('/v1/status')).body)}`);
  });

describe('package insights adapter', () => {
  it('serves every version at data.insights.versions["SYSTEM/name@version"] as the API gave it, across pages', async () => {
    const { lockfiles } = project();
    api.pageSize = 2; // 7 versions asked: 4 pages, each the identical request plus its token
    const s = await start(config({ lockfiles, purls: ['pkg:maven/org.apache.commons/commons-lang3@3.14.0'], requirements: true }));
    await activated(s);
    const doc = (await s.get('/v1/data/insights')).body.result;
    expect(Object.keys(doc.versions).sort()).toEqual([
      'MAVEN/org.apache.commons:commons-lang3@3.14.0',
      'NPM/@types/node@20.11.5',
      'NPM/copyleft-lib@2.0.0',
      'NPM/left-pad@1.3.0',
      'NPM/old-thing@0.1.0',
      'NPM/vulnerable@4.0.0',
      'PYPI/Typing_Extensions@4.9.0',
    ]);
    // the name goes out as the lockfile writes it (the API takes names including capitalization)
    expect(api.requests.some((r) => r.body.toString().includes('"name":"Typing_Extensions"'))).toBe(true);
    // the Version object as the API gives it: canonical name inside, every documented field
    expect(doc.versions['NPM/@types/node@20.11.5']).toEqual(api.versions.get('NPM/@types/node@20.11.5'));
    expect(doc.versions['PYPI/Typing_Extensions@4.9.0'].versionKey.name).toBe('typing-extensions');
    expect(doc.versions['PYPI/Typing_Extensions@4.9.0'].upstreamIdentifiers).toEqual([{ packageName: 'typing_extensions', versionString: '4.9.0', source: 'registry' }]);
    expect(doc.missing).toEqual(['NPM/not-published@9.9.9']);
    expect(doc.purls).toEqual({ 'pkg:maven/org.apache.commons/commons-lang3@3.14.0': 'MAVEN/org.apache.commons:commons-lang3@3.14.0' });
    expect(doc.requirements['NPM/left-pad@1.3.0'].npm.dependencies.devDependencies).toEqual([{ name: 'tape', requirement: '*' }]);
    // paging: the stand-in refuses a continuation whose request differs, so 4 answered pages prove it
    // (the first read's pages: polling may have begun the next read meanwhile)
    const versionPages = api.batches.filter((b) => b.path === '/v3alpha/versionbatch').slice(0, 5);
    expect(versionPages.map((b) => b.pageToken === undefined)).toEqual([true, false, false, false, true].slice(0, versionPages.length));
    expect(versionPages.length).toBeGreaterThanOrEqual(4);

    // decisions over the data: the shipped policy finds each problem
    const v = (await s.get('/v1/data/regolith/supply_chain/violations')).body.result as { package: string; rule: string }[];
    expect(v.map((x) => `${x.package}:${x.rule}`).sort()).toEqual(['copyleft-lib:license', 'not-published:not_found', 'old-thing:deprecated', 'vulnerable:advisory']);
    expect((await s.get('/v1/data/regolith/supply_chain/allow')).body.result).toBe(false);

    // status: revision, last successful request; health with plugins
    const st = (await s.get('/v1/status')).body.result;
    expect(st.adapters.insights).toMatchObject({ name: 'insights', type: 'snapshot' });
    expect(st.adapters.insights.active_revision).toMatch(/^[0-9a-f]{16}$/);
    expect(st.adapters.insights.last_successful_request).toBeTruthy();
    expect(st.plugins['adapter/insights']).toEqual({ state: 'OK' });
    expect((await s.get('/health?bundles&plugins')).status).toBe(200);
    // the document is a bundle of its own: data.system.bundles names it, and it owns its root
    expect((await s.get('/v1/data/system/bundles')).body.result['adapter/insights'].manifest.roots).toEqual(['insights']);
    const put = await fetch(s.server.url + '/v1/data/insights/x', { method: 'PUT', body: '1' });
    expect(put.status).toBe(400);
  });

  it('polls: a change at the API becomes a new revision without a restart', async () => {
    addVersion(api, 'NPM', 'a', '1.0.0', { licenses: ['MIT'] });
    const s = await start(config({ packages: ['NPM/a@1.0.0'] }));
    await activated(s);
    const rev1 = (await s.get('/v1/status')).body.result.adapters.insights.active_revision;
    expect((await s.get('/v1/data/regolith/supply_chain/allow')).body.result).toBe(true);
    addVersion(api, 'NPM', 'a', '1.0.0', { licenses: ['MIT'], advisories: ['GHSA-new'] });
    await waitFor('the next poll to activate the change', async () => (await s.get('/v1/data/regolith/supply_chain/allow')).body.result === false, 10_000);
    expect((await s.get('/v1/status')).body.result.adapters.insights.active_revision).not.toBe(rev1);
  });

  it('splits more than 5,000 versions into batches the API accepts', async () => {
    const packages: string[] = [];
    for (let i = 0; i < 5300; i++) packages.push(addVersion(api, 'CARGO', `crate-${i}`, '1.0.0', { licenses: ['MIT'] }));
    api.pageSize = 2000;
    const s = await start(config({ packages, trigger: 'manual' }));
    void s.manager.trigger();
    await waitFor('activation', async () => (await s.get('/health?bundles')).status === 200, 30_000);
    expect(Object.keys((await s.get('/v1/data/insights/versions')).body.result)).toHaveLength(5300);
    const firsts = api.batches.filter((b) => b.pageToken === undefined).map((b) => b.size);
    expect(firsts).toEqual([5000, 300]);
    expect(Math.max(...api.batches.map((b) => b.size))).toBeLessThanOrEqual(5000);
  });

  it('refuses a purl with qualifiers or a subpath before sending anything', async () => {
    addVersion(api, 'NPM', 'a', '1.0.0');
    const s = await start(config({ packages: ['NPM/a@1.0.0'], purls: ['pkg:npm/a@1.0.0?repository_url=https://evil.example'] }));
    const st = await waitFor('an error in the status', async () => {
      const a = (await s.get('/v1/status')).body;
      return a.result.adapters.insights.code === 'adapter_error' && a.result.adapters.insights;
    });
    expect(st.message).toMatch(/qualifiers/);
    expect(api.batches.filter((b) => b.path === '/v3alpha/purlbatch')).toHaveLength(0);
    expect((await s.get('/health?bundles')).status).toBe(500);
  });

  it('waits out 429 with Retry-After, retries 5xx and timeouts, and gets the data', async () => {
    addVersion(api, 'NPM', 'a', '1.0.0');
    api.faults.push({ status: 429, retryAfter: '2' }, { status: 503 }, { hang: true }, { status: 502 });
    const t0 = Date.now();
    // hangs: a 500 ms header deadline (25 configured seconds)
    const s = await start(config({ packages: ['NPM/a@1.0.0'], trigger: 'manual' }, {}, 25));
    await s.manager.trigger();
    expect((await s.get('/v1/data/insights/versions')).body.result).toHaveProperty(['NPM/a@1.0.0']);
    // Retry-After: 2 seconds at 20 ms per second in this test
    expect(Date.now() - t0).toBeGreaterThanOrEqual(40);
    const http = s.manager.adapters!.data.get('insights')!.http.stats;
    expect(http).toMatchObject({ throttled: 1, retries: 4 });
  });

  it('keeps the last good data through faults, reports each, and recovers', async () => {
    addVersion(api, 'NPM', 'a', '1.0.0');
    // hangs: a 500 ms header deadline (25 configured seconds)
    const s = await start(config({ packages: ['NPM/a@1.0.0'], trigger: 'manual', retry: { max_retries: 1 } }, {}, 25));
    await s.manager.trigger();
    const good = (await s.get('/v1/data/insights')).body.result;
    const rev = (await s.get('/v1/status')).body.result.adapters.insights.active_revision;
    const cases: [string, () => void, RegExp][] = [
      ['a malformed body', () => api.faults.push({ malformed: true }), /not JSON/],
      ['an EDN body', () => api.faults.push({ edn: true }), /EDN/],
      ['5xx past the retries', () => api.faults.push({ status: 500 }, { status: 500 }), /answered 500/],
      ['timeouts past the retries', () => api.faults.push({ hang: true }, { hang: true }), /timeout/],
      ['a reset connection', () => api.faults.push({ reset: true }, { reset: true }), /socket hang up|ECONNRESET|reset/i],
    ];
    for (const [what, inject, message] of cases) {
      inject();
      await s.manager.trigger();
      const st = (await s.get('/v1/status')).body.result.adapters.insights;
      expect(st.code, what).toBe('adapter_error');
      expect(st.message, what).toMatch(message);
      expect(st.active_revision, what).toBe(rev);
      expect((await s.get('/v1/data/insights')).body.result, what).toEqual(good);
      expect((await s.get('/health?bundles')).status, what).toBe(200);
    }
    await s.manager.trigger();
    const st = (await s.get('/v1/status')).body.result.adapters.insights;
    expect(st.code).toBeUndefined();
    expect(st.errors ?? []).toEqual([]);
    // a 429 longer than the adapter waits defers the read: not an error, and nothing is sent meanwhile
    api.faults.push({ status: 429, retryAfter: '3600' });
    await s.manager.trigger();
    const sent = api.batches.length;
    await s.manager.trigger();
    expect(api.batches.length).toBe(sent);
    const deferred = (await s.get('/v1/status')).body.result.adapters.insights;
    expect(deferred.code).toBeUndefined();
    expect(deferred.active_revision).toBe(rev);
    expect((await s.get('/v1/data/insights')).body.result).toEqual(good);
  });

  it('is not ready until the first activation, and says why', async () => {
    addVersion(api, 'NPM', 'a', '1.0.0');
    for (let i = 0; i < 20; i++) api.faults.push({ status: 503 });
    const s = await start(config({ packages: ['NPM/a@1.0.0'], trigger: 'manual', retry: { max_retries: 0 } }));
    await s.manager.trigger();
    const h = await s.get('/health?bundles');
    expect(h.status).toBe(500);
    const st = (await s.get('/v1/status')).body.result;
    expect(st.plugins['adapter/insights'].state).toBe('NOT_READY');
    expect(st.adapters.insights).toMatchObject({ code: 'adapter_error', http_code: '503' });
    api.faults.length = 0;
    await s.manager.trigger();
    expect((await s.get('/health?bundles')).status).toBe(200);
  });

  it('persist: true serves the last data from disk at start while the API is down', async () => {
    addVersion(api, 'NPM', 'a', '1.0.0', { licenses: ['GPL-2.0-only'] });
    const persistence_directory = join(dir, 'persist');
    const cfg = config({ packages: ['NPM/a@1.0.0'], persist: true, trigger: 'manual' }, { persistence_directory });
    const first = await start(cfg);
    await first.manager.trigger();
    const doc = (await first.get('/v1/data/insights')).body.result;
    const rev = (await first.get('/v1/status')).body.result.adapters.insights.active_revision;
    await first.stop();
    await api.close();
    const second = await start(cfg);
    expect((await second.get('/health?bundles')).status).toBe(200);
    expect((await second.get('/v1/data/insights')).body.result).toEqual(doc);
    expect((await second.get('/v1/status')).body.result.adapters.insights.active_revision).toBe(rev);
    expect((await second.get('/v1/data/regolith/supply_chain/allow')).body.result).toBe(false);
    await second.manager.trigger(); // the API is gone: an error, the data stays
    expect((await second.get('/v1/status')).body.result.adapters.insights.code).toBe('adapter_error');
    expect((await second.get('/v1/data/insights')).body.result).toEqual(doc);
    api = await insightsStandIn(); // for afterEach
  });

  it('shows the adapter in /v1/config', async () => {
    addVersion(api, 'NPM', 'a', '1.0.0');
    const s = await start(config({ packages: ['NPM/a@1.0.0'], trigger: 'manual' }));
    const c = (await s.get('/v1/config')).body.result;
    expect(c.adapters.insights).toMatchObject({ type: 'package_insights', service: 'insights', packages: ['NPM/a@1.0.0'] });
  });
});
