import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, regolith } from '../helpers.js';
import { freePort } from '../../loopback.js';

beforeAll(() => ensureBuilt(), 300_000);

interface Running {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];

afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts `regolith run` and waits (bounded) for the "Initializing server." log with its address. */
function start(args: string[], timeoutMs = 20_000): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  started.push(child);
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${err}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      for (const line of err.split('\n')) {
        if (!line.includes('Initializing server.')) continue;
        const addrs = (JSON.parse(line) as { addrs: string[] }).addrs;
        clearTimeout(timer);
        resolve({ child, url: addrs[0]!, stderr: () => err, exited });
        return;
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${err}`));
    });
  });
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);
}

async function decide(url: string, path: string, input: unknown): Promise<unknown> {
  const res = await fetch(`${url}/v1/data/${path}`, { method: 'POST', body: JSON.stringify({ input }) });
  return res.json();
}

describe("regolith run: opa's flags for what Regolith does not have", () => {
  // one test per process started (each with its own time limit under load)
  it.each([
    [['--h2c'], /--h2c flag is not supported: Regolith serves HTTP\/1\.1/],
    [['--pprof'], /--pprof flag is not supported: .*node --cpu-prof/],
    [['--ready-timeout', '5'], /--ready-timeout flag is not supported: .*\/health\?bundles&plugins/],
    [['--log-timestamp-format', '2006-01-02'], /--log-timestamp-format flag is not supported: .*RFC 3339/],
    [['-O', '1'], /optimization levels above 0 are not supported/],
  ] as [string[], RegExp][])('refuses %j with one message naming the alternative, never "unknown option"', (flags, message) => {
    const r = regolith(['run', '--server', ...flags, 'examples/sample']);
    expect(r.code, flags.join(' ')).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/unknown option/);
  });

  it('exec refuses --log-timestamp-format the same way', () => {
    const exec = regolith(['exec', '--decision', 'x', '--log-timestamp-format', '2006']);
    expect(exec.stderr).toMatch(/--log-timestamp-format flag is not supported/);
  });

  it('accepts the flags that need nothing here (telemetry, version check, max errors, -O 0, store speed, known-schema check)', async () => {
    const s = await start(['--server', '--addr', '127.0.0.1:0', '--disable-telemetry', '--skip-version-check', '-m', '5', '-O', '0', '--optimize-store-for-read-speed', '--skip-known-schema-check', 'examples/sample']);
    expect(await decide(s.url, 'httpapi/authz/allow', { method: 'GET', path: ['finance', 'salary', 'alice'], user: 'bob' })).toEqual({ result: true });
    s.child.kill('SIGTERM');
    expect(await within(s.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);
});

describe('regolith run --server', () => {
  it('serves decisions for the sample policy on a free port and stops on SIGTERM with exit 0', async () => {
    const s = await start(['--server', '--addr', '127.0.0.1:0', 'examples/sample']);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await decide(s.url, 'httpapi/authz/allow', { method: 'GET', path: ['finance', 'salary', 'alice'], user: 'bob' })).toEqual({ result: true });
    expect(await decide(s.url, 'httpapi/authz/allow', { method: 'GET', path: ['finance', 'salary', 'bob'], user: 'alice' })).toEqual({ result: false });
    expect(await decide(s.url, 'httpapi/authz/reasons', { method: 'DELETE', path: ['users', 'bob'], user: 'alice' })).toEqual({
      result: ['DELETE /users/bob is not permitted for alice'],
    });
    s.child.kill('SIGTERM');
    expect(await within(s.exited, 15_000, 'exit after SIGTERM')).toBe(0);
    expect(s.stderr()).toContain('"msg":"Server shutdown."');
  }, 60_000);

  it('finishes a request in flight before exiting on SIGTERM', async () => {
    // A loopback upstream that answers slowly: the decision waits on http.send.
    let reached!: () => void;
    const waiting = new Promise<void>((r) => (reached = r));
    const upstream: Server = createServer((_req, res) => {
      reached();
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok": true}');
      }, 800);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), 'regolith-run-'));
    writeFileSync(join(dir, 'slow.rego'), `package slow\n\nok := http.send({"method": "GET", "url": "http://127.0.0.1:${port}/"}).body.ok\n`);
    try {
      const s = await start(['--server', '--addr', '127.0.0.1:0', dir]);
      const pending = decide(s.url, 'slow/ok', {});
      // the signal once the decision is in flight (its http.send reached the upstream), not after a fixed 300 ms it may not have arrived in
      await waiting;
      s.child.kill('SIGTERM');
      expect(await within(pending, 15_000, 'request in flight')).toEqual({ result: true });
      expect(await within(s.exited, 15_000, 'exit after SIGTERM')).toBe(0);
    } finally {
      upstream.close();
    }
  }, 60_000);

  it('applies the config file (default_decision) and --set overrides', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-run-'));
    writeFileSync(join(dir, 'config.yaml'), 'default_decision: /httpapi/authz/allow\n');
    const s = await start(['-s', '-a', '127.0.0.1:0', '-c', join(dir, 'config.yaml'), 'examples/sample']);
    const res = await fetch(`${s.url}/`, { method: 'POST', body: JSON.stringify({ method: 'GET', path: ['health'], user: 'x' }) });
    expect(await res.json()).toBe(true);
    s.child.kill('SIGINT');
    expect(await within(s.exited, 15_000, 'exit after SIGINT')).toBe(0);

    const t = await start(['-s', '-a', '127.0.0.1:0', '--set', 'default_decision=/httpapi/authz/user_roles', 'examples/sample']);
    const r2 = await fetch(`${t.url}/`, { method: 'POST', body: JSON.stringify({ user: 'bob' }) });
    expect(await r2.json()).toEqual(['employee', 'manager']);
    t.child.kill('SIGTERM');
    await within(t.exited, 15_000, 'exit');
  }, 60_000);

  it('--log-level error leaves out info logs (startup, requests)', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'run', '-s', '-a', `127.0.0.1:${port}`, '--log-level', 'error', 'examples/sample'], { cwd: ROOT });
    started.push(child);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((r) => child.on('exit', r));
    // until it answers or exits (20 s of tries was a deadline on start-up a loaded machine can miss; the test's timeout bounds this)
    let health: Response | undefined;
    while (!health && child.exitCode === null) {
      health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (!health) await new Promise((r) => setTimeout(r, 200));
    }
    expect(health?.status, err).toBe(200);
    child.kill('SIGTERM');
    expect(await within(exited, 15_000, 'exit')).toBe(0);
    expect(err).toBe('');
  }, 60_000);

  it('loads bundle directories with -b and writes text logs with --log-format text', async () => {
    // The text format has no JSON line to read the address from: find it in the text line.
    const child = spawn(process.execPath, [BIN, 'run', '-s', '-a', '127.0.0.1:0', '-b', '--log-format', 'text', 'examples/sample'], { cwd: ROOT });
    started.push(child);
    let err = '';
    const url = await within(
      new Promise<string>((resolve) =>
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /INFO Initializing server\. addrs=\["(http:[^"]+)"\]/.exec(err);
          if (m) resolve(m[1]!);
        }),
      ),
      20_000,
      'text log',
    );
    expect(await decide(url, 'httpapi/authz/allow', { method: 'POST', path: ['finance', 'payroll'], user: 'carol' })).toEqual({ result: true });
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    expect(await within(exited, 15_000, 'exit')).toBe(0);
  }, 60_000);

  it('--watch reloads changed policies and keeps serving the old ones when a change does not compile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-watch-'));
    writeFileSync(join(dir, 'w.rego'), 'package w\n\nv := 1\n');
    const s = await start(['-s', '-a', '127.0.0.1:0', '--watch', dir]);
    const value = async (): Promise<unknown> => ((await (await fetch(`${s.url}/v1/data/w/v`)).json()) as { result?: unknown }).result;
    expect(await value()).toBe(1);
    writeFileSync(join(dir, 'w.rego'), 'package w\n\nv := 2\n');
    let v: unknown;
    for (let i = 0; i < 50 && v !== 2; i++) {
      await new Promise((r) => setTimeout(r, 200));
      v = await value();
    }
    expect(v).toBe(2);
    writeFileSync(join(dir, 'w.rego'), 'package w\n\nv := \n');
    for (let i = 0; i < 50 && !s.stderr().includes('Reload failed'); i++) await new Promise((r) => setTimeout(r, 200));
    expect(s.stderr()).toContain('Reload failed');
    expect(await value()).toBe(2);
    s.child.kill('SIGTERM');
    expect(await within(s.exited, 15_000, 'exit')).toBe(0);
  }, 60_000);

  it('--watch replaces only what the watched paths own: data written through the API survives a reload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-watch-own-'));
    writeFileSync(join(dir, 'w.rego'), 'package w\n\nv := data.cfg.level\n');
    writeFileSync(join(dir, 'data.json'), '{"cfg": {"level": 1}, "old": true}');
    const s = await start(['-s', '-a', '127.0.0.1:0', '--watch', dir]);
    const get = async (p: string): Promise<unknown> => ((await (await fetch(`${s.url}/v1/data/${p}`)).json()) as { result?: unknown }).result;
    expect(await get('w/v')).toBe(1);
    const put = await fetch(`${s.url}/v1/data/api/users`, { method: 'PUT', body: '["ann"]', headers: { 'content-type': 'application/json' } });
    expect(put.status).toBe(204);
    writeFileSync(join(dir, 'data.json'), '{"cfg": {"level": 2}}');
    let v: unknown;
    for (let i = 0; i < 50 && v !== 2; i++) {
      await new Promise((r) => setTimeout(r, 200));
      v = await get('w/v');
    }
    expect(v).toBe(2);
    expect(await get('api/users')).toEqual(['ann']);
    // A key the files no longer define is removed.
    expect(await get('old')).toBeUndefined();
    s.child.kill('SIGTERM');
    expect(await within(s.exited, 15_000, 'exit')).toBe(0);
  }, 60_000);

  it('--watch works with -b (as OPA): a changed bundle directory is reloaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-watch-bundle-'));
    writeFileSync(join(dir, '.manifest'), '{"roots": ["b"]}');
    writeFileSync(join(dir, 'p.rego'), 'package b\n\nv := data.b.n\n');
    writeFileSync(join(dir, 'data.json'), '{"b": {"n": 1}}');
    const s = await start(['-s', '-a', '127.0.0.1:0', '--watch', '-b', dir]);
    const get = async (p: string): Promise<unknown> => ((await (await fetch(`${s.url}/v1/data/${p}`)).json()) as { result?: unknown }).result;
    expect(await get('b/v')).toBe(1);
    writeFileSync(join(dir, 'data.json'), '{"b": {"n": 3}}');
    let v: unknown;
    for (let i = 0; i < 50 && v !== 3; i++) {
      await new Promise((r) => setTimeout(r, 200));
      v = await get('b/v');
    }
    expect(v).toBe(3);
    s.child.kill('SIGTERM');
    expect(await within(s.exited, 15_000, 'exit')).toBe(0);
  }, 60_000);

  it('exits 1 with a clear message when the port is in use', async () => {
    const s = await start(['-s', '-a', '127.0.0.1:0', 'examples/sample']);
    const port = new URL(s.url).port;
    const r = regolith(['run', '-s', '-a', `127.0.0.1:${port}`, 'examples/sample']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`listen tcp 127.0.0.1:${port}: bind: address already in use`);
    s.child.kill('SIGTERM');
    await within(s.exited, 15_000, 'exit');
  }, 60_000);

  // One test per process started, each with its own time limit: six cold starts in one test
  // passed its 30 s under stress-ng at load ~20 (each start took 5-7 s).
  const bad = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-run-'));
    writeFileSync(join(dir, 'bad.rego'), 'package bad\nallow if {\n');
    writeFileSync(join(dir, 'bad.yaml'), 'services: [\n');
    return dir;
  };
  const exits: [string, (dir: string) => string[], string][] = [
    ['invalid Rego', (d) => ['run', '-s', '-a', '127.0.0.1:0', join(d, 'bad.rego')], 'rego_parse_error'],
    ['a bad config file', (d) => ['run', '-s', '-a', '127.0.0.1:0', '-c', join(d, 'bad.yaml')], 'invalid configuration'],
    ['a missing path', () => ['run', '-s', '-a', '127.0.0.1:0', '/no/such/policy.rego'], 'stat /no/such/policy.rego: no such file or directory'],
    ['a bad flag value', () => ['run', '-s', '--log-level', 'loud'], 'invalid argument "loud" for "-l, --log-level" flag'],
    ['an unknown flag', () => ['run', '-s', '--frobnicate'], "unknown option '--frobnicate'"],
  ];
  it.each(exits)('exits 1 on %s', (_what, args, message) => {
    const r = regolith(args(bad()));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it('without --server it is the shell', () => {
    // test/cli/commands/repl-cli.test.ts drives the shell; here it reads no input and ends
    const repl = regolith(['run', '--history', join(bad(), 'history')], { input: '' });
    expect(repl.code).toBe(0);
    expect(repl.stdout).toContain("Run 'help' to see a list of commands.");
  });
});
