// The decision-log plugin's own cost per logged decision (issue #28), in one process, without
// HTTP load in front: RBAC decisions (the input parsed from its JSON text, some request
// garbage, a server-sized live heap) run with and without DecisionLogPlugin.record(), the
// plugin uploading every 4,000 decisions to a loopback collector that only answers 204. The
// collector is a child process: in this one, its side of every upload (parsing the request,
// reading ~30 KB of body) counted as the plugin's, about as much as the client's own side.
// CPU per decision from process.cpuUsage (so gzip on libuv's thread pool and V8's helper
// threads count) and the event loop thread's own (/proc/thread-self/schedstat); each logged
// run lasts until every event is uploaded. Prints `rounds` pairs (plain, logged) after a
// warm-up, each with its garbage collections per 1,000 decisions (young generation, then
// full; from perf_hooks): a count the machine's load does not change, unlike CPU time; then
// `rounds` lines splitting a logged decision's cost into record() and the upload. For before/after, bundle this file from another tree (as bench/lib/bundle.ts
// does) and run both bundles one after the other, several times:
//   npx tsx bench/logs-plugin.ts [decisions per run, default 20000] [rounds, default 3]
import { spawn } from 'node:child_process';
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { existsSync, readFileSync } from 'node:fs';
import { rbacData, rbacScenario } from './scenarios/rbac.js';
import { parseJSON } from '../src/value/json-read.js';
import { validateConfig } from '../src/plugins/config/index.js';
import { DecisionLogPlugin } from '../src/plugins/logs/plugin.js';
import { ServiceClient } from '../src/plugins/services/client.js';

const N = Number(process.argv[2] ?? 20000);
const ROUNDS = Number(process.argv[3] ?? 3);
const SCHEDSTAT = '/proc/thread-self/schedstat';
/** The event loop thread's CPU time in µs (Linux; elsewhere 0). */
const mainCpu = (): number => (existsSync(SCHEDSTAT) ? Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1000 : 0);

const COLLECTOR = `
const srv = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.statusCode = 204; res.end(); });
});
srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));
process.stdin.on('end', () => process.exit(0)).resume();`;
// (it exits when this process closes its stdin, or dies)
const collector = spawn(process.execPath, ['-e', COLLECTOR], { stdio: ['pipe', 'pipe', 'inherit'] });
const port = await new Promise<string>((resolve, reject) => {
  collector.once('error', reject);
  collector.stdout.once('data', (b: Buffer) => resolve(String(b).trim()));
});
const url = `http://127.0.0.1:${port}`;
const config = validateConfig({ services: { c: { url } }, decision_logs: { service: 'c', reporting: { trigger: 'manual' } } });
const client = new ServiceClient(config.services['c']!);
const revisions = Object.freeze({});
const plugin = new DecisionLogPlugin({ config, client, labels: { id: 'a3f1c2d4-1111-2222-3333-444455556666', version: '0.1.0' }, revisions: () => revisions });
await plugin.start();

// A live heap of a server's size (the RBAC data a dozen times), so that garbage collection costs what it costs there.
const live: unknown[] = [];
for (let i = 0; i < 12; i++) live.push(JSON.parse(JSON.stringify(rbacData())));
const texts = rbacScenario().cases.map((c) => c.json);
let stampMs = -1;
let stamp = '';

function decide(i: number, log: boolean): number {
  const input = parseJSON(texts[i % texts.length]!);
  const garbage = Array.from({ length: 40 }, (_, k) => ({ k, s: 'x' + k }));
  if (log) {
    const now = Date.now();
    if (now !== stampMs) [stampMs, stamp] = [now, new Date(now).toISOString()];
    plugin.record({ decision_id: crypto.randomUUID(), path: 'data.rbac.allow', input, result: true, result_json: 'true', requested_by: '127.0.0.1', timestamp: stamp });
  }
  return garbage.length;
}

/** Garbage collections so far: young generation (scavenges), and the rest (mark-compact). */
const gcs = { minor: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if ((e as { detail?: { kind?: number } }).detail?.kind === perf.NODE_PERFORMANCE_GC_MINOR) gcs.minor++;
    else gcs.major++;
  }
}).observe({ entryTypes: ['gc'] });

async function run(log: boolean): Promise<{ total: number; main: number; minor: number; major: number }> {
  const g0 = { ...gcs };
  const m0 = mainCpu();
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    decide(i, log);
    if (i % 200 === 199) await new Promise((r) => setImmediate(r));
    if (log && i % 4000 === 3999) void plugin.trigger();
  }
  while (plugin.counts.uploaded < plugin.counts.logged) {
    await plugin.trigger();
    await new Promise((r) => setTimeout(r, 5));
  }
  const c = process.cpuUsage(c0);
  const main = (mainCpu() - m0) / N;
  // (the observer is told of collections asynchronously)
  await new Promise((r) => setImmediate(r));
  return { total: (c.user + c.system) / N, main, minor: ((gcs.minor - g0.minor) * 1000) / N, major: ((gcs.major - g0.major) * 1000) / N };
}

await run(true);
await run(false);
for (let r = 0; r < ROUNDS; r++) {
  const a = await run(false);
  const b = await run(true);
  const f = (x: number) => x.toFixed(1);
  const gc = (x: typeof a) => `GC ${x.minor.toFixed(2)} young + ${x.major.toFixed(2)} full per 1,000`;
  console.log(`plain ${f(a.total)} µs (event loop ${f(a.main)}; ${gc(a)}), logged ${f(b.total)} µs (event loop ${f(b.main)}; ${gc(b)}): extra ${f(b.total - a.total)} µs per logged decision, ${f(b.main - a.main)} on the event loop`);
}
// Where a logged decision's extra goes, in two phases with nothing else running: record() of
// N decisions (inputs parsed beforehand; the id made per decision, as the server does), then
// uploading them all (copy, gzip, one HTTP request per chunk).
const inputs = texts.map((t) => parseJSON(t));
for (let r = 0; r < ROUNDS; r++) {
  const m0 = mainCpu();
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) plugin.record({ decision_id: crypto.randomUUID(), path: 'data.rbac.allow', input: inputs[i % inputs.length]!, result: true, result_json: 'true', requested_by: '127.0.0.1', timestamp: stamp });
  const m1 = mainCpu();
  const c1 = process.cpuUsage(c0);
  while (plugin.counts.uploaded < plugin.counts.logged) await plugin.trigger();
  const c2 = process.cpuUsage(c0);
  const f = (x: number) => (x / N).toFixed(1);
  console.log(`parts: record() ${f(m1 - m0)} µs on the event loop (${f(c1.user + c1.system)} in all), upload ${f(mainCpu() - m1)} µs on the event loop (${f(c2.user + c2.system - c1.user - c1.system)} in all) per event`);
}
console.log(`${plugin.counts.logged} decisions logged, ${plugin.counts.uploaded} uploaded`);
await plugin.stop();
// (close() is missing in trees before keep-alive connections)
(client as { close?: () => void }).close?.();
collector.stdin.end();
