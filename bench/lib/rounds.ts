// Interleaved load rounds for HTTP benchmarks: several servers (a ceiling, Regolith, an older
// build of it, ...) each loaded in turn by each load generator, round after round with the
// order reversed every other round, so that all of them see the same phases of a shared
// machine's load. Each run records req/s, latency, the server's CPU time per request (from
// the contender's own counter) and the load generator's, and the 1-minute load average.
// Summaries are medians over the rounds; ratios to the first contender are paired per round.

import autocannon from 'autocannon';
import { loadavg } from 'node:os';
import { runWrk, wrkScript, type LoadRequest, type LoadResult, type WrkMode, type WrkScript } from './wrk.js';
import { table } from './stats.js';

/** A load generator's name in the results ('wrk', 'autocannon', or a wrk mode's name). */
export type Generator = string;

/** wrk in a mode of its own (pipelining, checking every answer), pinned to `cpus` if given. */
export interface WrkGenerator extends WrkMode {
  name: string;
  /** taskset's CPU list for wrk (e.g. "1"). */
  cpus?: string;
}

/** 'wrk': one thread, no pipelining, no check (the runs before pipelining); 'autocannon'. */
export type GeneratorSpec = 'wrk' | 'autocannon' | WrkGenerator;

const nameOf = (g: GeneratorSpec): Generator => (typeof g === 'string' ? g : g.name);

export interface Contender {
  name: string;
  url: string;
  /**
   * The server's CPU time so far (µs, every process of it), in user space and in the kernel
   * (loopback TCP is mostly the kernel's); `main`, when known: its main threads' part.
   */
  cpu(): Promise<{ user: number; system: number; main?: number }>;
}

export interface RunFigures extends LoadResult {
  /** Server CPU per request (µs), and its part in user space. */
  serverCpu: number;
  serverUser: number;
  /** The server's main threads' CPU per request (µs), when the contender reports it (else NaN). */
  serverMain: number;
  /** Load generator CPU per request (µs). */
  clientPerReq: number;
  /** 1-minute load average when the run ended. */
  load: number;
}

export interface RoundOptions {
  generators: readonly GeneratorSpec[];
  rounds: number;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  /**
   * Seconds of load for each contender and generator before the first round. For a wrk
   * mode, the warm-up checks every answer (its script with `check`).
   */
  warmup?: number;
  /** Called after each run (progress lines). */
  onRun?: (gen: Generator, c: Contender, f: RunFigures, round: number) => void;
}

export async function autocannonRun(url: string, requests: readonly LoadRequest[], seconds: number, connections: number, headers: Record<string, string> = {}): Promise<LoadResult> {
  const u0 = process.cpuUsage();
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    requests: requests.map((q) => ({ method: 'POST', path: q.path, body: q.body })),
  });
  const u = process.cpuUsage(u0);
  return { requests: r.requests.total, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, clientCpu: u.user + u.system, bad: r.errors + r.non2xx + r.timeouts };
}

/** Results: generator -> contender name -> one entry per round. */
export type RoundResults = Map<Generator, Map<string, RunFigures[]>>;

