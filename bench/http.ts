// HTTP decision throughput and latency (issue #5). The real server runs in a child
// process (bench/http-server.ts); autocannon runs here. Loopback only.
//   0. (issue 30) Regolith against the ceiling of any Node server — a bare node:http server
//      that reads and JSON.parses the same body and answers a constant — with wrk (C, leaves
//      the server its core) and autocannon (what users run) as load generators, interleaved
//      rounds (BENCH_ROUNDS, default 3), medians, server CPU per request, the load average.
//      BENCH_BASELINE=<bundle of http-server.ts built from another tree> adds that build's
//      server to the rounds (before/after in one run). BENCH_ONLY=ceiling runs only this part.
//      BENCH_EQUAL_RATE_MS=<ms> adds a third generator, wrk waiting that long before each
//      request on each connection: every server then gets about the same rate, and its CPU
//      per request no longer includes how much a faster server saves by batching.
//   1. ceiling: a bare Hono route returning a constant JSON body, max rate;
//   2. Regolith: POST /v1/data/rbac/allow with the RBAC policy and data of
//      bench/policies/rbac.rego (100 roles, 1,000 users), realistic inputs, max rate;
//      target >= 0.85 of the ceiling's req/s;
//   3. Regolith again at half its max rate (autocannon overallRate); target p99 < 5 ms.
//      The bare route also runs at a fixed rate (BENCH_FLOOR_RATE, default 2000/s) to show
//      the latency this machine adds by itself (scheduling, other jobs).
//   A second ceiling (hono-body) reads and JSON.parses the request body, as any real handler
//   must; the bare route never reads it. Every run also reports the server's own CPU time
//   per request (process.cpuUsage in the child), which the other jobs on a shared machine
//   disturb much less than req/s. BENCH_ONLY=regolith skips the ceilings (quick iterations).
//   5. Decision logging (issue #28): the same decisions against a server that uploads every
//      decision to a collector here (gzipped chunks, every 1-2 s; the collector only counts
//      bytes and events), next to the same server without decision_logs in its configuration,
//      at 200/s, 600/s (BENCH_LOG_RATES) and max rate: server CPU per decision with and without
//      logging, the uploads included. BENCH_ONLY=logs runs only this part; BENCH_LOG_BASELINE=
//      <bundle of http-server.ts from another tree> adds that build's logging server, interleaved.
//
//   npm run bench:http        or        npx tsx bench/http.ts [seconds per run, default 10]
//   npm run bench:http -- --workers 1,2 [seconds]   regolith run --workers N side by side (bench/workers.ts)

import autocannon, { type Result } from 'autocannon';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from './lib/bundle.js';
import { countingCollector, type CountingCollector } from './lib/collector.js';
import { rbacScenario } from './scenarios/rbac.js';
import { fail, policyText } from './lib/regolith.js';
import { machine, table } from './lib/stats.js';
import { interleaved, summarize, summaryTable, type GeneratorSpec } from './lib/rounds.js';
import type { LoadRequest } from './lib/wrk.js';
import { loadavg } from 'node:os';

// `-- --workers 1,2` runs bench/workers.ts instead: `regolith run --workers N` side by side
const WORKERS = process.argv.indexOf('--workers');
const DURATION = Number(process.argv.filter((a, i) => !a.startsWith('--') && i > 1 && i !== WORKERS + 1)[0] ?? 10);
const CONNECTIONS = 10;
const RATIO_TARGET = 0.85;
const P99_TARGET_MS = 5;
/** Rate of the ceiling's fixed-rate run (about half of what the decision server sustains here). */
const FLOOR_RATE = Number(process.env['BENCH_FLOOR_RATE'] ?? 2000);

interface Server {
  url: string;
  child: ChildProcess;
}

type Mode = 'regolith' | 'regolith-logs' | 'regolith-nologs' | 'regolith-secure' | 'hono' | 'hono-body' | 'node-body';

/**
 * The server side, compiled as the product is (bench/lib/bundle.ts): run through tsx, every
 * closure the server and evaluator create would pay for esbuild's keepNames wrapper, ~10 µs
 * of CPU per request that `regolith run` (built by tsup) never pays. Every mode, the
 * ceilings included, runs from the same bundle. bench/profile.ts passes its own bundle
 * (BENCH_SERVER_BUNDLE) and BENCH_CPU_PROF (a directory for a V8 CPU profile of the server).
 */
