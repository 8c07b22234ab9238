// The dashboard of `regolith run --server --workers 2`, the built binary: the workers answer
// the decisions, and the last hour's decisions/s and latency count them (the primary reads
// their request histograms when it samples, every 10 s).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/helpers.js';
import { waitFor } from '../loopback.js';
import { startRun, type RunProcess } from '../runtime/run-process.js';

let run: RunProcess;

beforeAll(async () => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'regolith-console-workers-'));
  writeFileSync(join(dir, 'p.rego'), 'package p\n\nallow if input.user == "ann"\n');
  run = await startRun(['--workers', '2', join(dir, 'p.rego')]);
}, 900_000);
afterAll(async () => run?.kill('SIGTERM'));

type Sample = { t: number; decisions_per_s: number; latency: { p50: number | null } };

describe('GET /ui/api/status with --workers 2', () => {
  it('counts the decisions the workers answer', async () => {
    const status = async () => ((await (await fetch(`${run.url}/ui/api/status`)).json()) as { history: { samples: Sample[] } }).history.samples;
    // after a first sample, 40 decisions on new connections (so that both workers get some)
    const n = (await waitFor('a first sample', async () => (await status()).length || undefined, 30_000)) as number;
    for (let i = 0; i < 40; i++) {
      const r = await fetch(`${run.url}/v1/data/p/allow`, { method: 'POST', body: '{"input":{"user":"ann"}}', headers: { connection: 'close' } });
      expect(await r.json()).toEqual({ result: true });
    }
    const done = Date.now();
    // every one of them is in the samples that follow, at the latency the workers measured
    const samples = await waitFor('a sample after them', async () => {
      const all = await status();
      return all.length > n && all.at(-1)!.t > done ? all : undefined;
    }, 40_000);
    let total = 0;
    for (let i = n; i < samples.length; i++) total += (samples[i]!.decisions_per_s * (samples[i]!.t - samples[i - 1]!.t)) / 1000;
    expect(Math.round(total)).toBe(40);
    expect(samples.slice(n).some((x) => x.latency.p50 !== null)).toBe(true);
  }, 120_000);
});