export async function interleaved(contenders: readonly Contender[], requests: readonly LoadRequest[], o: RoundOptions): Promise<RoundResults> {
  const scripts = new Map<Generator, WrkScript>();
  const checking = new Map<Generator, WrkScript>();
  for (const g of o.generators) {
    if (g === 'autocannon') continue;
    const mode = g === 'wrk' ? { pipeline: 1, check: false } : g;
    scripts.set(nameOf(g), wrkScript(requests, o.headers, mode));
    if (requests.every((q) => q.expect !== undefined)) checking.set(nameOf(g), wrkScript(requests, o.headers, { ...mode, check: true }));
  }
  const load = (g: GeneratorSpec, url: string, seconds: number, check = false): Promise<LoadResult> => {
    if (g === 'autocannon') return autocannonRun(url, requests, seconds, o.connections, o.headers);
    const script = (check ? checking.get(nameOf(g)) : undefined) ?? scripts.get(nameOf(g))!;
    return runWrk(url, script, seconds, o.connections, g === 'wrk' ? undefined : g.cpus);
  };
  const out: RoundResults = new Map(o.generators.map((g) => [nameOf(g), new Map(contenders.map((c) => [c.name, []]))]));
  for (const g of o.generators) {
    for (const c of contenders) {
      const r = await load(g, c.url, o.warmup ?? 2, true);
      if (r.bad) throw new Error(`${c.name} under ${nameOf(g)} (warm-up): ${r.bad} failed requests (non-2xx, wrong answers, socket errors or timeouts)`);
    }
  }
  for (let round = 0; round < o.rounds; round++) {
    const order = round % 2 ? [...contenders].reverse() : contenders;
    for (const g of o.generators) {
      const gen = nameOf(g);
      for (const c of order) {
        const c0 = await c.cpu();
        const r = await load(g, c.url, o.seconds);
        const c1 = await c.cpu();
        if (r.bad) throw new Error(`${c.name} under ${gen}: ${r.bad} failed requests (non-2xx, wrong answers, socket errors or timeouts)`);
        const n = Math.max(1, r.requests);
        const f: RunFigures = { ...r, serverCpu: (c1.user + c1.system - c0.user - c0.system) / n, serverUser: (c1.user - c0.user) / n, serverMain: c1.main !== undefined && c0.main !== undefined ? (c1.main - c0.main) / n : NaN, clientPerReq: r.clientCpu / n, load: loadavg()[0]! };
        out.get(gen)!.get(c.name)!.push(f);
        o.onRun?.(gen, c, f, round);
      }
    }
  }
  return out;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface Summary {
  gen: Generator;
  name: string;
  rps: number;
  /** Median over rounds of (this contender's req/s / the first contender's) in the same round. */
  ratio: number;
  ratios: number[];
  serverCpu: number;
  serverUser: number;
  serverMain: number;
  /** Median over rounds of (this contender's CPU per request / the first contender's). */
  cpuRatio: number;
  clientPerReq: number;
  p99: number;
  loads: number[];
}

export function summarize(res: RoundResults): Summary[] {
  const out: Summary[] = [];
  for (const [gen, byName] of res) {
    const [base] = [...byName.values()];
    for (const [name, runs] of byName) {
      const ratios = runs.map((f, i) => f.rps / base![i]!.rps);
      out.push({
        gen,
        name,
        rps: median(runs.map((f) => f.rps)),
        ratio: median(ratios),
        ratios,
        serverCpu: median(runs.map((f) => f.serverCpu)),
        serverUser: median(runs.map((f) => f.serverUser)),
        serverMain: median(runs.map((f) => f.serverMain)),
        cpuRatio: median(runs.map((f, i) => f.serverCpu / base![i]!.serverCpu)),
        clientPerReq: median(runs.map((f) => f.clientPerReq)),
        p99: median(runs.map((f) => f.p99)),
        loads: runs.map((f) => f.load),
      });
    }
  }
  return out;
}

/** Median over rounds of a's req/s and CPU per request against b's in the same round (e.g. 2 workers against 1). */
export function paired(res: RoundResults, gen: Generator, a: string, b: string): { rps: number; cpu: number } {
  const x = res.get(gen)!.get(a)!;
  const y = res.get(gen)!.get(b)!;
  return { rps: median(x.map((f, i) => f.rps / y[i]!.rps)), cpu: median(x.map((f, i) => f.serverCpu / y[i]!.serverCpu)) };
}

/** One row per generator and contender; `of` names the first contender (what ratios are of). */
export function summaryTable(rows: readonly Summary[], of: string): string {
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  return table([
    ['load generator', 'server', 'req/s (median)', `x ${of} (per round)`, 'server CPU/req', 'of it user', `CPU x ${of}`, 'generator CPU/req', 'p99', 'load avg (1 min)'],
    ...rows.map((s) => [
      s.gen,
      s.name,
      fmt(s.rps),
      `${s.ratio.toFixed(2)} (${s.ratios.map((r) => r.toFixed(2)).join(', ')})`,
      `${s.serverCpu.toFixed(1)} µs`,
      `${s.serverUser.toFixed(1)} µs`,
      s.cpuRatio.toFixed(2),
      `${s.clientPerReq.toFixed(1)} µs`,
      `${s.p99.toFixed(2)} ms`,
      `${Math.min(...s.loads).toFixed(1)}–${Math.max(...s.loads).toFixed(1)}`,
    ]),
  ]);
}
