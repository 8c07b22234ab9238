// --diagnostic-addr serves /health and /metrics to probes while the API port is locked;
// unix socket addresses with OPA's --unix-socket-perm.

import { request } from 'node:http';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';

const quiet = pino({ level: 'silent' });
let api: RunningServer;
let diag: RunningServer;
let unix: RunningServer;
let sock: string;

function get(o: { port?: number; socketPath?: string }, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', ...o, path }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

beforeAll(async () => {
  const engine = new RegolithEngine();
  await engine.putPolicy('authz.rego', 'package system.authz\n\ndefault allow := false\n');
  api = await startServer({ addr: '127.0.0.1:0', engine, logger: quiet, processMetrics: false, access: { authorization: 'basic' } });
  diag = await startServer({ addr: '127.0.0.1:0', engine, logger: quiet, processMetrics: false, diagnostic: true });
  sock = join(mkdtempSync(join(tmpdir(), 'regolith-sock-')), 'opa.sock');
  unix = await startServer({ addr: `unix://${sock}`, engine, logger: quiet, processMetrics: false, unixSocketPerm: '700' });
});
afterAll(async () => {
  await Promise.all([api?.close(), diag?.close(), unix?.close()]);
});

describe('listeners', () => {
  it('the locked API port refuses health checks; the diagnostic port answers them and nothing else', async () => {
    expect(await get({ port: api.port }, '/health')).toBe(401);
    expect(await get({ port: diag.port }, '/health')).toBe(200);
    expect(await get({ port: diag.port }, '/metrics')).toBe(200);
    expect(await get({ port: diag.port }, '/v1/data')).toBe(404);
    expect(await get({ port: diag.port }, '/v1/policies')).toBe(404);
  });

  it('serves on a unix socket with the given permissions', async () => {
    expect(unix.url).toBe(`unix://${sock}`);
    expect(statSync(sock).mode & 0o777).toBe(0o700);
    expect(await get({ socketPath: sock }, '/health')).toBe(200);
  });
});