let serverBundle: string | undefined;

function startChild(mode: Mode, from?: string): Promise<Server> {
  serverBundle ??= process.env['BENCH_SERVER_BUNDLE'] ?? bundle('http-server.ts');
  const prof = process.env['BENCH_CPU_PROF'];
  const child = fork(from ?? serverBundle, [mode], {
    execArgv: prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ url: (m as { url: string }).url, child }));
    child.once('exit', (code) => reject(new Error(`${mode} server exited (${code}) before listening`)));
  });
}

function stop(s: Server): Promise<void> {
  return new Promise((resolve) => {
    if (s.child.exitCode !== null) return resolve();
    s.child.once('exit', () => resolve());
    s.child.disconnect();
    setTimeout(() => s.child.kill('SIGKILL'), 5000).unref();
  });
}

/** The child's user+system CPU time (µs). */
async function cpuOf(s: Server): Promise<number> {
  return (await childState(s)).cpu;
}

/** The child's CPU time (µs) in user space and in the kernel. */
function cpuParts(s: Server): Promise<NodeJS.CpuUsage> {
  return new Promise((resolve) => {
    const on = (m: unknown): void => {
      const { cpu } = m as { cpu?: NodeJS.CpuUsage };
      if (!cpu) return;
      s.child.off('message', on);
      resolve(cpu);
    };
    s.child.on('message', on);
    s.child.send({ cpu: true });
  });
}

/** The child's user+system CPU time (µs) and the decisions its decision log plugin logged. */
function childState(s: Server): Promise<{ cpu: number; logged: number }> {
  return new Promise((resolve) => {
    const on = (m: unknown): void => {
      const { cpu, logged } = m as { cpu?: NodeJS.CpuUsage; logged?: number };
      if (!cpu) return;
      s.child.off('message', on);
      resolve({ cpu: cpu.user + cpu.system, logged: logged ?? 0 });
    };
    s.child.on('message', on);
    s.child.send({ cpu: true });
  });
}

interface Run {
  r: Result;
  /** Server CPU time per request (µs). */
  cpu: number;
}

/** Headers every request carries (the bearer token for the secure server). */
let extraHeaders: Record<string, string> = {};

async function call(url: string, method: string, body: string): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, { method, body, headers: { 'content-type': 'application/json', ...extraHeaders } });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

async function load(url: string, requests: { path: string; body: string }[], overallRate?: number, seconds = DURATION): Promise<Result> {
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...extraHeaders },
    requests: requests.map((q) => ({ method: 'POST', path: q.path, body: q.body })),
    ...(overallRate ? { overallRate } : {}),
  });
  if (r.errors || r.non2xx || r.timeouts) fail(`load run had ${r.errors} errors, ${r.non2xx} non-2xx responses, ${r.timeouts} timeouts`);
  return r;
}

/** A load run with the server's CPU time per request around it. */
async function measured(s: Server, requests: { path: string; body: string }[], overallRate?: number): Promise<Run> {
  const c0 = await cpuOf(s);
  const r = await load(s.url, requests, overallRate);
  const c1 = await cpuOf(s);
  return { r, cpu: (c1 - c0) / Math.max(1, r.requests.total) };
}

const fmt = ({ r, cpu }: Run) => [
  Math.round(r.requests.average).toLocaleString('en-US'),
  `${r.latency.p50} ms`,
  `${r.latency.p99} ms`,
  `${r.latency.max} ms`,
  `${Math.round(cpu)} µs`,
];

/** Max rate, then (optionally) a fixed rate, against one server mode. */
async function ceilingRuns(mode: Mode, requests: { path: string; body: string }[], fixedRate?: number): Promise<Run[]> {
  const srv = await startChild(mode);
  try {
    await load(srv.url, requests, undefined, 2); // warm-up
    const out = [await measured(srv, requests)];
    console.log(`${mode}: ${Math.round(out[0]!.r.requests.average)} req/s`);
    if (fixedRate) {
      out.push(await measured(srv, requests, fixedRate));
      console.log(`${mode} at ${fixedRate} req/s: p99 ${out[1]!.r.latency.p99} ms`);
    }
    return out;
  } finally {
    await stop(srv);
  }
}

