// `npm run bench:http -- --workers 1,2`: the decision server as users run it
// (`regolith run --server --workers N`, the built binary; and without --workers, one
// process), all running at once and loaded in interleaved rounds (lib/rounds.ts) by wrk
// and by autocannon at max rate: req/s, the server's CPU time per request — primary and
// workers together, from /proc — so that coordination on the decision path shows as CPU,
// and the load generator's own CPU per request (what it takes from the server's cores).
// Targets (issue 30): 2 workers >= 1.6x the req/s of 1, CPU per request within 10% of 1.
// BENCH_BASELINE_BIN=<another tree's dist/cli/main.js> runs that build's servers beside.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { rbacScenario } from './scenarios/rbac.js';
import { fail, policyText } from './lib/regolith.js';
import { machine } from './lib/stats.js';
import { interleaved, paired, summarize, summaryTable } from './lib/rounds.js';

const ROOT = resolve(import.meta.dirname, '..');
/** The built CLI; BENCH_BIN names another (a snapshot built elsewhere, not the shared dist/). */
const BIN = process.env['BENCH_BIN'] ?? join(ROOT, 'dist/cli/main.js');
const TICK_US = 1_000_000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/** User and system CPU (µs) of a process and its children. */
function treeCpu(pid: number): { user: number; system: number } {
  let pids = [pid];
  try {
    pids = pids.concat(execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number));
  } catch {
    /* no children */
  }
  let user = 0;
  let system = 0;
  for (const p of pids) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      user += Number(f[11]); // utime
      system += Number(f[12]); // stime
    } catch {
      /* exited */
    }
  }
  return { user: user * TICK_US, system: system * TICK_US };
}

async function call(url: string, method: string, body: string): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, { method, body, headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/** One `regolith run --server` (its binary, N workers), started, loaded with the RBAC policy and data, decisions checked. */
interface Running {
  name: string;
  url: string;
  child: ChildProcess;
}

async function start(bin: string, name: string, n: number): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // 0: no --workers, the plain single process (the baseline the workers are compared with)
  const workers = n > 0 ? ['--workers', String(n)] : [];
  const child: ChildProcess = spawn(process.execPath, [bin, 'run', '--server', '--addr', `127.0.0.1:${port}`, ...workers, '--log-level', 'error'], { stdio: 'ignore' });
  const r: Running = { name, url, child };
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${url}/health`).then((r) => r.status, () => 0)) === 200) break;
      if (i > 200 || child.exitCode !== null) fail(`${name} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const s = rbacScenario();
    const path = `/v1/data/${s.packagePath}/allow`;
    if ((await call(`${url}/v1/policies/rbac`, 'PUT', policyText(s.policy))).status !== 200) fail('PUT policy failed');
    if ((await call(`${url}/v1/data`, 'PUT', JSON.stringify(s.data))).status !== 204) fail('PUT data failed');
    const hand = s.handWritten(s.data, {});
    for (const c of s.cases) {
      const r = await call(url + path, 'POST', `{"input":${c.json}}`);
      if ((r.json as { result?: unknown }).result !== hand(c.json)) fail(`decision differs (${name}): ${c.json}`);
    }
  } catch (e) {
    await stop(r);
    throw e;
  }
  return r;
}

async function stop(r: Running): Promise<void> {
  r.child.kill('SIGTERM');
  await new Promise((done) => (r.child.exitCode !== null ? done(undefined) : r.child.once('exit', done)));
}

const label = (n: number) => (n === 0 ? 'one process' : `${n} worker${n > 1 ? 's' : ''}`);

/**
 * Every N (and, with BENCH_BASELINE_BIN=<another tree's dist/cli/main.js>, the same N from
 * that build) running at once, loaded in interleaved rounds by wrk and by autocannon.
 */
export async function workersBench(counts: number[], seconds: number): Promise<void> {
  if (!existsSync(BIN)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const baseline = process.env['BENCH_BASELINE_BIN'];
  // 1 worker first: the ratios are of it
  const ns = [...new Set([1, ...counts.filter((n) => n !== 1)])];
  console.log(`workers: regolith run --server --workers N (${ns.map(label).join(', ')}), wrk (1 thread) and autocannon, 10 connections, ${rounds} interleaved rounds of ${seconds} s (${machine()}, ${availableParallelism()} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})\n`);
  const servers: Running[] = [];
  try {
    for (const n of ns) servers.push(await start(BIN, label(n), n));
    if (baseline) for (const n of ns) servers.push(await start(baseline, `${label(n)} (baseline)`, n));
    const s = rbacScenario();
    const path = `/v1/data/${s.packagePath}/allow`;
    const requests = s.cases.map((c) => ({ path, body: `{"input":${c.json}}` }));
    const res = await interleaved(
      servers.map((x) => ({ name: x.name, url: x.url, cpu: () => Promise.resolve(treeCpu(x.child.pid!)) })),
      requests,
      {
        generators: ['wrk', 'autocannon'],
        rounds,
        seconds,
        connections: 10,
        onRun: (gen, c, f, round) => console.log(`  round ${round + 1} ${gen} ${c.name}: ${Math.round(f.rps)} req/s, ${Math.round(f.serverCpu)} µs server CPU/req, ${f.clientPerReq.toFixed(1)} µs ${gen} CPU/req, load ${f.load.toFixed(1)}`),
      },
    );
    const sum = summarize(res);
    console.log('\n' + summaryTable(sum, '1 worker'));
    console.log('\ncores busy (server + load generator CPU per second): ' + sum.map((x) => `${x.gen} ${x.name} ${(((x.serverCpu + x.clientPerReq) * x.rps) / 1e6).toFixed(2)}`).join('; '));
    for (const gen of ['wrk', 'autocannon'] as const) {
      for (const suffix of baseline ? ['', ' (baseline)'] : ['']) {
        const two = `${label(2)}${suffix}`;
        if (!res.get(gen)!.has(two)) continue;
        const single = res.get(gen)!.has(`${label(0)}${suffix}`) ? paired(res, gen, `${label(1)}${suffix}`, `${label(0)}${suffix}`) : undefined;
        const p = paired(res, gen, two, `${label(1)}${suffix}`);
        const vsSingle = single ? `; 1 worker / one process ${single.rps.toFixed(2)}x req/s, ${single.cpu.toFixed(2)}x CPU` : '';
        console.log(`${gen}${suffix}: 2 workers / 1 worker ${p.rps.toFixed(2)}x req/s (target >= 1.6: ${p.rps >= 1.6 ? 'met' : 'MISSED'}), ${p.cpu.toFixed(2)}x CPU per request (target within 10%: ${Math.abs(p.cpu - 1) <= 0.1 ? 'met' : 'MISSED'})${vsSingle}`);
      }
    }
    console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  } finally {
    for (const x of servers) await stop(x);
  }
}
