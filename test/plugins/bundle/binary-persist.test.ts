// Black box: bundles.<name>.persist with the real `regolith run` binary. The process is
// killed with SIGKILL while it is downloading an update; restarted against a bundle service
// that now fails, it serves the persisted bundle from its first request on, before any
// download succeeds; once the service recovers, the update is activated and persisted.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundleFromBytes } from '../../../src/bundle/index.js';
import { ensureBuilt } from '../../cli/helpers.js';
import { archive, httpServer, waitFor, type TestHTTPServer } from '../../loopback.js';
import { startRun, type RunProcess } from '../../runtime/run-process.js';

type Doc = Record<string, any>;
type Mode = 'r1' | 'stall' | 'fail' | 'r2';

const policy = (v: string): string => `package app\n\nversion := "${v}"\n`;

let dir: string;
let service: TestHTTPServer;
const runs: RunProcess[] = [];

beforeAll(() => {
  ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regolith-persist-'));
}, 300_000);

afterAll(async () => {
  for (const r of runs) await r.kill('SIGKILL');
  await service?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function version(run: RunProcess): Promise<unknown> {
  const res = await fetch(`${run.url}/v1/data/app/version`);
  return ((await res.json()) as Doc).result;
}

async function persistedRevision(file: string): Promise<string | undefined> {
  if (!fs.existsSync(file)) return undefined;
  return (await readBundleFromBytes(fs.readFileSync(file))).manifest.revision;
}

describe('persist: true across kill -9', () => {
  it('serves the persisted bundle at start-up while the service fails, then takes the update', async () => {
    const r1 = await archive({ revision: 'r1', roots: ['app'], modules: { 'app/p.rego': policy('one') } });
    const r2 = await archive({ revision: 'r2', roots: ['app'], modules: { 'app/p.rego': policy('two') } });
    let mode: Mode = 'r1';
    let stalled: () => void = () => {};
    const stalledSeen = new Promise<void>((r) => (stalled = r));
    service = await httpServer((req, res) => {
      if (req.url === '/status') return void res.end();
      if (mode === 'fail') {
        res.statusCode = 500;
        return void res.end();
      }
      if (mode === 'stall') {
        // Headers and half the archive, then nothing: the download is in flight when killed.
        res.writeHead(200, { 'content-length': String(r2.length), etag: '"r2"' });
        res.write(r2.subarray(0, r2.length >> 1));
        return void stalled();
      }
      const body = mode === 'r1' ? r1 : r2;
      const etag = `"${mode}"`;
      if (req.headers['if-none-match'] === etag) {
        res.statusCode = 304;
        return void res.end();
      }
      res.writeHead(200, { etag });
      res.end(body);
    });

    const persistDir = path.join(dir, 'persist');
    const configFile = path.join(dir, 'config.yaml');
    fs.writeFileSync(
      configFile,
      [
        'services:',
        '  acme:',
        `    url: ${service.url}`,
        'bundles:',
        '  app:',
        '    service: acme',
        '    resource: bundles/app.tar.gz',
        '    persist: true',
        '    polling: { min_delay_seconds: 1, max_delay_seconds: 1 }',
        `persistence_directory: ${JSON.stringify(persistDir)}`,
        'status:',
        '  service: acme',
      ].join('\n'),
    );
    const file = path.join(persistDir, 'bundles', 'app', 'bundle.tar.gz');

    // First life: activate r1, which is persisted; then die mid-download of r2.
    const first = await startRun(['-c', configFile]);
    runs.push(first);
    await waitFor('r1 active', async () => (await version(first)) === 'one', 60_000);
    await waitFor('r1 persisted', async () => (await persistedRevision(file)) === 'r1', 60_000);
    mode = 'stall';
    await stalledSeen;
    await first.kill('SIGKILL');
    expect(await persistedRevision(file)).toBe('r1');

    // Second life: the service only fails, yet r1 serves from the very first request.
    mode = 'fail';
    const second = await startRun(['-c', configFile]);
    runs.push(second);
    expect(await version(second)).toBe('one');
    expect((await fetch(`${second.url}/health?bundles=true`)).status).toBe(200);
    const st = await waitFor(
      'the download failure in status',
      async () => {
        const b = ((await (await fetch(`${second.url}/v1/status`)).json()) as Doc).result.bundles.app;
        return b.http_code === '500' ? b : undefined;
      },
      60_000,
    );
    expect(st).toMatchObject({ active_revision: 'r1', code: 'bundle_error', last_successful_download: '0001-01-01T00:00:00Z' });
    expect(Date.parse(st.last_successful_activation)).toBeGreaterThan(0);

    // The service recovers: r2 is activated and replaces the persisted copy.
    mode = 'r2';
    await waitFor('r2 active', async () => (await version(second)) === 'two', 60_000);
    await waitFor('r2 persisted', async () => (await persistedRevision(file)) === 'r2', 60_000);
    await second.kill('SIGKILL');
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 240_000);
});
