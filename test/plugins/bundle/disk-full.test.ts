// A persisted bundle on a full disk (issue 28): the write fails with ENOSPC (injected at
// the file layer for the persistence directory only). The new revision stays active and
// is served, the status carries a bundle_error naming the failure, the log says so, the
// archive on disk stays the last one written whole, and once the disk has room again the
// next download is written and the error clears.

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readBundleFromBytes } from '../../../src/bundle/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import type { PluginLogger } from '../../../src/plugins/plugin.js';
import { startServer } from '../../../src/server/index.js';
import { archive, fastTiming, httpServer, serveBundles, waitFor, type BundleFiles } from '../../loopback.js';
import { diskFull } from '../../storage/disk-full.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A logger that keeps its lines. */
function recording(): PluginLogger & { lines: { level: string; msg?: string; obj: Record<string, unknown> }[] } {
  const lines: { level: string; msg?: string; obj: Record<string, unknown> }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, msg, obj: obj as Record<string, unknown> });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

const policy = (rev: string) => `package app\n\nrevision := "${rev}"\n`;

describe('bundle persistence on a full disk', () => {
  it('keeps serving, reports the failure in status and logs, keeps the last whole archive, and writes again once there is room', async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'regolith-full-'));
    const files: BundleFiles = {};
    const publish = async (rev: string) => (files['/b.tar.gz'] = { body: await archive({ revision: rev, roots: ['app'], modules: { 'app/p.rego': policy(rev) } }), etag: `"${rev}"` });
    await publish('r1');
    const registry = await httpServer(serveBundles(files));
    cleanup.push(() => registry.close());
    const config = validateConfig({
      services: { registry: { url: registry.url } },
      bundles: { b: { service: 'registry', resource: '/b.tar.gz', persist: true, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } },
      persistence_directory: dir,
      status: { console: true },
    });
    const engine = new RegolithEngine();
    const log = recording();
    const manager = new PluginManager({ config, engine, timing: fastTiming(), logger: log, console: pino({ level: 'silent' }) });
    await manager.start();
    cleanup.push(() => manager.stop());
    const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
    cleanup.push(() => server.close());
    const get = async (path: string) => ((await (await fetch(server.url + path)).json()) as { result: any }).result;
    const onDisk = async () => (await readBundleFromBytes(fs.readFileSync(join(dir, 'bundles', 'b', 'bundle.tar.gz')))).manifest.revision;

    await waitFor('r1 persisted', async () => fs.existsSync(join(dir, 'bundles', 'b', 'bundle.tar.gz')) && (await onDisk()) === 'r1');

    diskFull(dir);
    await publish('r2');
    const status = await waitFor('the error in the status', async () => {
      const s = (await get('/v1/status'))?.bundles?.b;
      return s?.code === 'bundle_error' && s;
    });
    expect(status.message).toBe('bundle b: persisting bundle to disk failed: ENOSPC: no space left on device, write');
    // the activated revision is served (and reported as such); the disk keeps the last whole archive
    expect(await get('/v1/data/app/revision')).toBe('r2');
    expect(status.active_revision).toBe('r2');
    expect(await onDisk()).toBe('r1');
    expect(fs.readdirSync(join(dir, 'bundles', 'b'))).toEqual(['bundle.tar.gz']);
    expect(log.lines).toContainEqual({ level: 'error', msg: 'Persisting bundle to disk failed.', obj: { name: 'b', err: 'ENOSPC: no space left on device, write' } });
    expect(log.lines.filter((l) => l.msg === 'Bundle loaded and activated successfully.').map((l) => l.obj['revision'])).toEqual(['r1']);

    // room again: the next download is full (the ETag was dropped), written, and the error clears
    vi.restoreAllMocks();
    await waitFor('r2 persisted', async () => (await onDisk()) === 'r2');
    await waitFor('the error cleared', async () => (await get('/v1/status'))?.bundles?.b?.code === undefined);
  });
});
