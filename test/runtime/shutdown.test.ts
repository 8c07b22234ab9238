// Start-up failures and shutdown of `regolith run --server`, with and without --workers,
// the built binary as operators run it: a taken port ends the process with OPA's one
// message (never a hang, never one line per worker); a worker that keeps dying is not
// restarted forever; SIGTERM stops an idle server within a second, lets a request in
// flight finish, and hands buffered decision logs to the collector; --shutdown-wait-period
// keeps serving first.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../cli/helpers.js';
import { freePort, gunzipJSON, httpServer, waitFor, type TestHTTPServer } from '../loopback.js';
import { startRun as start, type RunProcess } from './run-process.js';

let dir: string;
let collector: TestHTTPServer & { events: Record<string, any>[] };

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-shutdown-'));
  writeFileSync(join(dir, 'p.rego'), 'package app\n\nallow if input.user == "alice"\n');
  collector = Object.assign(await httpServer(() => {}), { events: [] as Record<string, any>[] });
  collector.handler = (req, res) => {
    if (req.url === '/logs') collector.events.push(...(gunzipJSON(req.body) as Record<string, any>[]));
    res.statusCode = 200;
    res.end();
  };
  // reporting once a minute: only the flush at shutdown can deliver the events in time
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ services: { collector: { url: collector.url } }, decision_logs: { service: 'collector', reporting: { min_delay_seconds: 60, max_delay_seconds: 60 } } }),
  );
}, 300_000);
afterAll(() => collector?.close());

// a failed test must not leave a server (and its workers) behind
const runs: RunProcess[] = [];
const startRun = async (...a: Parameters<typeof start>): Promise<RunProcess> => {
  const run = await start(...a);
  runs.push(run);
  return run;
};
afterEach(async () => {
  for (const run of runs.splice(0)) await run.kill('SIGKILL');
});

/** Runs the binary to its end; its exit code, stderr and how long it ran. */
function runToEnd(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [BIN, 'run', '--server', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - t0 });
    });
  });
}

function takenPort(): Promise<net.Server> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

/** POST a decision; the body is sent in two parts `gapMs` apart (a request in flight meanwhile). */
function decide(url: string, user: string, gapMs = 0, onHead?: () => void): Promise<{ status: number; body: any }> {
  const u = new URL(url + '/v1/data/app/allow');
  const body = JSON.stringify({ input: { user } });
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    if (!gapMs) return void req.end(body);
    req.write(body.slice(0, 5));
    req.flushHeaders();
    setTimeout(() => onHead?.(), 50);
    setTimeout(() => req.end(body.slice(5)), gapMs);
  });
}

const workerPids = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

