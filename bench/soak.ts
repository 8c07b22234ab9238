// `npm run bench:soak -- [duration] [--workers N] [--rate R]` (issue 28): the decision
// server as operators run it (`regolith run --server`, the built binary, a snapshot of
// dist/ so a rebuild elsewhere cannot pull it away) for a while under a steady load:
//   - wrk at a fixed rate (default 2,200 decisions/s: rate/10 connections, each waiting
//     100 ms between requests) over the RBAC scenario,
//   - decision logs uploaded to a collector here that parses every upload and counts the
//     events by decision id,
//   - a new bundle revision every 10 s from a loopback bundle server (the policy and its
//     data: each revision is downloaded, compiled and activated),
//   - an adapter (package_insights against a stand-in of its API) polled every 5 s, its
//     document changing at every poll.
// Every 10 s it samples the server's resident memory (/proc: the primary and workers summed,
// and each process apart with --workers), its event-loop delay (its own /metrics) and the
// latency of a /health probe; it prints them every 30 s and, at the end, the slopes after
// warm-up and over the second half. It then stops the load, waits for the collector to have
// every decision the server answered, stops the server (SIGTERM) and fails (exit 1) if one
// event is missing or doubled.
// Duration: 10m by default; "3m", "90s" or seconds. Not a test: it never gates a run.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as netServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { writeBundle, type Bundle } from '../src/bundle/index.js';
import { rbacScenario } from './scenarios/rbac.js';
import { fail, policyText } from './lib/regolith.js';
import { machine } from './lib/stats.js';
import { processTree } from './lib/proc.js';

const ROOT = resolve(import.meta.dirname, '..');

function args(): { seconds: number; workers: number; rate: number } {
  const a = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const i = a.indexOf(name);
    if (i < 0) return undefined;
    const v = a[i + 1];
    a.splice(i, 2);
    return v;
  };
  const workers = Number(flag('--workers') ?? 0);
  const rate = Number(flag('--rate') ?? 2200);
  const d = a[0] ?? '10m';
  const m = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(d);
  if (!m) fail(`duration "${d}": seconds, or a number followed by s or m (e.g. 3m)`);
  return { seconds: Number(m[1]) * (m[2] === 'm' ? 60 : 1), workers, rate };
}

const { seconds: SECONDS, workers: WORKERS, rate: RATE } = args();
const SAMPLE_MS = 10_000;
const BUNDLE_EVERY_MS = 10_000;
/** Samples before this are the warm-up, left out of the slopes. */
const WARMUP_S = Math.min(120, SECONDS * 0.25);

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = netServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

