// A persisted adapter document on a full disk (issue 28): the write fails with ENOSPC
// (injected at the file layer for the persistence directory only). The new document stays
// active and is served, the status carries an adapter_error naming the failure, the log
// says so, the file on disk stays the last one written whole; the next read tries the
// write again — also when the document has not changed — and the error clears once it
// succeeds.

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { registerAdapterType } from '../../../src/plugins/adapters/registry.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import type { PluginLogger } from '../../../src/plugins/plugin.js';
import { startServer } from '../../../src/server/index.js';
import { fastTiming, httpServer, waitFor } from '../../loopback.js';
import { diskFull } from '../../storage/disk-full.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const f of cleanup.splice(0).reverse()) await f();
});

function recording(): PluginLogger & { lines: { level: string; msg?: string; obj: Record<string, unknown> }[] } {
  const lines: { level: string; msg?: string; obj: Record<string, unknown> }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, msg, obj: obj as Record<string, unknown> });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

describe('adapter persistence on a full disk', () => {
  it('keeps serving, reports the failure in status and logs, keeps the last whole file, and writes again once there is room', async () => {
    let current: { rev: number } = { rev: 1 };
    registerAdapterType('disk_full_test_doc', { kind: 'data', settings: () => ({}), data: () => ({ read: async () => ({ ...current }) }) });
    const dir = fs.mkdtempSync(join(tmpdir(), 'regolith-full-'));
    const svc = await httpServer((_req, res) => void res.end());
    cleanup.push(() => svc.close());
    const config = validateConfig({
      services: { s: { url: svc.url } },
      adapters: { inv: { type: 'disk_full_test_doc', service: 's', persist: true, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } },
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
    const file = join(dir, 'adapters', 'inv', 'data.json');
    const onDisk = () => (fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { document: { rev: number } }).document.rev : undefined);

    await waitFor('rev 1 persisted', () => onDisk() === 1);

    diskFull(dir);
    current = { rev: 2 };
    const status = await waitFor('the error in the status', async () => {
      const s = (await get('/v1/status'))?.adapters?.inv;
      return s?.code === 'adapter_error' && s;
    });
    expect(status.message).toBe('adapter inv: persisting adapter data to disk failed: ENOSPC: no space left on device, write');
    expect(await get('/v1/data/inv/rev')).toBe(2);
    expect(onDisk()).toBe(1);
    expect(fs.readdirSync(join(dir, 'adapters', 'inv'))).toEqual(['data.json']);
    expect(log.lines.find((l) => l.msg === 'Persisting adapter data to disk failed.')).toMatchObject({ level: 'error', obj: { adapter: 'inv', err: 'ENOSPC: no space left on device, write' } });
    // the same document read again while the disk is full: still an error, not a silent OK
    const polls = log.lines.length;
    await waitFor('another failed write', () => log.lines.slice(polls).some((l) => l.msg === 'Persisting adapter data to disk failed.'));
    expect((await get('/v1/status'))?.adapters?.inv?.code).toBe('adapter_error');

    // room again: the unchanged document is written at the next read and the error clears
    vi.restoreAllMocks();
    await waitFor('rev 2 persisted', () => onDisk() === 2);
    await waitFor('the error cleared', async () => (await get('/v1/status'))?.adapters?.inv?.code === undefined);
  });
});
