// Decision logging at max rate with wrk (issue #28): one server bundle of bench/http-server.ts
// in one mode (regolith-logs uploading to a collector here that only counts bytes and events,
// or regolith-nologs), the RBAC policy and data loaded, then wrk (1 thread, CONNS connections,
// little CPU of its own) for SECONDS at max rate; prints the server's CPU per request, split
// by thread from /proc (node:main is the event loop; the V8 helper threads collect garbage),
// and the events delivered. After the load it waits until the collector has every event the
// server logged, so the uploads are inside the figure, and prints how long after the load that
// took (the upload lag) and how many connections the uploads opened. NODE_ARGS adds node flags to the server
// (--cpu-prof --cpu-prof-dir DIR, --trace-gc).
//   npx tsx bench/logs-wrk.ts <bundle.mjs> regolith-logs|regolith-nologs [seconds] [connections] (PIPELINE=16: pipelined)
// (a bundle: node_modules/.bin/esbuild bench/http-server.ts --bundle --platform=node
//  --format=esm --packages=external --outfile=node_modules/.cache/regolith-bench/x.mjs)
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { wrkScript } from './lib/wrk.js';
import { rbacScenario } from './scenarios/rbac.js';
import { policyText } from './lib/regolith.js';

const [bundlePath, mode, secs = '10', conns = '10'] = process.argv.slice(2);
const LUA = join(mkdtempSync(join(tmpdir(), 'regolith-wrk-')), 'requests.lua');
const extra = (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean);
const col = { bytes: 0, events: 0, uploads: 0, conns: 0 };
const cs = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (b) => parts.push(b));
  req.on('end', () => {
    const body = Buffer.concat(parts); col.bytes += body.length; col.uploads++;
    const t = gunzipSync(body).toString();
    for (let i = t.indexOf('"decision_id":'); i >= 0; i = t.indexOf('"decision_id":', i + 1)) col.events++;
    res.statusCode = 204; res.end();
  });
});
cs.on('connection', () => col.conns++);
await new Promise<void>((r) => cs.listen(0, '127.0.0.1', r));
process.env.BENCH_COLLECTOR_URL = `http://127.0.0.1:${(cs.address() as any).port}`;
// With --trace-gc-nvp in NODE_ARGS, V8's line per collection names the bytes allocated since
// the last one: summed over the measured window, the heap allocated per request (a count,
// which the machine's load does not disturb as it does CPU time).
const gcTrace = extra.includes('--trace-gc-nvp');
const child = fork(bundlePath!, [mode!], { execArgv: extra, stdio: ['ignore', gcTrace ? 'pipe' : process.env.CHILD_OUT ? 'inherit' : 'ignore', 'inherit', 'ipc'] });
const gc = { on: false, allocated: 0, scavenges: 0, marks: 0, pauseMs: 0 };
if (gcTrace) {
  let rest = '';
  child.stdout!.on('data', (b: Buffer) => {
    const lines = (rest + b.toString()).split('\n');
    rest = lines.pop()!;
    for (const l of lines) {
      if (process.env.CHILD_OUT) console.log(l);
      const a = / pause=([\d.]+) .* gc=(\w+) .* allocated=(\d+)/.exec(l);
      if (!a || !gc.on) continue;
      gc.allocated += Number(a[3]); gc.pauseMs += Number(a[1]);
      if (a[2] === 's') gc.scavenges++; else gc.marks++;
    }
  });
}
// a server that cannot start (a configuration it refuses) exits before it reports its URL
const url: string = await new Promise<string>((resolve, reject) => {
  child.once('message', (m: any) => resolve(m.url));
  child.once('exit', (code) => reject(new Error(`${mode} server exited (${code}) before listening`)));
}).catch((e: unknown) => {
  console.error(String(e));
  cs.close();
  process.exit(1);
});
const s = rbacScenario();
const path = `/v1/data/${s.packagePath}/allow`;
// node-body (bench/http-server.ts's bare node:http ceiling) has no policy to load
if (mode !== 'node-body') {
  await fetch(`${url}/v1/policies/rbac`, { method: 'PUT', body: policyText(s.policy) });
  await fetch(`${url}/v1/data`, { method: 'PUT', body: JSON.stringify(s.data) });
}
const bodies = s.cases.map((c) => `{"input":${c.json}}`);
writeFileSync(LUA, `local bodies = {${bodies.map((b) => JSON.stringify(b).replace(/\\\//g,'/')).join(',\n')}}
local i = 0
request = function()
  i = i + 1
  return wrk.format("POST", "${path}", {["content-type"]="application/json"}, bodies[(i % #bodies) + 1])
end
`);
const state = (): Promise<{ cpu: number; logged: number }> => new Promise((r) => {
  const on = (m: any) => { if (!m.cpu) return; child.off('message', on); r({ cpu: m.cpu.user + m.cpu.system, logged: m.logged }); };
  child.on('message', on); child.send({ cpu: true });
});
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync(`/proc/${child.pid}/task`)) {
    const st = readFileSync(`/proc/${child.pid}/task/${t}/stat`, 'utf8');
    const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]);
    out.set(name + ':' + (t === String(child.pid) ? 'main' : t), ticks * 10000);
  }
  return out;
}
// PIPELINE=N: N requests per write (bench/lib/wrk.ts's script): every server then answers
// batches, so a slower one is not also charged for answering smaller batches and waking wrk
// more often, as it is at max rate without pipelining.
const pipeline = Number(process.env.PIPELINE ?? 1);
const script = pipeline > 1 ? wrkScript(bodies.map((body) => ({ path, body })), {}, { pipeline, check: false }).file : LUA;
const wrk = (d: number) => execFileSync('wrk', ['-t1', `-c${conns}`, `-d${d}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
// Requests over the process's life (warm-up included), to put a whole-process CPU profile per request.
const warm = Number(/(\d+) requests in/.exec(wrk(3))![1]);
await new Promise((r) => setTimeout(r, 2500));
const c0 = await state(); const t0 = threads(); const e0 = col.events;
gc.on = true;
const k0 = { uploads: col.uploads, conns: col.conns };
const out = wrk(Number(secs));
const reqs = Number(/(\d+) requests in/.exec(out)![1]);
// How long after the load the collector has every event (the upload lag), then at least 2.5 s in all.
const loadEnd = Date.now();
for (const end = loadEnd + 60000; Date.now() < end; ) { const st = await state(); if (col.events >= st.logged) break; await new Promise((r) => setTimeout(r, 50)); }
const lag = Date.now() - loadEnd;
if (lag < 2500) await new Promise((r) => setTimeout(r, 2500 - lag));
const c1 = await state(); const t1 = threads();
gc.on = false;
const per: Record<string, number> = {};
for (const [k, v] of t1) { const d = v - (t0.get(k) ?? 0); const g = k.replace(/:\d+$/, ''); per[g] = (per[g] ?? 0) + d; }
const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)![1];
// Latency: wrk's 99th percentile and maximum (a synchronous stall of the event loop shows in both).
const p99 = /\s99%\s+(\S+)/.exec(out)?.[1];
const max = /Latency\s+\S+\s+\S+\s+(\S+)/.exec(out)?.[1];
console.log(`${mode} ${bundlePath!.split('/').pop()}: ${reqs} req (${rps}/s; ${warm + reqs} with the warm-up), CPU ${((c1.cpu - c0.cpu) / reqs).toFixed(1)} µs/req, latency p99 ${p99} max ${max}, events ${col.events - e0} logged ${c1.logged - c0.logged} (${col.uploads - k0.uploads} uploads on ${col.conns - k0.conns} new connections, all in ${(lag / 1000).toFixed(1)} s after the load); threads µs/req: ${Object.entries(per).filter(([, v]) => v > 0).map(([k, v]) => `${k}=${(v / reqs).toFixed(1)}`).join(' ')}`);
if (gcTrace) console.log(`  heap: ${(gc.allocated / reqs).toFixed(0)} B allocated per request (${gc.scavenges} scavenges, ${gc.marks} other collections, ${(gc.pauseMs * 1000 / reqs).toFixed(1)} µs of pauses per request)`);
child.disconnect();
await new Promise((r) => child.once('exit', r));
cs.close();
