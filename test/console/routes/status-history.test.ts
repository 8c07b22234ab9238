// GET /ui/api/status, what the dashboard shows of the server itself: version, labels, the
// active configuration redacted, bundle error history, and the last hour in samples.

import { afterEach, describe, expect, it } from 'vitest';
import { regolithVersion } from '../../../src/engine/version.js';
import { fakeBuild, get, startUi, type UiServer } from './helpers.js';
import { DurationHistogram } from '../../../src/server/duration-histogram.js';
import { DEFAULT_BUCKETS } from '../../../src/server/metrics.js';

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

describe('GET /ui/api/status: other processes (--workers)', () => {
  it("adds up the other processes' request histograms, each against its own last reading", async () => {
    // two workers' registries as the primary reads them; this process answers no decisions
    const workers = new Map([
      ['1', new DurationHistogram(DEFAULT_BUCKETS)],
      ['2', new DurationHistogram(DEFAULT_BUCKETS)],
    ]);
    const decide = (id: string, n: number, seconds: number) => {
      for (let i = 0; i < n; i++) workers.get(id)!.observe(200, 'v1/data', 'post', seconds);
    };
    let reads = 0;
    const otherProcesses = async () => {
      reads++;
      return [...workers].map(([id, h]) => ({ id, metrics: [{ name: 'process_cpu_seconds_total', values: [] }, h.get()] }));
    };
    const t0 = Date.now();
    s = await startUi({ assetsDir: build.dir, statusSampleMs: 300, otherProcesses });
    decide('1', 30, 0.0005);
    decide('2', 30, 0.05);
    const sampled = async (n: number) => {
      for (let i = 0; i < 50; i++) {
        const samples = (await get(s!, '/ui/api/status')).json.history.samples as { t: number; decisions_per_s: number; latency: { p50: number | null; p99: number | null } }[];
        if (samples.length >= n) return samples;
        await sleep(100);
      }
      throw new Error(`fewer than ${n} samples`);
    };
    const first = (await sampled(1))[0]!;
    // 60 decisions in the first interval (which began after t0): both workers counted, their latencies mixed
    expect(first.decisions_per_s * ((first.t - t0) / 1000)).toBeGreaterThanOrEqual(59.99);
    expect(first.latency.p50).not.toBeNull();
    expect(first.latency.p99!).toBeGreaterThan(0.01);
    // the status's latency since start covers them too
    expect((await get(s, '/ui/api/status')).json.latency.p99).toBeGreaterThan(0.01);
    // worker 2 is replaced by worker 3, which counts from zero: only its own requests are new
    const n = (await sampled(1)).length;
    workers.delete('2');
    workers.set('3', new DurationHistogram(DEFAULT_BUCKETS));
    decide('3', 5, 0.0005);
    const later = await sampled(n + 2);
    let total = 0;
    for (let i = n; i < later.length; i++) total += (later[i]!.decisions_per_s * (later[i]!.t - later[i - 1]!.t)) / 1000;
    expect(Math.round(total)).toBe(5);
    expect(reads).toBeGreaterThan(1);
  });
});