async function main(): Promise<void> {
  console.log(`http: ${CONNECTIONS} connections, ${DURATION} s per run, autocannon in this process, server in a child (${machine()})\n`);
  const s = rbacScenario();
  const path = `/v1/data/${s.packagePath}/allow`;
  const hand = s.handWritten(s.data, {});
  const requests = s.cases.map((c) => ({ path, body: `{"input":${c.json}}` }));

  // 1. The ceilings (skipped with BENCH_ONLY=regolith).
  const only = process.env['BENCH_ONLY'];
  if (only === 'logs') return void console.log(logTable(await loggingRuns(requests, s, path, hand)));
  if (!only || only === 'ceiling') await nodeCeilingRounds(requests, s, path, hand);
  if (only === 'ceiling') return;
  // The same bare route at a fixed rate gives the latency floor of this machine at that load.
  const [ceiling, floor] = only ? [] : await ceilingRuns('hono', requests, FLOOR_RATE);
  const [bodyCeiling] = only ? [] : await ceilingRuns('hono-body', requests);

  // 2. and 3. The decision server; 4. the same over TLS with token authentication and the
  // authorization policy deciding every request.
  const { max, half } = await decisionRuns('regolith', requests, s, path, hand);
  const secure = process.env['BENCH_ONLY'] === 'regolith' ? undefined : await secureRuns(requests, s, path, hand);

  const rows: string[][] = [['run', 'req/s', 'p50', 'p99', 'max', 'server CPU/req']];
  if (ceiling && floor && bodyCeiling) {
    rows.push(['bare Hono route (ceiling)', ...fmt(ceiling)]);
    rows.push([`bare Hono route at ${FLOOR_RATE}/s (latency floor)`, ...fmt(floor)]);
    rows.push(['Hono route reading + parsing the body', ...fmt(bodyCeiling)]);
  }
  rows.push([`Regolith ${path}`, ...fmt(max)]);
  rows.push([`Regolith at half rate (${Math.round(max.r.requests.average / 2)}/s)`, ...fmt(half)]);
  if (secure) rows.push(['Regolith, TLS + token + authorization policy', ...fmt(secure.max)]);
  console.log(table(rows));
  if (secure) console.log(`\nTLS + authorization: ${Math.round(secure.max.cpu - max.cpu)} µs more server CPU per decision (${(secure.max.r.requests.average / max.r.requests.average).toFixed(2)} of the plain throughput)`);
  report(ceiling, bodyCeiling, max, half);
  if (!only) console.log('\n' + logTable(await loggingRuns(requests, s, path, hand)));
}

/**
 * Regolith against the bare node:http ceiling (and BENCH_BASELINE's server), with wrk and
 * autocannon, in interleaved rounds; prints medians and the ratio to the ceiling per generator.
 */
async function nodeCeilingRounds(requests: LoadRequest[], s: ReturnType<typeof rbacScenario>, path: string, hand: (json: string) => unknown): Promise<void> {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const baseline = process.env['BENCH_BASELINE'];
  const servers: { name: string; srv: Server }[] = [];
  try {
    servers.push({ name: 'node:http ceiling', srv: await startChild('node-body') });
    servers.push({ name: 'Regolith', srv: await startChild('regolith') });
    if (baseline) servers.push({ name: 'Regolith (baseline)', srv: await startChild('regolith', baseline) });
    for (const x of servers.slice(1)) await prepare(x.srv, s, path, hand);
    console.log(`ceiling rounds: ${rounds} rounds x ${DURATION} s, wrk (1 thread) and autocannon, ${CONNECTIONS} connections; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    const res = await interleaved(
      servers.map((x) => ({ name: x.name, url: x.srv.url, cpu: () => cpuParts(x.srv) })),
      requests,
      {
        generators: ['wrk', 'autocannon', ...equalRate()],
        rounds,
        seconds: DURATION,
        connections: CONNECTIONS,
        onRun: (gen, c, f, round) => console.log(`  round ${round + 1} ${gen} ${c.name}: ${Math.round(f.rps)} req/s, ${f.serverCpu.toFixed(1)} µs server CPU/req, load ${f.load.toFixed(1)}`),
      },
    );
    const sum = summarize(res);
    console.log('\n' + summaryTable(sum, 'ceiling'));
    for (const x of sum.filter((x) => x.name === 'Regolith')) {
      // at one rate for all (BENCH_EQUAL_RATE_MS) req/s say nothing: only CPU per request compares
      if (x.gen !== 'wrk' && x.gen !== 'autocannon') continue;
      console.log(`${x.gen}: Regolith / node:http ceiling ${x.ratio.toFixed(2)}  target >= ${RATIO_TARGET}: ${x.ratio >= RATIO_TARGET ? 'met' : 'MISSED'}`);
    }
    console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}\n`);
  } finally {
    for (const x of servers) await stop(x.srv);
  }
}

