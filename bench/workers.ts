// `npm run bench:http -- --workers 1,2`: the decision server as users run it
// (`regolith run --server --workers N`, the built binary; and without --workers, one
// process, as the baseline), for each N: req/s at max rate
// with autocannon beside it, and the server's CPU time per request — primary and workers
// together, from /proc — so that coordination on the decision path would show as CPU.
// Targets (issue 17): 2 workers > 1.3x the req/s of 1, CPU per request within 10% of 1.

import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { rbacScenario } from './scenarios/rbac.js';
import { fail, policyText } from './lib/regolith.js';
import { machine, table } from './lib/stats.js';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'dist/cli/main.js');
const TICK_US = 1_000_000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/** User + system CPU (µs) of a process and its children. */
function treeCpu(pid: number): number {
  let pids = [pid];
  try {
    pids = pids.concat(execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number));
  } catch {
    /* no children */
  }
  let ticks = 0;
  for (const p of pids) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime
    } catch {
      /* exited */
    }
  }
  return ticks * TICK_US;
}

async function call(url: string, method: string, body: string): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, { method, body, headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

interface Row {
  workers: number;
  rps: number;
  cpu: number;
  /** The load generator's own CPU per request (this process): what is left for the server. */
  client: number;
  p99: number;
}

async function one(n: number, seconds: number): Promise<Row> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // 0: no --workers, the plain single process (the baseline the workers are compared with)
  const workers = n > 0 ? ['--workers', String(n)] : [];
  const child: ChildProcess = spawn(process.execPath, [BIN, 'run', '--server', '--addr', `127.0.0.1:${port}`, ...workers, '--log-level', 'error'], { stdio: 'ignore' });
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${url}/health`).then((r) => r.status, () => 0)) === 200) break;
      if (i > 200 || child.exitCode !== null) fail(`regolith run --workers ${n} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const s = rbacScenario();
    const path = `/v1/data/${s.packagePath}/allow`;
    if ((await call(`${url}/v1/policies/rbac`, 'PUT', policyText(s.policy))).status !== 200) fail('PUT policy failed');
    if ((await call(`${url}/v1/data`, 'PUT', JSON.stringify(s.data))).status !== 204) fail('PUT data failed');
    const hand = s.handWritten(s.data, {});
    for (const c of s.cases) {
      const r = await call(url + path, 'POST', `{"input":${c.json}}`);
      if ((r.json as { result?: unknown }).result !== hand(c.json)) fail(`decision differs with ${n} workers: ${c.json}`);
    }
    const requests = s.cases.map((c) => ({ method: 'POST' as const, path, body: `{"input":${c.json}}` }));
    const run = (duration: number) => autocannon({ url, connections: 10, duration, method: 'POST', headers: { 'content-type': 'application/json' }, requests });
    await run(2); // warm-up
    const c0 = treeCpu(child.pid!);
    const u0 = process.cpuUsage();
    const r = await run(seconds);
    const u1 = process.cpuUsage(u0);
    const c1 = treeCpu(child.pid!);
    if (r.errors || r.non2xx || r.timeouts) fail(`${n} workers: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
    console.log(`${n ? `${n} worker(s)` : 'single process'}: ${Math.round(r.requests.average)} req/s, ${Math.round((c1 - c0) / r.requests.total)} µs server CPU per request`);
    return { workers: n, rps: r.requests.average, cpu: (c1 - c0) / r.requests.total, client: (u1.user + u1.system) / r.requests.total, p99: r.latency.p99 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  }
}

export async function workersBench(counts: number[], seconds: number): Promise<void> {
  if (!existsSync(BIN)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  console.log(`workers: regolith run --server --workers N, autocannon (10 connections, ${seconds} s) in this process (${machine()})\n`);
  const rows: Row[] = [];
  for (const n of counts.includes(0) ? counts : [0, ...counts]) rows.push(await one(n, seconds));
  const single = rows.find((r) => r.workers === 0)!;
  const base = rows.find((r) => r.workers === 1) ?? single;
  console.log(
    '\n' +
      table([
        ['workers', 'req/s', 'x of 1 worker', 'p99', 'server CPU/req', 'x of 1 worker', 'autocannon CPU/req', 'cores busy'],
        ...rows.map((r) => [
          r.workers === 0 ? 'none (one process)' : String(r.workers),
          Math.round(r.rps).toLocaleString('en-US'),
          (r.rps / base.rps).toFixed(2),
          `${r.p99} ms`,
          `${Math.round(r.cpu)} µs`,
          (r.cpu / base.cpu).toFixed(2),
          `${Math.round(r.client)} µs`,
          (((r.cpu + r.client) * r.rps) / 1e6).toFixed(2),
        ]),
      ]),
  );
  const two = rows.find((r) => r.workers === 2);
  console.log(`1 worker / single process: ${(base.rps / single.rps).toFixed(2)}x req/s, ${(base.cpu / single.cpu).toFixed(2)}x CPU per request (what the primary and the hold cost)`);
  if (base.workers === 1 && two) {
    const speed = two.rps / base.rps;
    const cpu = two.cpu / base.cpu;
    console.log(`\n2 workers / 1 worker: ${speed.toFixed(2)}x req/s (target > 1.3: ${speed > 1.3 ? 'met' : 'MISSED'}), ${cpu.toFixed(2)}x CPU per request (target within 10%: ${Math.abs(cpu - 1) <= 0.1 ? 'met' : 'MISSED'})`);
    console.log(`cores: ${availableParallelism()}; "cores busy" is server + load generator CPU per second: when it is at the core count, a second worker only takes CPU from autocannon`);
  }
}
