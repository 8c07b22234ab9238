// Decision logging at the server level, several servers loaded AT THE SAME TIME (issue #28):
// each a bundle of bench/http-server.ts in a mode (regolith-logs uploading to its own collector
// here, which only counts events, or regolith-nologs), all given the same RBAC decisions at the
// same fixed rate by autocannon, so that whatever else runs on the machine weighs on all of
// them alike. Prints each server's CPU per decision, split by thread from /proc (node:main is
// the event loop; libuv's pool and V8's helpers are the other threads), the uploads included
// (each run lasts until every collector has every logged event, plus a settle time).
//   npx tsx bench/logs-pair.ts <rate> <seconds> <rounds> <bundle>:<mode>[:<node flags, comma-separated>] ...
// With NODE_ARGS naming --cpu-prof-dir DIR for one server (its flags), compare profiles with
// bench/profile-top.ts. BENCH_STRACE=<dir>: each round runs under `strace -c -f` (system calls
// counted per server and round, into <dir>; they slow the servers, so CPU figures of such a run
// do not count). BENCH_ITEMS=<n> makes each input larger by n records the policy does not read.
// BENCH_SERVER_CPUS=<list> pins the servers (every thread) to those CPUs.
import autocannon from 'autocannon';
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { rbacScenario } from './scenarios/rbac.js';
import { countingCollector } from './lib/collector.js';
import { policyText } from './lib/regolith.js';

const [rateArg, secsArg, roundsArg, ...specs] = process.argv.slice(2);
const rate = Number(rateArg), secs = Number(secsArg), rounds = Number(roundsArg);
if (!rate || !secs || !rounds || !specs.length) {
  console.error('usage: logs-pair.ts <rate> <seconds> <rounds> <bundle>:<mode>[:<flags>] ...');
  process.exit(2);
}

interface Srv { name: string; child: ChildProcess; url: string; col: { events: number; close(): void } }

function state(s: Srv): Promise<{ cpu: number; logged: number }> {
  return new Promise((r) => {
    const on = (m: any) => { if (!m.cpu) return; s.child.off('message', on); r({ cpu: m.cpu.user + m.cpu.system, logged: m.logged }); };
    s.child.on('message', on);
    s.child.send({ cpu: true });
  });
}

/** CPU time (µs) per thread group of a process: node:main, and the rest by thread name. */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    let st: string;
    try { st = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8'); } catch { continue; }
    const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')) + (t === String(pid) ? ':main' : '');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10000);
  }
  return out;
}

