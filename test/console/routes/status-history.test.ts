// GET /ui/api/status, what the dashboard shows of the server itself: version, labels, the
// active configuration redacted, bundle error history, and the last hour in samples.

import { afterEach, describe, expect, it } from 'vitest';
import { regolithVersion } from '../../../src/engine/version.js';
import { fakeBuild, get, startUi, type UiServer } from './helpers.js';

let s: UiServer | undefined;
const build = fakeBuild();
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GET /ui/api/status: the server', () => {
  it('gives the version, the labels and the configuration without its secrets', async () => {
    const config = {
      services: { acme: { url: 'https://example.test', credentials: { bearer: { token: 'SECRET-TOKEN' } } } },
      labels: { env: 'test' },
      keys: { signer: { algorithm: 'HS256', key: 'SECRET-KEY' } },
    };
    s = await startUi({ assetsDir: build.dir }, { config });
    const r = await get(s, '/ui/api/status');
    expect(r.json.version.version).toBe(regolithVersion());
    expect(r.json.labels).toEqual({ env: 'test', version: regolithVersion() });
    expect(r.json.config.services.acme).toEqual({ url: 'https://example.test' });
    expect(r.json.config.keys.signer).toEqual({ algorithm: 'HS256' });
    expect(r.text).not.toContain('SECRET');
  });

  it('samples decisions per second, latency and memory', async () => {
    s = await startUi({ assetsDir: build.dir, statusSampleMs: 150 });
    await s.engine.putPolicy('p.rego', 'package p\n\nallow := true\n');
    for (let i = 0; i < 10; i++) await fetch(`${s.url}/v1/data/p/allow`, { method: 'POST', body: '{}' });
    await sleep(400);
    const r = await get(s, '/ui/api/status');
    const samples = r.json.history.samples as { t: number; decisions_per_s: number; latency: { p50: number | null }; rss: number; heap_used: number }[];
    expect(r.json.history.interval_ms).toBe(150);
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(samples.some((x) => x.decisions_per_s > 0)).toBe(true);
    expect(samples.some((x) => typeof x.latency.p50 === 'number')).toBe(true);
    expect(samples.every((x) => x.rss > 0 && x.heap_used > 0)).toBe(true);
    // a sample without requests has no latency, and no decisions
    await sleep(400);
    const later = (await get(s, '/ui/api/status')).json.history.samples.at(-1);
    expect(later.decisions_per_s).toBe(0);
    expect(later.latency).toEqual({ p50: null, p90: null, p99: null });
  });

  it('keeps the history of bundle errors: once per error, again when it returns after a success', async () => {
    let bundles: Record<string, Record<string, string>> = { authz: { name: 'authz', code: 'bundle_error', message: 'server replied with HTTP 404' } };
    s = await startUi({ assetsDir: build.dir, statusSampleMs: 100 }, { bundleStatus: () => ({ bundles }) });
    await sleep(350);
    bundles = { authz: { name: 'authz' } };
    await sleep(250);
    bundles = { authz: { name: 'authz', code: 'bundle_error', message: 'server replied with HTTP 404' } };
    await sleep(250);
    const errors = (await get(s, '/ui/api/status')).json.bundle_errors as { kind: string; name: string; code: string; message: string; time: string }[];
    expect(errors.map((e) => [e.kind, e.name, e.code, e.message])).toEqual([
      ['bundle', 'authz', 'bundle_error', 'server replied with HTTP 404'],
      ['bundle', 'authz', 'bundle_error', 'server replied with HTTP 404'],
    ]);
    expect(Date.parse(errors[1]!.time)).toBeGreaterThan(Date.parse(errors[0]!.time));
  });
});
