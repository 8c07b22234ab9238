// What distributed tracing costs per decision (issue 32), measured as bench/http.ts measures
// the REST path: POST /v1/data/rbac/allow with bench/policies/rbac.rego and its data
// (bench/scenarios/rbac.ts), autocannon here with 10 connections at max rate, the server in
// a child process (bench/tracing-server.ts, compiled as tsup compiles dist/), its CPU time
// per decision from process.cpuUsage. Three servers side by side:
//   off   no distributed_tracing
//   p0    distributed_tracing type http, sample_percentage 0 (configured, nothing sampled)
//   p100  sample_percentage 100, every decision's spans (server + evaluation) exported over
//         OTLP/HTTP to a receiver stand-in here, which only counts the spans it gets
// Rounds interleave the three (the order rotates each round) so that they share the noise of
// the machine; the figures are medians over the rounds. The requests carry no traceparent:
// each decision starts its own trace, sampled or not by sample_percentage.
// BENCH_TRACING_BASELINE=<a tracing-server bundle built from another tree> adds that build's
// p0 server to the rounds (before/after a change, under the same noise).
//
//   npx tsx bench/tracing.ts [seconds per run, default 10]      BENCH_ROUNDS=3

import autocannon, { type Result } from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bundle } from './lib/bundle.js';
import { fail, policyText } from './lib/regolith.js';
import { machine, table } from './lib/stats.js';
import { rbacScenario } from './scenarios/rbac.js';

const DURATION = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CONNECTIONS = 10;
type Mode = 'off' | 'p0' | 'p100';
const LABEL: Record<string, string> = { off: 'tracing not configured', p0: 'sample_percentage 0', p100: 'sample_percentage 100 (exported)', base: 'sample_percentage 0, baseline build' };
const BASELINE = process.env['BENCH_TRACING_BASELINE'];

interface Server {
  /** off, p0, p100, or base (the baseline build's p0). */
  key: string;
  url: string;
  child: ChildProcess;
}

function ask<T>(s: Server, msg: object, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown): void => {
      if (!(m as Record<string, unknown>)[key]) return;
      s.child.off('message', on);
      resolve(m as T);
    };
    s.child.on('message', on);
    s.child.send(msg);
  });
}

const cpuOf = async (s: Server): Promise<number> => {
  const { cpu } = await ask<{ cpu: NodeJS.CpuUsage }>(s, { cpu: true }, 'cpu');
  return cpu.user + cpu.system;
};

function start(file: string, key: string, mode: Mode, receiver: string): Promise<Server> {
  const child = fork(file, [mode], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, BENCH_RECEIVER: receiver } });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ key, url: (m as { url: string }).url, child }));
    child.once('exit', (code) => reject(new Error(`${key} server exited (${code}) before listening`)));
  });
}

async function call(url: string, method: string, body: string): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, { method, body, headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

async function load(url: string, requests: { path: string; body: string }[], seconds: number): Promise<Result> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, method: 'POST', headers: { 'content-type': 'application/json' }, requests: requests.map((q) => ({ method: 'POST', path: q.path, body: q.body })) });
  if (r.errors || r.non2xx || r.timeouts) fail(`load run had ${r.errors} errors, ${r.non2xx} non-2xx responses, ${r.timeouts} timeouts`);
  return r;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  console.log(`tracing: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} interleaved rounds, autocannon in this process, servers in children (${machine()})\n`);
  const s = rbacScenario();
  const path = `/v1/data/${s.packagePath}/allow`;
  const hand = s.handWritten(s.data, {});
  const requests = s.cases.map((c) => ({ path, body: `{"input":${c.json}}` }));

  // the receiver stand-in: counts the spans of each export (one "spanId" per span in OTLP/JSON)
  let spansReceived = 0;
  const receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      for (let i = body.indexOf('"spanId"'); i >= 0; i = body.indexOf('"spanId"', i + 1)) spansReceived++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const receiverAddr = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const file = bundle('tracing-server.ts');
  const servers: Server[] = [];
  /** Spans p100 should export: a server span and an evaluation span per decision. */
  let p100Spans = 0;
  for (const mode of ['off', 'p0', 'p100'] as const) servers.push(await start(file, mode, mode, receiverAddr));
  if (BASELINE) servers.push(await start(BASELINE, 'base', 'p0', receiverAddr));
  const keys = servers.map((x) => x.key);
  try {
    for (const srv of servers) {
      const put = await call(`${srv.url}/v1/policies/rbac`, 'PUT', policyText(s.policy));
      if (put.status !== 200) fail(`PUT policy: ${put.status}`);
      const data = await call(`${srv.url}/v1/data`, 'PUT', JSON.stringify(s.data));
      if (data.status !== 204) fail(`PUT data: ${data.status}`);
      for (const c of s.cases) {
        const r = await call(srv.url + path, 'POST', `{"input":${c.json}}`);
        if (r.status !== 200 || (r.json as { result?: unknown }).result !== hand(c.json)) fail(`${srv.key}: decision differs for ${c.json}`);
      }
      const warm = await load(srv.url, requests, 2); // warm-up
      if (srv.key === 'p100') p100Spans += 2 + 2 * (s.cases.length + warm.requests.total); // the two PUTs have no evaluation
    }
    console.log(`policy and data loaded in each server, ${s.cases.length} decisions verified; measuring\n`);

    const rps: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
    const cpu: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // rotate the order: no mode always runs first (or right after the exporting one)
      for (let k = 0; k < servers.length; k++) {
        const srv = servers[(k + round) % servers.length]!;
        const c0 = await cpuOf(srv);
        const r = await load(srv.url, requests, DURATION);
        const c1 = await cpuOf(srv);
        rps[srv.key]!.push(r.requests.average);
        cpu[srv.key]!.push((c1 - c0) / Math.max(1, r.requests.total));
        if (srv.key === 'p100') p100Spans += 2 * r.requests.total;
        console.log(`round ${round + 1} ${srv.key}: ${Math.round(r.requests.average)} decisions/s, ${Math.round((c1 - c0) / Math.max(1, r.requests.total))} µs server CPU per decision`);
      }
    }
    // the spans p100 still buffers, then what arrived of all it made
    await ask(servers[2]!, { flush: true }, 'flushed');

    const off = { rps: median(rps['off']!), cpu: median(cpu['off']!) };
    // the least disturbed round too: other jobs on a shared machine only ever add CPU time
    const offMin = Math.min(...cpu['off']!);
    const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)} µs`;
    const rows = [['server', 'decisions/s (median)', 'vs off', 'server CPU per decision (median)', 'vs off', '(lowest round)', 'vs off']];
    for (const key of keys) {
      const r = median(rps[key]!);
      const c = median(cpu[key]!);
      const m = Math.min(...cpu[key]!);
      rows.push([LABEL[key]!, Math.round(r).toLocaleString('en-US'), `${((r / off.rps - 1) * 100).toFixed(1)}%`, `${c.toFixed(1)} µs`, signed(c - off.cpu), `${m.toFixed(1)} µs`, signed(m - offMin)]);
    }
    console.log('\n' + table(rows));
    // (autocannon's totals leave out the requests in flight when a run ends: up to 10 each)
    console.log(`\np100: ${spansReceived.toLocaleString('en-US')} spans reached the receiver for about ${p100Spans.toLocaleString('en-US')} made (the batch processor drops spans when its queue of 2048 is full)`);
  } finally {
    for (const srv of servers) srv.child.disconnect();
    receiver.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
