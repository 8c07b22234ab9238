// HTTP decision throughput and latency (issue #5). The real server runs in a child
// process (bench/http-server.ts); autocannon runs here. Loopback only.
//   1. ceiling: a bare Hono route returning a constant JSON body, max rate;
//   2. Regolith: POST /v1/data/rbac/allow with the RBAC policy and data of
//      bench/policies/rbac.rego (100 roles, 1,000 users), realistic inputs, max rate;
//      target >= 0.85 of the ceiling's req/s;
//   3. Regolith again at half its max rate (autocannon overallRate); target p99 < 5 ms.
//      The bare route also runs at a fixed rate (BENCH_FLOOR_RATE, default 2000/s) to show
//      the latency this machine adds by itself (scheduling, other jobs).
//
//   npm run bench:http        or        npx tsx bench/http.ts [seconds per run, default 10]

import autocannon, { type Result } from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rbacScenario } from './scenarios/rbac.js';
import { fail, policyText } from './lib/regolith.js';
import { machine, table } from './lib/stats.js';

const DURATION = Number(process.argv[2] ?? 10);
const CONNECTIONS = 10;
const RATIO_TARGET = 0.85;
const P99_TARGET_MS = 5;
/** Rate of the ceiling's fixed-rate run (about half of what the decision server sustains here). */
const FLOOR_RATE = Number(process.env['BENCH_FLOOR_RATE'] ?? 2000);

interface Server {
  url: string;
  child: ChildProcess;
}

function startChild(mode: 'regolith' | 'hono'): Promise<Server> {
  // bench/profile.ts sets BENCH_SERVER_BUNDLE (http-server.ts bundled with a source map) and
  // BENCH_CPU_PROF (a directory) to write a V8 CPU profile of the server process.
  const bundle = process.env['BENCH_SERVER_BUNDLE'];
  const prof = process.env['BENCH_CPU_PROF'];
  const child = fork(bundle ?? fileURLToPath(new URL('./http-server.ts', import.meta.url)), [mode], {
    execArgv: [...(bundle ? [] : ['--import', 'tsx']), ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : [])],
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

async function call(url: string, method: string, body: string): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, { method, body, headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

async function load(url: string, requests: { path: string; body: string }[], overallRate?: number, seconds = DURATION): Promise<Result> {
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: requests.map((q) => ({ method: 'POST', path: q.path, body: q.body })),
    ...(overallRate ? { overallRate } : {}),
  });
  if (r.errors || r.non2xx || r.timeouts) fail(`load run had ${r.errors} errors, ${r.non2xx} non-2xx responses, ${r.timeouts} timeouts`);
  return r;
}

const fmt = (r: Result) => [Math.round(r.requests.average).toLocaleString('en-US'), `${r.latency.p50} ms`, `${r.latency.p99} ms`, `${r.latency.max} ms`];

async function main(): Promise<void> {
  console.log(`http: ${CONNECTIONS} connections, ${DURATION} s per run, autocannon in this process, server in a child (${machine()})\n`);
  const s = rbacScenario();
  const path = `/v1/data/${s.packagePath}/allow`;
  const hand = s.handWritten(s.data, {});
  const requests = s.cases.map((c) => ({ path, body: `{"input":${c.json}}` }));

  // 1. The ceiling.
  const hono = await startChild('hono');
  let ceiling: Result;
  let floor: Result;
  try {
    await load(hono.url, requests, undefined, 2); // warm-up
    ceiling = await load(hono.url, requests);
    console.log(`bare Hono route: ${Math.round(ceiling.requests.average)} req/s`);
    // The same route at a fixed rate: the latency floor of this machine at that load.
    floor = await load(hono.url, requests, FLOOR_RATE);
    console.log(`bare Hono route at ${FLOOR_RATE} req/s: p99 ${floor.latency.p99} ms`);
  } finally {
    await stop(hono);
  }

  // 2. and 3. The decision server.
  const srv = await startChild('regolith');
  let max: Result;
  let half: Result;
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
    console.log(`Regolith server: policy and data loaded, ${s.cases.length} decisions verified over HTTP`);
    await load(srv.url, requests, undefined, 2); // warm-up
    max = await load(srv.url, requests);
    console.log(`Regolith: ${Math.round(max.requests.average)} req/s`);
    const rate = Math.round(max.requests.average / 2);
    half = await load(srv.url, requests, rate);
    console.log(`Regolith at ${rate} req/s: p99 ${half.latency.p99} ms\n`);
  } finally {
    await stop(srv);
  }

  console.log(
    table([
      ['run', 'req/s', 'p50', 'p99', 'max'],
      ['bare Hono route (ceiling)', ...fmt(ceiling)],
      [`bare Hono route at ${FLOOR_RATE}/s (latency floor)`, ...fmt(floor)],
      [`Regolith ${path}`, ...fmt(max)],
      [`Regolith at half rate (${Math.round(max.requests.average / 2)}/s)`, ...fmt(half)],
    ]),
  );
  const ratio = max.requests.average / ceiling.requests.average;
  console.log(`\nthroughput ratio Regolith / ceiling: ${ratio.toFixed(2)}  target >= ${RATIO_TARGET}: ${ratio >= RATIO_TARGET ? 'met' : 'MISSED'}`);
  console.log(`p99 at half rate: ${half.latency.p99} ms  target < ${P99_TARGET_MS} ms: ${half.latency.p99 < P99_TARGET_MS ? 'met' : 'MISSED'}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