const s = rbacScenario();
const path = `/v1/data/${s.packagePath}/allow`;
// BENCH_ITEMS=n: each input carries n more records the policy does not read (a larger body)
const items = Number(process.env.BENCH_ITEMS ?? 0);
const pad = items ? ',"items":' + JSON.stringify(Array.from({ length: items }, (_, i) => ({ id: `item-${i}`, owner: `user-${i % 97}`, tags: ['a', 'b'], size: i * 13 }))) : '';
const requests = s.cases.map((c) => ({ method: 'POST' as const, path, body: `{"input":${pad ? c.json.slice(0, -1) + pad + '}' : c.json}}` }));
const servers: Srv[] = [];
for (const [i, spec] of specs.entries()) {
  const [bundlePath, mode, flags = ''] = spec.split(':');
  const col = await countingCollector();
  const child = fork(bundlePath!, [mode!], {
    execArgv: flags.split(',').filter(Boolean),
    env: { ...process.env, BENCH_COLLECTOR_URL: col.url },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url: string = await new Promise((r) => child.once('message', (m: any) => r(m.url)));
  // BENCH_SERVER_CPUS=<list>: the servers pinned to these CPUs (taskset), e.g. apart from the
  // load generator and collectors, for a run where loopback's receiving side is steered off
  // the servers' CPU (Receive Packet Steering on lo: see bench/README, "a collector elsewhere")
  if (process.env.BENCH_SERVER_CPUS) execFileSync('taskset', ['-a', '-p', '-c', process.env.BENCH_SERVER_CPUS, String(child.pid)], { stdio: 'ignore' });
  await fetch(`${url}/v1/policies/rbac`, { method: 'PUT', body: policyText(s.policy) });
  await fetch(`${url}/v1/data`, { method: 'PUT', body: JSON.stringify(s.data) });
  const answer = await (await fetch(`${url}${path}`, { method: 'POST', body: requests[0]!.body })).text();
  if (!answer.includes('"result"')) throw new Error(`${spec}: ${answer}`);
  servers.push({ name: `${i}:${bundlePath!.split('/').pop()}:${mode}`, child, url, col });
}

const load = (srv: Srv, r: number, d: number) =>
  autocannon({ url: srv.url, connections: 10, duration: d, requests, overallRate: r });
const served = servers.map(() => 0);
// warm-up at max rate (BENCH_WARMUP_S), then at the rate: the compiler's work on the upload path falls here, not in a round
const warmup = Number(process.env.BENCH_WARMUP_S ?? 10);
(await Promise.all(servers.map((x) => autocannon({ url: x.url, connections: 10, duration: warmup, requests })))).forEach((r, i) => (served[i]! += r.requests.total + 1));
(await Promise.all(servers.map((x) => load(x, rate, 3)))).forEach((r, i) => (served[i]! += r.requests.total));
const all = async () => { for (const x of servers) { const end = Date.now() + 60000; while (x.col.events < (await state(x)).logged && Date.now() < end) await new Promise((r) => setTimeout(r, 50)); } };
await all();
const per = new Map<string, { cpu: number[]; main: number[]; other: number[]; rps: number[] }>();
for (let round = 0; round < rounds; round++) {
  const traceDir = process.env.BENCH_STRACE;
  const tracers = traceDir ? servers.map((x, i) => spawn('strace', ['-c', '-f', '-p', String(x.child.pid), '-o', `${traceDir}/${i}-${x.name.split(':')[2]}-${round + 1}.txt`], { stdio: 'ignore' })) : [];
  if (tracers.length) await new Promise((r) => setTimeout(r, 500));
  const before = await Promise.all(servers.map(async (x) => ({ st: await state(x), th: threads(x.child.pid!) })));
  const res = await Promise.all(servers.map((x) => load(x, rate, secs)));
  await new Promise((r) => setTimeout(r, 2500));
  await all();
  const after = await Promise.all(servers.map(async (x) => ({ st: await state(x), th: threads(x.child.pid!) })));
  for (const t of tracers) { t.kill('SIGINT'); await new Promise((r) => t.once('exit', r)); }
  const line: string[] = [];
  for (const [i, x] of servers.entries()) {
    const n = res[i]!.requests.total;
    if (res[i]!.errors || res[i]!.non2xx) throw new Error(`${x.name}: ${res[i]!.errors} errors, ${res[i]!.non2xx} non-2xx`);
    let main = 0, other = 0;
    for (const [k, v] of after[i]!.th) { const d = v - (before[i]!.th.get(k) ?? 0); if (k.endsWith(':main')) main += d; else other += d; }
    const cpu = (after[i]!.st.cpu - before[i]!.st.cpu) / n;
    served[i]! += n;
    const p = per.get(x.name) ?? { cpu: [], main: [], other: [], rps: [] };
    p.cpu.push(cpu); p.main.push(main / n); p.other.push(other / n); p.rps.push(res[i]!.requests.average);
    per.set(x.name, p);
    if (traceDir) console.log(`${x.name}: ${n} requests, ${after[i]!.st.logged - before[i]!.st.logged} logged`);
    line.push(`${x.name} ${cpu.toFixed(1)} µs (main ${(main / n).toFixed(1)}, other threads ${(other / n).toFixed(1)}) ${Math.round(res[i]!.requests.average)}/s`);
  }
  console.log(`round ${round + 1}, load ${loadavg()[0]!.toFixed(1)}: ${line.join(' | ')}`);
}
const median = (a: number[]) => { const b = [...a].sort((x, y) => x - y); return b.length % 2 ? b[(b.length - 1) / 2]! : (b[b.length / 2 - 1]! + b[b.length / 2]!) / 2; };
for (const [k, p] of per) console.log(`${k}: CPU per decision median ${median(p.cpu).toFixed(1)} µs (${Math.min(...p.cpu).toFixed(1)}-${Math.max(...p.cpu).toFixed(1)}), main ${median(p.main).toFixed(1)}, other threads ${median(p.other).toFixed(1)}, ${Math.round(median(p.rps))}/s`);
for (const [i, x] of servers.entries()) console.log(`${x.name}: ${served[i]} requests in all (warm-up included), for a whole-process profile`);
for (const x of servers) { x.child.disconnect(); x.col.close(); }