/** BENCH_EQUAL_RATE_MS: wrk at about one rate for every server (WrkMode.delayMs). */
function equalRate(): GeneratorSpec[] {
  const v = process.env['BENCH_EQUAL_RATE_MS'];
  if (v === undefined || v === '') return [];
  const delayMs = Number(v);
  if (!(delayMs > 0)) fail(`BENCH_EQUAL_RATE_MS must be a positive number of milliseconds, not ${v}`);
  return [{ name: `wrk, ${delayMs} ms before each request`, pipeline: 1, check: false, delayMs }];
}

/** Fixed rates of the decision-logging comparison (then max rate). */
const LOG_RATES = (process.env['BENCH_LOG_RATES'] ?? '200,600').split(',').filter(Boolean).map(Number);
/** Seconds each decision-log run waits after its load for the last upload (the plugin's max delay + margin). */
const LOG_SETTLE_S = 2.5;
/** Seconds a decision-log run waits at most for the collector to have every event. */
const LOG_WAIT_S = 60;
/**
 * Seconds of warm-up at max rate per server before the decision-log runs (BENCH_LOG_WARMUP_S).
 * With 2 s, the logging server's uploads had run once or twice: the compiler's work on them
 * (V8's helper threads) fell into the first measured rows, and counted as logging's cost.
 */
const LOG_WARMUP_S = Number(process.env['BENCH_LOG_WARMUP_S'] ?? 10);

/** A process's CPU time (µs, user + system) on its main thread and on all the others (libuv's pool, V8's helpers), from /proc. */
function threadCpu(pid: number): { main: number; other: number } {
  const out = { main: 0, other: 0 };
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    let st: string;
    try {
      st = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended
    }
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    const us = (Number(f[11]) + Number(f[12])) * 10000;
    if (t === String(pid)) out.main += us;
    else out.other += us;
  }
  return out;
}

interface LogRun extends Run {
  /** Server CPU per decision on its main thread (the event loop) and on its other threads. */
  main: number;
  other: number;
  /** Decisions the server logged in the run, and the compressed bytes and events its collector received. */
  logged: number;
  bytes: number;
  events: number;
}

interface LogRow {
  rate: string;
  /** The machine's load average (1 minute) once the row's runs are over: CPU time inflates with it. */
  load: number;
  plain: Run;
  /** The logging server, then (BENCH_LOG_BASELINE) the baseline's. */
  logs: LogRun[];
}

/**
 * The plain server and the logging server side by side (both loaded and verified), one run
 * each per rate, alternating; each run's CPU includes a settle time after the load, in which
 * the logging server uploads the rest of what it buffered (the plain one idles as long), and
 * a logging run lasts until its collector has every event of it. BENCH_LOG_BASELINE names
 * another build of http-server.ts (say from an older tree, bundled as bench/lib/bundle.ts
 * does): its logging server runs too, interleaved, with a collector of its own.
 */
