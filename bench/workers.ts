// `npm run bench:http -- --workers 0,1,2`: the decision server as users run it
// (`regolith run --server --workers N`, the built binary; 0: without --workers, one
// process), all running at once and loaded in interleaved rounds (lib/rounds.ts) by wrk
// and by autocannon at max rate: req/s, the server's CPU time per request — primary and
// workers together, from /proc — so that coordination on the decision path shows as CPU,
// and the load generator's own CPU per request (what it takes from the server's cores).
// Targets (issue 30): 2 workers >= 1.6x the req/s of one process, CPU per request within
// 10% of it.
// The load generator shares the machine's cores with the server, so three ways to see
// past it: wrk pipelining (`wrk:p16`: 16 requests per write, which cuts wrk's CPU per
// request; every answer of the warm-up is checked, in order), pinning (BENCH_PIN=0/1:
// the servers on CPU 0, wrk and this process on CPU 1: each configuration gets the same
// one core, the generator none of it), and capacity: decisions per second of server CPU,
// and the rate each configuration's CPU per decision allows on this machine's cores if
// the server had them to itself (a projection, printed as such).
//   BENCH_GENERATORS=wrk,wrk:p16,autocannon (default; `wrk:pN:check` checks every answer
//     of the timed runs too, with one wrk thread per connection)
//   BENCH_ROUNDS=3, BENCH_BIN=<another build's dist/cli/main.js>,
//   BENCH_BASELINE_BIN=<another tree's dist/cli/main.js> runs that build's servers beside.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { rbacScenario } from './scenarios/rbac.js';
import { fail, policyText } from './lib/regolith.js';
import { machine } from './lib/stats.js';
import { pin, treeCpu } from './lib/proc.js';
import { interleaved, paired, summarize, summaryTable, type GeneratorSpec, type RoundResults, type Summary } from './lib/rounds.js';
import type { LoadRequest } from './lib/wrk.js';

const ROOT = resolve(import.meta.dirname, '..');
/** The built CLI; BENCH_BIN names another (a snapshot built elsewhere, not the shared dist/). */
const BIN = process.env['BENCH_BIN'] ?? join(ROOT, 'dist/cli/main.js');

/** BENCH_PIN=<server cpus>/<generator cpus> (taskset lists), e.g. 0/1. */
function pinning(): { server: string; generator: string } | undefined {
  const v = process.env['BENCH_PIN'];
  if (!v) return undefined;
  const m = /^([\d,-]+)\/([\d,-]+)$/.exec(v);
  if (!m) fail(`BENCH_PIN=${v}: expected <server cpus>/<generator cpus>, e.g. 0/1`);
  return { server: m[1]!, generator: m[2]! };
}

/** BENCH_GENERATORS: wrk, autocannon, wrk:p<N> (pipelined), wrk:p<N>:check. */
function generators(cpus: string | undefined): GeneratorSpec[] {
  return (process.env['BENCH_GENERATORS'] ?? 'wrk,wrk:p16,autocannon').split(',').map((g): GeneratorSpec => {
    if (g === 'autocannon') return g;
    const m = /^wrk(?::p(\d+))?(:check)?$/.exec(g);
    if (!m) fail(`BENCH_GENERATORS: unknown generator ${g} (wrk, wrk:p16, wrk:p16:check, autocannon)`);
    const pipeline = Number(m[1] ?? 1);
    return { name: g, pipeline, check: !!m[2], cpus };
  });
}

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

async function call(url: string, method: string, body: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url, { method, body, headers: { 'content-type': 'application/json' } });
  return { status: r.status, text: await r.text() };
}

/** One `regolith run --server` (its binary, N workers), started, loaded with the RBAC policy and data, decisions checked. */
interface Running {
  name: string;
  url: string;
  child: ChildProcess;
  /** Each case's answer, exactly as this server wrote it, once checked against the hand-written decision. */
  answers: string[];
}

async function start(bin: string, name: string, n: number, cpus: string | undefined): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // 0: no --workers, the plain single process (the baseline the workers are compared with)
  const workers = n > 0 ? ['--workers', String(n)] : [];
  const argv = [process.execPath, bin, 'run', '--server', '--addr', `127.0.0.1:${port}`, ...workers, '--log-level', 'error'];
  // taskset execs node: the pid is the server's, and its workers inherit the CPUs
  const [cmd, ...args] = cpus === undefined ? argv : ['taskset', '-c', cpus, ...argv];
  const child: ChildProcess = spawn(cmd!, args, { stdio: 'ignore' });
  const r: Running = { name, url, child, answers: [] };
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
      const a = await call(url + path, 'POST', `{"input":${c.json}}`);
      if (a.status !== 200 || (JSON.parse(a.text) as { result?: unknown }).result !== hand(c.json)) fail(`decision differs (${name}): ${c.json}`);
      r.answers.push(a.text);
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
const fmtLoad = () => loadavg().map((x) => x.toFixed(1)).join(' ');

/**
 * The rate a configuration's CPU per decision allows if the server had the machine's
 * `cores` to itself: no more than its cores' worth of CPU per second, and no event loop
 * busier than one core (a process cannot serve faster than its main thread allows).
 */
export function projectedRate(s: Pick<Summary, 'serverCpu' | 'serverMain'>, processes: number, cores: number): number {
  return Math.min((Math.min(processes, cores) * 1e6) / s.serverMain, (cores * 1e6) / s.serverCpu);
}

