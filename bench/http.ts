// HTTP decision throughput and latency (issue #5). The real server runs in a child
// process (bench/http-server.ts); autocannon runs here. Loopback only.
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
//
//   npm run bench:http        or        npx tsx bench/http.ts [seconds per run, default 10]
//   npm run bench:http -- --workers 1,2 [seconds]   regolith run --workers N side by side (bench/workers.ts)

import autocannon, { type Result } from 'autocannon';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from './lib/bundle.js';
import { rbacScenario } from './scenarios/rbac.js';
import { fail, policyText } from './lib/regolith.js';
import { machine, table } from './lib/stats.js';

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

type Mode = 'regolith' | 'regolith-secure' | 'hono' | 'hono-body';

/**
 * The server side, compiled as the product is (bench/lib/bundle.ts): run through tsx, every
 * closure the server and evaluator create would pay for esbuild's keepNames wrapper, ~10 µs
 * of CPU per request that `regolith run` (built by tsup) never pays. Every mode, the
 * ceilings included, runs from the same bundle. bench/profile.ts passes its own bundle
 * (BENCH_SERVER_BUNDLE) and BENCH_CPU_PROF (a directory for a V8 CPU profile of the server).
 */
let serverBundle: string | undefined;

function startChild(mode: Mode): Promise<Server> {
  serverBundle ??= process.env['BENCH_SERVER_BUNDLE'] ?? bundle('http-server.ts');
  const prof = process.env['BENCH_CPU_PROF'];
  const child = fork(serverBundle, [mode], {
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
function cpuOf(s: Server): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown): void => {
      const cpu = (m as { cpu?: NodeJS.CpuUsage }).cpu;
      if (!cpu) return;
      s.child.off('message', on);
      resolve(cpu.user + cpu.system);
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
    const put = await call(`${srv.url}/v1/policies/rbac`, 'PUT', policyText(s.policy));
    if (put.status !== 200) fail(`PUT policy: ${put.status} ${JSON.stringify(put.json)}`);
    const data = await call(`${srv.url}/v1/data`, 'PUT', JSON.stringify(s.data));
    if (data.status !== 204) fail(`PUT data: ${data.status} ${JSON.stringify(data.json)}`);
    for (const c of s.cases) {
      const r = await call(srv.url + path, 'POST', `{"input":${c.json}}`);
      const want = hand(c.json);
      if (r.status !== 200 || (r.json as { result?: unknown }).result !== want) fail(`decision differs: ${c.json}: server ${JSON.stringify(r.json)}, expected ${want}`);
    }
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