describe.each([[[] as string[]], [['--workers', '2']]])('regolith run --server %j', (extra) => {
  it('exits 1 with OPA\'s one message when the port is taken', async () => {
    const busy = await takenPort();
    const addr = `127.0.0.1:${(busy.address() as net.AddressInfo).port}`;
    try {
      const r = await runToEnd(['--addr', addr, ...extra, join(dir, 'p.rego')]);
      expect(r.code).toBe(1);
      const message = `listen tcp ${addr}: bind: address already in use`;
      expect(r.stderr.split(message).length - 1, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/EADDRINUSE|at .*\.js:\d+/);
    } finally {
      busy.close();
    }
  }, 60_000);

  it('stops an idle server within a second of SIGTERM', async () => {
    const run = await startRun([...extra, join(dir, 'p.rego')]);
    if (extra.length) await waitFor('workers', () => workerPids(run.child.pid!).length === 2, 30_000);
    const t0 = Date.now();
    await run.kill('SIGTERM');
    const ms = Date.now() - t0;
    console.log(`idle stop ${JSON.stringify(extra)}: ${ms} ms`);
    expect(run.child.exitCode, run.output()).toBe(0);
    expect(ms).toBeLessThan(1000);
  }, 60_000);

  it('lets a request in flight finish and delivers the buffered decision logs on SIGTERM', async () => {
    const run = await startRun(['-c', join(dir, 'config.json'), ...extra, join(dir, 'p.rego')]);
    if (extra.length) await waitFor('workers', () => workerPids(run.child.pid!).length === 2, 30_000);
    const ids: string[] = [];
    for (const user of ['alice', 'bob', 'carol']) ids.push((await decide(run.url, user)).body.decision_id);
    let stopped: Promise<void> | undefined;
    // the request's head is in; its body comes 500 ms after SIGTERM
    const inFlight = await decide(run.url, 'alice', 700, () => (stopped = run.kill('SIGTERM')));
    await stopped;
    expect(inFlight).toMatchObject({ status: 200, body: { result: true } });
    ids.push(inFlight.body.decision_id);
    expect(run.child.exitCode).toBe(0);
    const logged = collector.events.map((e) => e.decision_id);
    for (const id of ids) expect(logged).toContain(id);
  }, 60_000);

  it('exits at the end of --shutdown-grace-period when the collector never answers the last upload', async () => {
    // before: the upload held the exit until the service's 10 s header timeout
    const silent = await httpServer(() => new Promise(() => {}));
    try {
      const cfg = join(dir, 'silent-collector.json');
      writeFileSync(cfg, JSON.stringify({ services: { collector: { url: silent.url } }, decision_logs: { service: 'collector', reporting: { min_delay_seconds: 60, max_delay_seconds: 60 } } }));
      const run = await startRun(['-c', cfg, '--shutdown-grace-period', '1', ...extra, join(dir, 'p.rego')]);
      if (extra.length) await waitFor('workers', () => workerPids(run.child.pid!).length === 2, 30_000);
      expect((await decide(run.url, 'alice')).status).toBe(200);
      const t0 = Date.now();
      await run.kill('SIGTERM');
      const ms = Date.now() - t0;
      console.log(`stop with a silent collector ${JSON.stringify(extra)}: ${ms} ms`);
      expect(run.child.exitCode, run.output()).toBe(0);
      expect(silent.requests.map((r) => r.url)).toContain('/logs');
      expect(run.output()).toMatch(/"plugin":"decision_logs".*Plugin did not stop within the shutdown grace period/);
      // the grace period once for the requests in flight (none here) and once for the plugins
      expect(ms).toBeLessThan(5000);
    } finally {
      await silent.close();
    }
  }, 60_000);

  it('keeps serving for --shutdown-wait-period before shutting down', async () => {
    const run = await startRun(['--shutdown-wait-period', '1', ...extra, join(dir, 'p.rego')]);
    if (extra.length) await waitFor('workers', () => workerPids(run.child.pid!).length === 2, 30_000);
    const t0 = Date.now();
    const stopped = run.kill('SIGTERM');
    // asked as soon as the wait has begun: a fixed 400 ms could end past the 1 s on a loaded machine
    await waitFor('the wait period to begin', () => run.output().includes('Waiting 1s before initiating shutdown...'), 10_000);
    expect((await decide(run.url, 'alice')).status).toBe(200);
    await stopped;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(run.output()).toContain('Waiting 1s before initiating shutdown...');
  }, 60_000);
});

describe('regolith run --server --workers 1', () => {
  it('stops restarting a worker that keeps dying and exits 1', async () => {
    // a fixed port: a replacement worker listening on port 0 would get a port of its own
    const run = await startRun(['--workers', '1', join(dir, 'p.rego')], { addr: `127.0.0.1:${await freePort()}` });
    const killed = new Set<number>();
    // kill every worker as soon as it appears, until the primary gives up
    const exited = new Promise<void>((r) => run.child.once('exit', () => r()));
    let done = false;
    void exited.then(() => (done = true));
    while (!done) {
      for (const pid of workerPids(run.child.pid!)) {
        if (killed.has(pid)) continue;
        // only a worker that serves counts as restarted (one that dies before serving is a start failure)
        await waitFor('the worker serves', async () => (await decide(run.url, 'alice').catch(() => ({ status: 0 }))).status === 200 || done, 20_000).catch((e: Error) => {
          throw new Error(`${e.message} (${killed.size} killed):\n${run.output()}`);
        });
        killed.add(pid);
        process.kill(pid, 'SIGKILL');
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(run.child.exitCode, run.output()).toBe(1);
    expect(killed.size).toBe(6);
    expect(run.output()).toMatch(/worker processes exited 6 times within 60s \(the last with SIGKILL\); not restarting them again/);
  }, 120_000);
});
