// Decision logging under `--workers` (issue #28): `regolith run --server --workers N` of one or
// more builds, each with decision logs uploaded to its own collector here (which only counts
// events), and the same builds without decision logs, all loaded AT THE SAME TIME with the
// same RBAC decisions at a fixed rate by autocannon, so that whatever else runs on the machine
// weighs on all of them alike. Prints each server's CPU per decision (primary and workers,
// every thread, from /proc; the main threads' share, and with workers the primary's alone);
// each round lasts until every collector has every logged event.
//   npx tsx bench/logs-workers.ts <rate> <seconds> <rounds> <dist/cli/main.js>[:<workers>] ...
// (workers default 2; 0 runs one process without --workers). BENCH_THREADS=1 also prints each
// server's CPU per decision by thread (primary or child, and the thread's name).
// BENCH_NODE_ARGS: node flags for every server, e.g. "--cpu-prof --cpu-prof-dir=DIR"
// (NODE_OPTIONS refuses --cpu-prof).
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { rbacScenario } from './scenarios/rbac.js';
import { countingCollector, type CountingCollector } from './lib/collector.js';
import { fail, policyText } from './lib/regolith.js';
import { threadCpu, treeCpu } from './lib/proc.js';

const [rateArg, secsArg, roundsArg, ...specs] = process.argv.slice(2);
const rate = Number(rateArg), secs = Number(secsArg), rounds = Number(roundsArg);
if (!rate || !secs || !rounds || !specs.length) fail('usage: logs-workers.ts <rate> <seconds> <rounds> <dist/cli/main.js>[:<workers>] ...');

interface Server { name: string; child: ChildProcess; url: string; col?: CountingCollector; logged: number }

const dir = mkdtempSync(join(tmpdir(), 'regolith-logs-workers-'));
const s = rbacScenario();
const path = `/v1/data/${s.packagePath}/allow`;
const requests = s.cases.map((c) => ({ method: 'POST' as const, path, body: `{"input":${c.json}}` }));
let port = 18_400 + Math.floor(Math.random() * 1000);

async function start(bin: string, workers: number, logs: boolean, i: number): Promise<Server> {
  const col = logs ? await countingCollector() : undefined;
  const config = join(dir, `config-${i}.json`);
  writeFileSync(config, JSON.stringify(col ? { services: { collector: { url: col.url } }, decision_logs: { service: 'collector', reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } } } : {}));
  const url = `http://127.0.0.1:${++port}`;
  const args = [bin, 'run', '--server', '--addr', `127.0.0.1:${port}`, '--config-file', config, '--log-level', 'error', ...(workers ? ['--workers', String(workers)] : [])];
  // BENCH_NODE_ARGS: node flags for every server (--cpu-prof and the like, which NODE_OPTIONS refuses)
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let t = 0; ; t++) {
    if ((await fetch(`${url}/health`).then((r) => r.status, () => 0)) === 200) break;
    if (t > 200 || child.exitCode !== null) fail(`${bin} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if ((await fetch(`${url}/v1/policies/rbac`, { method: 'PUT', body: policyText(s.policy) })).status !== 200) fail('PUT policy failed');
  if ((await fetch(`${url}/v1/data`, { method: 'PUT', body: JSON.stringify(s.data) })).status !== 204) fail('PUT data failed');
  const name = `${i}:${bin.split('/').slice(-4, -2).join('/')}:${workers ? `${workers} workers` : 'one process'}:${logs ? 'logs' : 'nologs'}`;
  return { name, child, url, col, logged: 0 };
}

const servers: Server[] = [];
for (const spec of specs) {
  const [bin, w = '2'] = spec.split(':');
  for (const logs of [true, false]) servers.push(await start(bin!, Number(w), logs, servers.length));
}

const load = (x: Server, r: number | undefined, d: number) => autocannon({ url: x.url, connections: 10, duration: d, requests, ...(r ? { overallRate: r } : {}) });
/** Waits until each logging server's collector has every decision answered (a minute at most). */
async function delivered(): Promise<void> {
  for (const x of servers) {
    if (!x.col) continue;
    const end = Date.now() + 60_000;
    while (x.col.events < x.logged && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    if (x.col.events < x.logged) fail(`${x.name}: ${x.col.events} of ${x.logged} events delivered`);
  }
}
// warm-up at max rate, then a short one at the rate
for (const [d, r] of [[Number(process.env.BENCH_WARMUP_S ?? 8), undefined], [3, rate]] as const) {
  (await Promise.all(servers.map((x) => load(x, r, d)))).forEach((res, i) => (servers[i]!.logged += res.requests.total));
}
await new Promise((r) => setTimeout(r, 2500));
await delivered();
const per = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  const before = servers.map((x) => treeCpu(x.child.pid!));
  const threadsBefore = servers.map((x) => threadCpu(x.child.pid!));
  const res = await Promise.all(servers.map((x) => load(x, rate, secs)));
  res.forEach((r, i) => {
    if (r.errors || r.non2xx) fail(`${servers[i]!.name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
    servers[i]!.logged += r.requests.total;
  });
  await new Promise((r) => setTimeout(r, 2500));
  await delivered();
  const after = servers.map((x) => treeCpu(x.child.pid!));
  if (process.env.BENCH_THREADS) {
    servers.forEach((x, i) => {
      const n = res[i]!.requests.total;
      const parts = [...threadCpu(x.child.pid!)].map(([k, v]) => [k, (v - (threadsBefore[i]!.get(k) ?? 0)) / n] as const).filter(([, v]) => v >= 0.05);
      console.log(`  ${x.name} threads: ${parts.sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
    });
  }
  const line = servers.map((x, i) => {
    const n = res[i]!.requests.total;
    const cpu = (after[i]!.user + after[i]!.system - before[i]!.user - before[i]!.system) / n;
    per.set(x.name, [...(per.get(x.name) ?? []), cpu]);
    const primary = x.name.includes(' workers') ? `, primary ${((after[i]!.root - before[i]!.root) / n).toFixed(1)}` : '';
    return `${x.name} ${cpu.toFixed(1)} µs (main threads ${((after[i]!.main - before[i]!.main) / n).toFixed(1)}${primary}) ${Math.round(res[i]!.requests.average)}/s`;
  });
  console.log(`round ${round + 1}, load ${loadavg()[0]!.toFixed(1)}: ${line.join(' | ')}`);
}
const median = (a: number[]) => { const b = [...a].sort((x, y) => x - y); return b.length % 2 ? b[(b.length - 1) / 2]! : (b[b.length / 2 - 1]! + b[b.length / 2]!) / 2; };
for (const [k, v] of per) console.log(`${k}: CPU per decision median ${median(v).toFixed(1)} µs (${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)})`);
for (const x of servers) {
  x.child.kill('SIGTERM');
  x.col?.close();
}
rmSync(dir, { recursive: true, force: true });