function listen(s: Server): Promise<string> {
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(s.address() as { port: number }).port}`)));
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((r) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => r(Buffer.concat(parts)));
  });
}

// --- the built binary, as a snapshot ------------------------------------------------------
const DIST = join(ROOT, 'dist');
if (!existsSync(join(DIST, 'cli/main.js'))) fail('dist/cli/main.js is missing: run npm run build first');
const SNAP = join(ROOT, `node_modules/.cache/regolith-soak-${process.pid}`);
cpSync(DIST, SNAP, { recursive: true });
const BIN = join(SNAP, 'cli/main.js');
const WORK = mkdtempSync(join(tmpdir(), 'regolith-soak-'));
process.on('exit', () => {
  rmSync(SNAP, { recursive: true, force: true });
  rmSync(WORK, { recursive: true, force: true });
});

// --- the collector: every event, by decision id --------------------------------------------
const ids = new Set<string>();
const col = { events: 0, duplicates: 0, uploads: 0, revisions: new Set<string>() };
const collector = createServer(async (req, res) => {
  const events = JSON.parse(gunzipSync(await body(req)).toString()) as { decision_id: string; bundles?: Record<string, { revision: string }> }[];
  col.uploads++;
  for (const e of events) {
    col.events++;
    if (ids.has(e.decision_id)) col.duplicates++;
    else ids.add(e.decision_id);
    const rev = e.bundles?.['soak']?.revision;
    if (rev) col.revisions.add(rev);
  }
  res.statusCode = 200;
  res.end();
});

// --- the bundle server: a new revision every 10 s ------------------------------------------
const scenario = rbacScenario();
const POLICY = policyText(scenario.policy);
let revision = 0;
let archive: { body: Buffer; etag: string } | undefined;
async function publish(): Promise<void> {
  revision++;
  const rev = `soak-${revision}`;
  const text = POLICY;
  const b: Bundle = {
    manifest: { revision: rev, roots: ['rbac', 'soak'] },
    hasManifest: true,
    data: { ...scenario.data, soak: { revision: rev } } as Bundle['data'],
    dataFiles: [],
    modules: [{ path: 'rbac.rego', url: '/rbac.rego', raw: Buffer.from(text), text, packagePath: ['rbac'] }],
    wasmModules: [],
  };
  archive = { body: await writeBundle(b), etag: `"${rev}"` };
}
const registry = createServer((req, res) => {
  if (!archive || !req.url?.startsWith('/soak.tar.gz')) return void res.writeHead(404).end();
  if (req.headers['if-none-match'] === archive.etag) return void res.writeHead(304).end();
  res.writeHead(200, { etag: archive.etag, 'content-type': 'application/gzip' }).end(archive.body);
});

// --- the package insights stand-in: a new document at every poll ---------------------------
let polls = 0;
const PACKAGES = Array.from({ length: 50 }, (_, i) => `NPM/soak-${i}@1.0.${i}`);
const insights = createServer(async (req, res) => {
  const requests = (JSON.parse((await body(req)).toString()) as { requests: { versionKey: Record<string, string> }[] }).requests;
  polls++;
  const responses = requests.map((r) => ({ request: r, version: { versionKey: r.versionKey, licenses: ['MIT'], publishedAt: new Date().toISOString(), poll: polls } }));
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ responses }));
});

// --- the server's numbers ------------------------------------------------------------------
/** Resident memory (MB) of each process of the server: the primary first, then its workers
 *  in pid order (a replaced worker takes its place in that order). */
function rssByProcess(pid: number): number[] {
  const out: number[] = [];
  for (const p of processTree(pid)) {
    try {
      out.push(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024);
    } catch {
      /* gone */
    }
  }
  return out;
}

function metric(text: string, name: string, filter: (labels: string) => boolean = () => true): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z0-9_:]+)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m && m[1] === name && filter(m[2] ?? '')) sum += Number(m[3]);
  }
  return sum;
}

interface Sample {
  t: number;
  /** RSS of the whole tree, and of each process (primary first). */
  rss: number;
  rssEach: number[];
  /** V8 heap in use (every process), a leak's first sign: RSS also holds what V8 keeps reserved. */
  heap: number;
  lagP99: number;
  lagMax: number;
  probeMs: number;
  decisions: number;
  events: number;
  load: number;
}

async function sample(url: string, pid: number, t0: number): Promise<Sample> {
  const p0 = performance.now();
  await fetch(`${url}/health`).then((r) => r.arrayBuffer());
  const probeMs = performance.now() - p0;
  const text = await (await fetch(`${url}/metrics`)).text();
  const rssEach = rssByProcess(pid);
  return {
    t: (Date.now() - t0) / 1000,
    rss: rssEach.reduce((a, b) => a + b, 0),
    rssEach,
    heap: metric(text, 'nodejs_heap_size_used_bytes') / 2 ** 20,
    lagP99: metric(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
    lagMax: metric(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
    probeMs,
    decisions: decisionsAnswered(text),
    events: col.events,
    load: loadavg()[0]!,
  };
}

/** Decisions answered: POSTs to the Data API with a 200. */
function decisionsAnswered(metricsText: string): number {
  return metric(metricsText, 'http_request_duration_seconds_count', (l) => l.includes('code="200"') && /method="post"/i.test(l) && l.includes('handler="v1/data"'));
}

/** Least-squares slope of y over t (per minute). */
function slopePerMin(xs: Sample[], y: (s: Sample) => number): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mt = xs.reduce((a, s) => a + s.t, 0) / n;
  const my = xs.reduce((a, s) => a + y(s), 0) / n;
  let num = 0;
  let den = 0;
  for (const s of xs) {
    num += (s.t - mt) * (y(s) - my);
    den += (s.t - mt) ** 2;
  }
  return (num / den) * 60;
}

async function waitFor(what: string, fn: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// --- run -----------------------------------------------------------------------------------
const [colURL, regURL, insURL] = [await listen(collector), await listen(registry), await listen(insights)];
await publish();
const bumper = setInterval(() => void publish(), BUNDLE_EVERY_MS);
const config = {
  services: { registry: { url: regURL }, insights: { url: insURL }, collector: { url: colURL } },
  bundles: { soak: { service: 'registry', resource: '/soak.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 2 } } },
  adapters: { pkgs: { type: 'package_insights', service: 'insights', packages: PACKAGES, polling: { min_delay_seconds: 5, max_delay_seconds: 5 } } },
  decision_logs: { service: 'collector', reporting: { min_delay_seconds: 2, max_delay_seconds: 4 } },
};
writeFileSync(join(WORK, 'config.json'), JSON.stringify(config));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
// the server logs errors only: at info it writes a line per request
const server: ChildProcess = spawn(
  process.execPath,
  [BIN, 'run', '--server', '--addr', `127.0.0.1:${port}`, '-c', join(WORK, 'config.json'), '--log-level', 'error', ...(WORKERS ? ['--workers', String(WORKERS)] : [])],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
let serverLog = '';
server.stderr!.on('data', (c: Buffer) => (serverLog += c.toString()));
let exited = false;
server.once('exit', () => (exited = true));
await waitFor('the bundle to activate', async () => exited ? fail(`the server exited:\n${serverLog}`) : (await fetch(`${url}/health?bundles`).then((r) => r.status, () => 0)) === 200, 120_000);

const bodies = scenario.cases.map((c) => `{"input":${c.json}}`);
// many connections each waiting long between requests: the rate hardly depends on the latency
const DELAY_MS = 100;
const CONNS = Math.max(1, Math.round((RATE * DELAY_MS) / 1000));
const lua = join(WORK, 'soak.lua');
writeFileSync(
  lua,
  `local bodies = {${bodies.map((b) => JSON.stringify(b).replace(/\\\//g, '/')).join(',\n')}}
local i = 0
request = function()
  i = i + 1
  return wrk.format("POST", "/v1/data/${scenario.packagePath}/allow", {["content-type"]="application/json"}, bodies[(i % #bodies) + 1])
end
delay = function() return ${DELAY_MS} end
`,
);

console.log(`soak: ${SECONDS}s at ${RATE} decisions/s (wrk, ${CONNS} connections each waiting ${DELAY_MS} ms), ${WORKERS ? `--workers ${WORKERS}` : 'one process'}; ${machine()}, ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log('decision logs to a collector here, a bundle revision every 10 s, an adapter poll every 5 s; samples every 10 s\n');
console.log(`     t   decisions/s   events    RSS MB   heap MB   loop p99 ms   loop max ms   /health ms   load${WORKERS ? '   RSS MB primary/workers' : ''}`);
const t0 = Date.now();
const wrk = spawn('wrk', ['-t1', '--latency', `-c${CONNS}`, `-d${SECONDS}s`, '--timeout', '10s', '-s', lua, url], { stdio: ['ignore', 'pipe', 'inherit'] });
let wrkOut = '';
wrk.stdout.on('data', (c: Buffer) => (wrkOut += c.toString()));
const wrkDone = new Promise<void>((r) => wrk.once('exit', () => r()));
const samples: Sample[] = [];
let last = { t: 0, decisions: 0 };
const sampler = setInterval(() => {
  void sample(url, server.pid!, t0).then((s) => {
    samples.push(s);
    const rate = (s.decisions - last.decisions) / (s.t - last.t);
    last = { t: s.t, decisions: s.decisions };
    if (samples.length % 3 === 0)
      console.log(
        `${s.t.toFixed(0).padStart(6)}   ${rate.toFixed(0).padStart(11)}   ${String(s.events).padStart(7)}   ${s.rss.toFixed(1).padStart(7)}   ${s.heap.toFixed(1).padStart(7)}   ${s.lagP99.toFixed(1).padStart(11)}   ${s.lagMax.toFixed(1).padStart(11)}   ${s.probeMs.toFixed(1).padStart(10)}   ${s.load.toFixed(2)}${WORKERS ? `   ${s.rssEach.map((r) => r.toFixed(0)).join('/')}` : ''}`,
      );
  }, () => undefined);
}, SAMPLE_MS);
await wrkDone;
clearInterval(sampler);
clearInterval(bumper);

// every decision answered must reach the collector
const answered = decisionsAnswered(await (await fetch(`${url}/metrics`)).text());
const tDrain = Date.now();
await waitFor('the collector to have every decision', () => ids.size >= answered, 120_000).catch(() => undefined);
const drainS = (Date.now() - tDrain) / 1000;
const tStop = Date.now();
server.kill('SIGTERM');
await new Promise<void>((r) => (exited ? r() : server.once('exit', () => r())));
const stopS = (Date.now() - tStop) / 1000;
for (const s of [collector, registry, insights]) s.close();

const steady = samples.filter((s) => s.t >= WARMUP_S);
/** Per process (by place: the primary, then the workers in pid order), the samples that have
 *  it and how to read its RSS from one. */
function eachProcess(xs: Sample[]): { ys: Sample[]; at: (s: Sample) => number }[] {
  const n = Math.max(0, ...xs.map((s) => s.rssEach.length));
  return Array.from({ length: n }, (_, i) => ({ ys: xs.filter((s) => s.rssEach[i] !== undefined), at: (s: Sample) => s.rssEach[i]! }));
}
/** The RSS slope over the run's second half: a warm-up longer than the first quarter (the
 *  workers' RSS steps up at ~6 minutes) shows as a slope after it, not in this one. */
function secondHalf(xs: Sample[]): string {
  const late = xs.filter((s) => s.t >= SECONDS / 2);
  const slopes = eachProcess(late).map(({ ys, at }) => slopePerMin(ys, at).toFixed(2));
  const each = WORKERS && slopes.length ? ` (${slopes.join(', ')} MB/min, primary first)` : '';
  return `memory over the second half (${late.length} samples): RSS slope ${slopePerMin(late, (s) => s.rss).toFixed(2)} MB/min${each}; V8 heap slope ${slopePerMin(late, (s) => s.heap).toFixed(2)} MB/min`;
}
/** Each process's RSS range and slope after warm-up (by place: the primary, then the workers in
 *  pid order), so that a climb of the whole tree shows whose it is. */
function perProcess(xs: Sample[]): string {
  return eachProcess(xs).map(({ ys, at }, i) => {
    const range = ys.length ? `${Math.min(...ys.map(at)).toFixed(1)}-${Math.max(...ys.map(at)).toFixed(1)} MB` : '?';
    return `  ${i === 0 ? 'primary' : `worker ${i}`}: RSS ${range}, slope ${slopePerMin(ys, at).toFixed(2)} MB/min`;
  }).join('\n');
}
const lost = answered - ids.size;
const wrkReq = /(\d+) requests in/.exec(wrkOut)?.[1];
const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(wrkOut)?.[1] ?? '0';
const lat = /50%\s+(\S+)[\s\S]*?99%\s+(\S+)/.exec(wrkOut);
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(`
load: ${wrkReq ?? '?'} requests in ${SECONDS}s (${(answered / SECONDS).toFixed(0)} decisions/s answered), non-2xx ${non2xx}, latency p50 ${lat?.[1] ?? '?'} p99 ${lat?.[2] ?? '?'}
decision logs: ${answered} decisions answered, ${col.events} events collected in ${col.uploads} uploads, ${ids.size} distinct ids: ${lost} lost, ${col.duplicates} doubled (the last ones arrived ${drainS.toFixed(1)} s after the load)
bundles: ${revision} revisions published, ${col.revisions.size} seen in decision events; adapter: ${polls} polls
memory after ${WARMUP_S.toFixed(0)} s of warm-up (${steady.length} samples): RSS ${steady.length ? `${Math.min(...steady.map((s) => s.rss)).toFixed(1)}-${Math.max(...steady.map((s) => s.rss)).toFixed(1)} MB` : '?'}, slope ${slopePerMin(steady, (s) => s.rss).toFixed(2)} MB/min; V8 heap in use ${steady.length ? `${Math.min(...steady.map((s) => s.heap)).toFixed(1)}-${Math.max(...steady.map((s) => s.heap)).toFixed(1)} MB` : '?'}, slope ${slopePerMin(steady, (s) => s.heap).toFixed(2)} MB/min
${WORKERS ? `${perProcess(steady)}\n` : ''}${secondHalf(samples)}
event loop after warm-up: p99 ${mean(steady.map((s) => s.lagP99)).toFixed(1)} ms on average (slope ${slopePerMin(steady, (s) => s.lagP99).toFixed(3)} ms/min), /health ${mean(steady.map((s) => s.probeMs)).toFixed(1)} ms (slope ${slopePerMin(steady, (s) => s.probeMs).toFixed(3)} ms/min); machine load ${mean(samples.map((s) => s.load)).toFixed(2)} on average
stop: SIGTERM to exit ${stopS.toFixed(1)} s; server errors logged: ${serverLog.split('\n').filter((l) => l.includes('"level":"error"')).length}`);
const errors = serverLog.split('\n').filter((l) => l.includes('"level":"error"'));
if (errors.length) console.log(`first error lines:\n  ${errors.slice(0, 5).join('\n  ')}`);
if (lost !== 0 || col.duplicates !== 0) {
  console.log('FAIL: decision log events lost or doubled');
  process.exit(1);
}
process.exit(0);
