// `regolith run --server -b <dir>` activates the directory as OPA's runtime does: its
// manifest at data.system.bundles.<the path as given>, its revision in decision-log events,
// --watch following the manifest; /v1/status and /health?bundles know only downloaded
// bundles (OPA's status plugin and health check read the bundle plugin); two bundles whose
// roots overlap are refused at start with OPA's message.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, regolith } from '../cli/helpers.js';
import { waitFor } from '../loopback.js';
import { writeTree } from '../bundle/helpers.js';
import { startRun } from './run-process.js';

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-local-bundles-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ decision_logs: { console: true }, status: { console: true } }));
}, 300_000);

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const r = await fetch(url, init);
  return { status: r.status, body: await r.json() };
}

describe('regolith run --server -b', () => {
  it('records the manifest, names the revision in decision logs, and follows it with --watch', async () => {
    const b1 = writeTree({ '.manifest': '{"revision":"r7","roots":["x"]}', 'x/p.rego': 'package x\n\nallow := true\n' }, mkdtempSync(join(dir, 'b1-')));
    const run = await startRun(['--watch', '-c', join(dir, 'config.json'), '-b', b1]);
    try {
      const bundles = await json(run.url + '/v1/data/system/bundles');
      expect(bundles.body.result).toEqual({ [b1]: { etag: '', manifest: { revision: 'r7', roots: ['x'] } } });

      const d = await json(run.url + '/v1/data/x/allow', { method: 'POST', body: '{"input":{}}' });
      expect(d.body.result).toBe(true);
      await waitFor('the decision logged', () => run.output().includes(d.body.decision_id), 10_000);
      const line = run.output().split('\n').find((l) => l.includes(d.body.decision_id) && l.includes('Decision Log'))!;
      expect(JSON.parse(line).bundles).toEqual({ [b1]: { revision: 'r7' } });

      // OPA's status plugin and /health?bundles read the bundle plugin, which has none
      const status = await json(run.url + '/v1/status');
      expect(status.status).toBe(200);
      expect(status.body.result.bundles ?? {}).toEqual({});
      expect((await fetch(run.url + '/health?bundles')).status).toBe(200);

      // the bundle owns x: the Data API may not write there (OPA's scope check)
      const put = await json(run.url + '/v1/data/x/y', { method: 'PUT', body: '1' });
      expect(put.status).toBe(400);
      expect(put.body.message).toBe(`path x/y is owned by bundle "${b1}"`);

      writeFileSync(join(b1, '.manifest'), '{"revision":"r8","roots":["x"]}');
      await waitFor('the reloaded manifest', async () => (await json(run.url + '/v1/data/system/bundles')).body.result[b1]?.manifest.revision === 'r8', 20_000);
    } finally {
      await run.kill('SIGTERM');
    }
  }, 120_000);

  it('without -b, data.system has nothing new', async () => {
    const p = join(dir, 'plain.rego');
    writeFileSync(p, 'package plain\n\nok := true\n');
    const run = await startRun(['-c', join(dir, 'config.json'), p]);
    try {
      const sys = await json(run.url + '/v1/data/system');
      expect(sys.body.result).toBeUndefined();
    } finally {
      await run.kill('SIGTERM');
    }
  }, 120_000);

  it('refuses two bundles whose roots overlap (no manifest: all of data), as OPA does', () => {
    const a = writeTree({ '.manifest': '{"revision":"a","roots":["x"]}', 'x/p.rego': 'package x\n\nz := 1\n' }, mkdtempSync(join(dir, 'a-')));
    const b = writeTree({ 'p.rego': 'package y\n\nz := 1\n' }, mkdtempSync(join(dir, 'b-')));
    const r = regolith(['run', '--server', '--addr', '127.0.0.1:0', '-b', a, '-b', b]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `bundles [${[a, b].sort().join(', ')}] have overlapping roots and cannot be activated simultaneously because bundle(s) [${b}] specify empty root paths ('') which overlap with any other bundle root`,
    );
  }, 120_000);
});