async function loggingRuns(requests: { path: string; body: string }[], s: ReturnType<typeof rbacScenario>, path: string, hand: (json: string) => unknown): Promise<LogRow[]> {
  const baseline = process.env['BENCH_LOG_BASELINE'];
  const loggers: { srv: Server; col: CountingCollector }[] = [];
  const plain = await startChild('regolith-nologs');
  const rows: LogRow[] = [];
  try {
    for (const from of baseline ? [undefined, baseline] : [undefined]) {
      const col = await countingCollector();
      process.env['BENCH_COLLECTOR_URL'] = col.url;
      loggers.push({ srv: await startChild('regolith-logs', from), col });
    }
    // A logging run is over once its collector has every decision the server logged (or LOG_WAIT_S passed).
    const uploaded = async (l: (typeof loggers)[number]): Promise<void> => {
      const end = Date.now() + LOG_WAIT_S * 1000;
      while (l.col.events < (await childState(l.srv)).logged && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    };
    for (const srv of [plain, ...loggers.map((l) => l.srv)]) {
      await prepare(srv, s, path, hand);
      await load(srv.url, requests, undefined, LOG_WARMUP_S); // warm-up
    }
    for (const l of loggers) await uploaded(l);
    const settled = async (srv: Server, rate: number | undefined, l?: (typeof loggers)[number]): Promise<LogRun> => {
      const c0 = await childState(srv);
      const t0 = threadCpu(srv.child.pid!);
      const b0 = l?.col.bytes ?? 0;
      const e0 = l?.col.events ?? 0;
      const r = await load(srv.url, requests, rate);
      await new Promise((res) => setTimeout(res, LOG_SETTLE_S * 1000));
      if (l) await uploaded(l);
      const c1 = await childState(srv);
      const t1 = threadCpu(srv.child.pid!);
      const n = Math.max(1, r.requests.total);
      return { r, cpu: (c1.cpu - c0.cpu) / n, main: (t1.main - t0.main) / n, other: (t1.other - t0.other) / n, logged: c1.logged - c0.logged, bytes: (l?.col.bytes ?? 0) - b0, events: (l?.col.events ?? 0) - e0 };
    };
    for (const rate of [...LOG_RATES, undefined]) {
      const row: LogRow = { rate: rate ? `${rate}/s` : 'max', load: 0, plain: await settled(plain, rate), logs: [] };
      for (const l of loggers) row.logs.push(await settled(l.srv, rate, l));
      row.load = loadavg()[0]!;
      rows.push(row);
      const figures = row.logs.map((x, i) => `${Math.round(x.cpu)} µs logging${i ? ' (baseline)' : ''} (${x.events} events of ${x.logged} decisions logged, ${Math.round(x.bytes / 1024)} KB)`);
      const split = (x: Run & { main?: number; other?: number }) => `${Math.round(x.main ?? 0)}/${Math.round(x.other ?? 0)}`;
      console.log(`decision logs at ${row.rate}: server CPU per decision ${Math.round(row.plain.cpu)} µs plain, ${figures.join(', ')}; event loop/other threads ${[row.plain, ...row.logs].map(split).join(', ')} µs; load ${row.load.toFixed(1)}`);
    }
    for (const l of loggers) {
      const all = (await childState(l.srv)).logged;
      if (l.col.events !== all) console.log(`a collector received ${l.col.events} events for ${all} decisions logged (${all - l.col.events} missing after ${LOG_WAIT_S} s)`);
    }
  } finally {
    await stop(plain);
    for (const l of loggers) {
      await stop(l.srv);
      l.col.close();
    }
  }
  return rows;
}

function logTable(rows: LogRow[]): string {
  const base = rows[0]?.logs.length === 2;
  const head = ['rate', 'req/s plain', 'req/s logging', 'p99 plain', 'p99 logging', 'CPU/decision plain', 'CPU/decision logging', 'logging extra', 'of it event loop / other threads', 'uploaded'];
  if (base) head.push('req/s baseline', 'p99 baseline', 'CPU/decision baseline', 'baseline extra');
  head.push('load');
  const out: string[][] = [head];
  for (const x of rows) {
    const [l, b] = x.logs as [LogRun, LogRun | undefined];
    const row = [
      x.rate,
      Math.round(x.plain.r.requests.average).toLocaleString('en-US'),
      Math.round(l.r.requests.average).toLocaleString('en-US'),
      `${x.plain.r.latency.p99} ms`,
      `${l.r.latency.p99} ms`,
      `${Math.round(x.plain.cpu)} µs`,
      `${Math.round(l.cpu)} µs`,
      `${Math.round(l.cpu - x.plain.cpu)} µs`,
      `${Math.round(l.main - (x.plain as LogRun).main)} / ${Math.round(l.other - (x.plain as LogRun).other)} µs`,
      `${l.events.toLocaleString('en-US')} events / ${l.logged.toLocaleString('en-US')}, ${Math.round(l.bytes / Math.max(1, l.events))} B each`,
    ];
    if (b) row.push(Math.round(b.r.requests.average).toLocaleString('en-US'), `${b.r.latency.p99} ms`, `${Math.round(b.cpu)} µs`, `${Math.round(b.cpu - x.plain.cpu)} µs`);
    row.push(x.load.toFixed(1));
    out.push(row);
  }
  return 'Decision logging to a collector that counts bytes (server CPU per decision includes the uploads)\n' + table(out);
}

/** Loads the RBAC policy and data into a decision server and checks its decisions. */
async function prepare(srv: Server, s: ReturnType<typeof rbacScenario>, path: string, hand: (json: string) => unknown): Promise<void> {
  const put = await call(`${srv.url}/v1/policies/rbac`, 'PUT', policyText(s.policy));
  if (put.status !== 200) fail(`PUT policy: ${put.status} ${JSON.stringify(put.json)}`);
  const data = await call(`${srv.url}/v1/data`, 'PUT', JSON.stringify(s.data));
  if (data.status !== 204) fail(`PUT data: ${data.status} ${JSON.stringify(data.json)}`);
  for (const c of s.cases) {
    const r = await call(srv.url + path, 'POST', `{"input":${c.json}}`);
    const want = hand(c.json);
    if (r.status !== 200 || (r.json as { result?: unknown }).result !== want) fail(`decision differs: ${c.json}: server ${JSON.stringify(r.json)}, expected ${want}`);
  }
}

/** Certificates for the secure run, made by openssl in a temporary directory. */
function benchCerts(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-bench-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { cwd: dir, stdio: 'pipe' });
  return { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

async function secureRuns(requests: { path: string; body: string }[], s: ReturnType<typeof rbacScenario>, path: string, hand: (json: string) => unknown): Promise<{ max: Run; half: Run }> {
  const c = benchCerts();
  process.env['BENCH_TLS_CERT'] = c.cert;
  process.env['BENCH_TLS_KEY'] = c.key;
  // loopback only, to a certificate made a moment ago
  process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
  extraHeaders = { authorization: 'Bearer bench-token' };
  try {
    return await decisionRuns('regolith-secure', requests, s, path, hand);
  } finally {
    extraHeaders = {};
  }
}

async function decisionRuns(mode: 'regolith' | 'regolith-secure', requests: { path: string; body: string }[], s: ReturnType<typeof rbacScenario>, path: string, hand: (json: string) => unknown): Promise<{ max: Run; half: Run }> {
  const srv = await startChild(mode);
  let max: Run;
  let half: Run;
  try {
    await prepare(srv, s, path, hand);
    console.log(`Regolith server (${mode}): policy and data loaded, ${s.cases.length} decisions verified over HTTP`);
    await load(srv.url, requests, undefined, 2); // warm-up
    max = await measured(srv, requests);
    console.log(`Regolith: ${Math.round(max.r.requests.average)} req/s`);
    const rate = Math.round(max.r.requests.average / 2);
    half = await measured(srv, requests, rate);
    console.log(`Regolith at ${rate} req/s: p99 ${half.r.latency.p99} ms\n`);
  } finally {
    await stop(srv);
  }
  return { max, half };
}

function report(ceiling: Run | undefined, bodyCeiling: Run | undefined, max: Run, half: Run): void {
  if (ceiling && bodyCeiling) {
    const ratio = max.r.requests.average / ceiling.r.requests.average;
    console.log(`\nthroughput ratio Regolith / ceiling: ${ratio.toFixed(2)}  target >= ${RATIO_TARGET}: ${ratio >= RATIO_TARGET ? 'met' : 'MISSED'}`);
    console.log(`  (for scale: Regolith / body-reading route ${(max.r.requests.average / bodyCeiling.r.requests.average).toFixed(2)}; body-reading route / ceiling ${(bodyCeiling.r.requests.average / ceiling.r.requests.average).toFixed(2)})`);
  }
  console.log(`p99 at half rate: ${half.r.latency.p99} ms  target < ${P99_TARGET_MS} ms: ${half.r.latency.p99 < P99_TARGET_MS ? 'met' : 'MISSED'}`);
}

(WORKERS > 0
  ? import('./workers.js').then((m) => m.workersBench(process.argv[WORKERS + 1]!.split(',').map(Number), DURATION))
  : main()
).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
