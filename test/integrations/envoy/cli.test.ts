// The plugin through the built command, as users run it: `regolith run -c` with
// deploy/envoy's configuration and policy answers a Check; and where the optional gRPC
// packages cannot be found, the server stops naming the install to run.

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../../cli/helpers.js';
import { check, httpRequest } from './helpers.js';
import { freePort } from '../../loopback.js';

beforeAll(() => ensureBuilt(), 600_000);

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

describe('regolith run with plugins.envoy_ext_authz_grpc', () => {
  it("deploy/envoy's configuration and policy: an owner's request allowed, the token removed", async () => {
    const [http, grpcPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [BIN, 'run', '--server', '--addr', `127.0.0.1:${http}`, '-c', join(ROOT, 'deploy/envoy/config.yaml'), '--set', `plugins.envoy_ext_authz_grpc.addr=127.0.0.1:${grpcPort}`, join(ROOT, 'deploy/envoy/policy.rego')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(`http://127.0.0.1:${http}/health?plugins`);
      const client = new grpc.Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
      const token = `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify({ sub: 'alice' })).toString('base64url')}.c2ln`;
      const owner = await check(client, httpRequest({ method: 'GET', path: '/orders?owner=alice', headers: { authorization: `Bearer ${token}` } }));
      const other = await check(client, httpRequest({ method: 'GET', path: '/orders?owner=bob', headers: { authorization: `Bearer ${token}` } }));
      client.close();
      expect(owner.error, out).toBeUndefined();
      expect(owner.response!['ok_response']).toEqual({ headers: [{ header: { key: 'x-user-id', value: 'alice' } }], headers_to_remove: ['authorization'] });
      expect(other.response!['denied_response']).toMatchObject({ status: { code: 401 }, body: 'unauthorized' });
      // decision_logs.console: each Check logged with its id
      await new Promise((r) => setTimeout(r, 300));
      expect(out).toMatch(/"path":"envoy\/authz\/allow"/);
    } finally {
      child.kill();
    }
  }, 60_000);

  it('without the gRPC packages: stops with the npm install to run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-nogrpc-'));
    // the built CLI with only its own external dependencies beside it
    cpSync(dirname(dirname(BIN)), join(dir, 'dist'), { recursive: true });
    mkdirSync(join(dir, 'node_modules'));
    mkdirSync(join(dir, 'node_modules', '@opentelemetry'));
    for (const dep of ['re2', 'pino', '@opentelemetry/api']) symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'regolith', version: '0.0.0', type: 'module' }));
    writeFileSync(join(dir, 'c.yaml'), `plugins:\n  envoy_ext_authz_grpc:\n    addr: 127.0.0.1:${await freePort()}\n`);
    const r = spawnSync(process.execPath, [join(dir, 'dist/cli/main.js'), 'run', '--server', '--addr', `127.0.0.1:${await freePort()}`, '-c', join(dir, 'c.yaml')], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('plugins.envoy_ext_authz_grpc needs the gRPC packages, which are not installed: npm install @grpc/grpc-js@1 @grpc/reflection@1');
  }, 60_000);
});
