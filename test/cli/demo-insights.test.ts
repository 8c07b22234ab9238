// `npm run demo:insights` and `npm run demo:workspace` (README, "Data adapters") really run: the example configuration
// unchanged, against the stand-ins, through the built binary.

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './helpers.js';
import { freePort } from '../loopback.js';

beforeAll(() => ensureBuilt(), 300_000);


describe('npm run demo:insights', () => {
  it('starts the stand-ins and the server from examples/adapters/regolith.yaml and shows decisions over the adapters\' data', async () => {
    const env = { ...process.env, DEMO_INSIGHTS_PORT: String(await freePort()), DEMO_CI_PORT: String(await freePort()), DEMO_PORT: String(await freePort()) };
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      const p = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['examples/adapters/demo.ts'], { cwd: ROOT, env });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.stderr.on('data', (c: Buffer) => (out += c.toString()));
      p.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('licence \\"WTFPL\\" is not in the allowed list');
    expect(r.out).toContain('POST /v1/events/deploy (job 5) -> 200');
    expect(r.out).toContain('"test api.serves: failure"');
    expect(r.out).toMatch(/"active_revision": "[0-9a-f]{16}"/);
    expect(r.out).toContain('3 violations in 5 package versions');
  }, 60_000);
});

describe('npm run demo:workspace', () => {
  it('runs examples/adapters/workspace.yaml against the seed-002 stand-ins: every shipped policy decides over synced data', async () => {
    const env = { ...process.env, DEMO_PORT: String(await freePort()) };
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      const p = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['examples/adapters/workspace-demo.ts'], { cwd: ROOT, env });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.stderr.on('data', (c: Buffer) => (out += c.toString()));
      p.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('user bob@example.com is suspended');
    expect(r.out).toContain('is shared with anyone as writer');
    expect(r.out).toContain('holds no role on deployment acme-prod/web');
    expect(r.out).toContain('alice@example.com is out of office');
    expect(r.out).toContain('"bucket": "SIGSEGV:USE_AFTER_FREE:Renderer::draw(Frame*)"');
    expect(r.out).toContain('11 violations: not ready to upgrade');
  }, 60_000);
});

describe('a demo whose server port is taken', () => {
  it('says so and names the variable to set, instead of talking to the server that holds the port', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const taken = (holder.address() as { port: number }).port;
    try {
      const r = await new Promise<{ code: number; out: string }>((resolve) => {
        const p = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['examples/adapters/workspace-demo.ts'], { cwd: ROOT, env: { ...process.env, DEMO_PORT: String(taken) } });
        let out = '';
        p.stdout.on('data', (c: Buffer) => (out += c.toString()));
        p.stderr.on('data', (c: Buffer) => (out += c.toString()));
        p.on('close', (code) => resolve({ code: code ?? -1, out }));
      });
      expect(r.code).not.toBe(0);
      expect(r.out).toContain(`port ${taken} is taken`);
      expect(r.out).toContain('set DEMO_PORT to a free port');
    } finally {
      holder.close();
    }
  }, 60_000);
});