/** 2 workers against one process (the goal) and against 1 worker, per generator, paired per round. */
function verdicts(res: RoundResults, sum: Summary[], suffix: string, cores: number): void {
  for (const gen of res.keys()) {
    const has = (n: number) => res.get(gen)!.has(`${label(n)}${suffix}`);
    if (!has(2)) continue;
    const lines: string[] = [];
    for (const base of [0, 1].filter(has)) {
      const p = paired(res, gen, `${label(2)}${suffix}`, `${label(base)}${suffix}`);
      const goal = base === 0 ? ` (target >= 1.6: ${p.rps >= 1.6 ? 'met' : 'MISSED'}; CPU within 10%: ${Math.abs(p.cpu - 1) <= 0.1 ? 'met' : 'MISSED'})` : '';
      lines.push(`2 workers / ${label(base)} ${p.rps.toFixed(2)}x req/s, ${p.cpu.toFixed(2)}x CPU per request${goal}`);
    }
    const row = (n: number) => sum.find((x) => x.gen === gen && x.name === `${label(n)}${suffix}`);
    const one = row(0);
    const two = row(2)!;
    if (one) {
      // decisions per second of server CPU, and the rates the CPU figures allow on `cores`
      const cap = (x: Summary) => `${Math.round(1e6 / x.serverCpu).toLocaleString('en-US')}`;
      const r0 = projectedRate(one, 1, cores);
      const r2 = projectedRate(two, 2, cores);
      lines.push(`decisions per CPU-second: one process ${cap(one)}, 2 workers ${cap(two)}; projected on ${cores} cores with no load generator on them: one process ${Math.round(r0).toLocaleString('en-US')}/s (main thread ${one.serverMain.toFixed(1)} µs of ${one.serverCpu.toFixed(1)} µs), 2 workers ${Math.round(r2).toLocaleString('en-US')}/s = ${(r2 / r0).toFixed(2)}x (a projection from CPU, not a measured rate)`);
    }
    console.log(`${gen}${suffix}:\n  ` + lines.join('\n  '));
  }
}

/**
 * Every N (and, with BENCH_BASELINE_BIN=<another tree's dist/cli/main.js>, the same N from
 * that build) running at once, loaded in interleaved rounds by each generator.
 */
export async function workersBench(counts: number[], seconds: number): Promise<void> {
  if (!existsSync(BIN)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const baseline = process.env['BENCH_BASELINE_BIN'];
  const pins = pinning();
  const gens = generators(pins?.generator);
  const cores = availableParallelism();
  // the first is what the ratios of the table are of: one process when asked for (the goal), else 1 worker
  const ns = [...new Set(counts.includes(0) ? [0, ...counts] : [1, ...counts])];
  // autocannon runs in this process: pinned with the generators
  if (pins) pin(process.pid, pins.generator);
  const where = pins ? `; servers pinned to CPU ${pins.server}, load generators (and this process) to CPU ${pins.generator}` : '';
  console.log(`workers: regolith run --server --workers N (${ns.map(label).join(', ')}), ${gens.map((g) => (typeof g === 'string' ? g : g.name)).join(', ')}; 10 connections, ${rounds} interleaved rounds of ${seconds} s (${machine()}, ${cores} cores, load average ${fmtLoad()})${where}\n`);
  const servers: Running[] = [];
  try {
    for (const n of ns) servers.push(await start(BIN, label(n), n, pins?.server));
    if (baseline) for (const n of ns) servers.push(await start(baseline, `${label(n)} (baseline)`, n, pins?.server));
    // one script for all of them: their answers must be the same text
    for (const x of servers) if (x.answers.join('') !== servers[0]!.answers.join('')) fail(`${x.name} answers differently from ${servers[0]!.name}`);
    const s = rbacScenario();
    const path = `/v1/data/${s.packagePath}/allow`;
    const requests: LoadRequest[] = s.cases.map((c, i) => ({ path, body: `{"input":${c.json}}`, expect: servers[0]!.answers[i]! }));
    const res = await interleaved(
      servers.map((x) => ({ name: x.name, url: x.url, cpu: () => Promise.resolve(treeCpu(x.child.pid!)) })),
      requests,
      {
        generators: gens,
        rounds,
        seconds,
        connections: 10,
        onRun: (gen, c, f, round) =>
          console.log(`  round ${round + 1} ${gen} ${c.name}: ${Math.round(f.rps)} req/s, ${f.serverCpu.toFixed(1)} µs server CPU/req (main threads ${f.serverMain.toFixed(1)}), ${f.clientPerReq.toFixed(1)} µs ${gen} CPU/req, load ${f.load.toFixed(1)}`),
      },
    );
    const sum = summarize(res);
    console.log('\n' + summaryTable(sum, label(ns[0]!)));
    console.log('\ncores busy (server + load generator CPU per second): ' + sum.map((x) => `${x.gen} ${x.name} ${(((x.serverCpu + x.clientPerReq) * x.rps) / 1e6).toFixed(2)}`).join('; ') + '\n');
    for (const suffix of baseline ? ['', ' (baseline)'] : ['']) verdicts(res, sum, suffix, cores);
    console.log(`load average at the end: ${fmtLoad()}`);
  } finally {
    for (const x of servers) await stop(x);
  }
}
