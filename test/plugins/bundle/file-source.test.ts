// Bundles whose resource is a file:// URL (a .tar.gz or a bundle directory on disk): no
// service is configured, the file is re-read on the polling schedule, an unchanged file is
// not re-activated, a changed one is, and a broken one leaves the last good bundle serving.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { archive, fastTiming, waitFor } from '../../loopback.js';

type Doc = Record<string, any>;

const policy = (v: string): string => `package app\n\nversion := "${v}"\n`;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function start(resource: string): Promise<{ server: RunningServer; manager: PluginManager }> {
  const config = validateConfig({ bundles: { app: { resource, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } }, status: { console: false } });
  const engine = new RegolithEngine();
  const manager = new PluginManager({ config, engine, timing: fastTiming(20) });
  await manager.start();
  const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
  cleanup.push(async () => {
    await server.close();
    await manager.stop();
  });
  return { server, manager };
}

async function get(server: RunningServer, p: string): Promise<{ status: number; json: Doc }> {
  const res = await fetch(server.url + p);
  return { status: res.status, json: (await res.json()) as Doc };
}

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'regolith-file-bundle-'));
  cleanup.push(async () => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

describe('file:// bundle resources', () => {
  it('activates a local .tar.gz without a service, keeps it on a broken update, picks up a fix', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'app.tar.gz');
    fs.writeFileSync(file, await archive({ revision: 'r1', roots: ['app'], modules: { 'app/p.rego': policy('one') } }));
    const { server, manager } = await start(pathToFileURL(file).href);

    await waitFor('activation', async () => (await get(server, '/health?bundles=true')).status === 200, 10_000);
    expect((await get(server, '/v1/data/app/version')).json.result).toBe('one');
    const first = manager.bundle!.bundleStatuses().app!;
    expect(first).toMatchObject({ active_revision: 'r1', type: 'snapshot' });

    // Unchanged file: polled again, not re-activated.
    await waitFor('a second poll', () => manager.bundle!.bundleStatuses().app!.last_request !== first.last_request, 10_000);
    expect(manager.bundle!.bundleStatuses().app!.last_successful_activation).toBe(first.last_successful_activation);

    // A truncated archive: an error in status, the last good bundle keeps serving.
    const good = await archive({ revision: 'r2', roots: ['app'], modules: { 'app/p.rego': policy('two') } });
    fs.writeFileSync(file, good.subarray(0, Math.floor(good.length / 2)));
    await waitFor('the error in status', () => manager.bundle!.bundleStatuses().app!.code === 'bundle_error', 10_000);
    expect((await get(server, '/v1/data/app/version')).json.result).toBe('one');

    fs.writeFileSync(file, good);
    await waitFor('the update', async () => (await get(server, '/v1/data/app/version')).json.result === 'two', 10_000);
    expect(manager.bundle!.bundleStatuses().app!.code).toBeUndefined();
    expect((await get(server, '/v1/status')).json.result.bundles.app.active_revision).toBe('r2');
  });

  it('reads a bundle directory and reports a missing path as a bundle error', async () => {
    const dir = tmpDir();
    const bdir = path.join(dir, 'bundle');
    fs.mkdirSync(path.join(bdir, 'app'), { recursive: true });
    fs.writeFileSync(path.join(bdir, '.manifest'), JSON.stringify({ revision: 'dir-1', roots: ['app'] }));
    fs.writeFileSync(path.join(bdir, 'app', 'p.rego'), policy('dir'));
    fs.writeFileSync(path.join(bdir, 'app', 'data.json'), JSON.stringify({ n: 7 }));
    const { server } = await start(pathToFileURL(bdir).href);
    await waitFor('activation', async () => (await get(server, '/v1/data/app/version')).json.result === 'dir', 10_000);
    expect((await get(server, '/v1/data/app/n')).json.result).toBe(7);

    const missing = await start(pathToFileURL(path.join(dir, 'nope.tar.gz')).href);
    await waitFor('the error', () => missing.manager.bundle!.bundleStatuses().app!.message?.includes('no such file'), 10_000);
    expect((await get(missing.server, '/health?bundles=true')).status).toBe(500);
  });
});
