// wrk (Debian's, written in C) as a load generator beside autocannon: it leaves the server
// most of a core on a 2-core machine, where autocannon (JavaScript) takes ~0.7 of one.
// The request bodies rotate through a Lua script; wrk's own CPU time comes from bash's
// `times` (the children's user + system), so a run reports what the generator used.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoadRequest {
  path: string;
  body: string;
}

export interface LoadResult {
  requests: number;
  /** Requests per second over the run. */
  rps: number;
  /** Latency percentiles (ms). */
  p50: number;
  p99: number;
  /** The load generator's own CPU time (µs, user + system) over the run. */
  clientCpu: number;
  /** Non-2xx responses, socket errors and timeouts together. */
  bad: number;
}

/** Writes a Lua script for `wrk -s` that sends `requests` in turn, each a POST with a JSON body. */
export function wrkScript(requests: readonly LoadRequest[], headers: Record<string, string> = {}): string {
  const file = join(mkdtempSync(join(tmpdir(), 'regolith-wrk-')), 'requests.lua');
  const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string for this text (no \u escapes in our bodies)
  const hs = Object.entries({ 'content-type': 'application/json', ...headers })
    .map(([k, v]) => `[${lua(k)}]=${lua(v)}`)
    .join(', ');
  // one formatted request per body, made once per thread in init (wrk sets the Host header
  // before it; at load time the requests would have none, and Node answers those 400):
  // wrk.format per request would cost wrk's CPU
  const text = `local bodies = {
${requests.map((q) => `  {${lua(q.path)}, ${lua(q.body)}}`).join(',\n')}
}
local reqs = {}
function init(args)
  for i, b in ipairs(bodies) do reqs[i] = wrk.format("POST", b[1], {${hs}}, b[2]) end
end
local i = 0
request = function()
  i = i + 1
  return reqs[(i % #reqs) + 1]
end
`;
  if (requests.some((q) => /\\u/.test(lua(q.body)) || /\\u/.test(lua(q.path)))) throw new Error('wrk script: bodies with \\u escapes are not supported');
  writeFileSync(file, text);
  return file;
}

/** wrk's duration text ("1.23ms", "850.00us", "1.02s") in ms. */
function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 'ms' ? v : m[2] === 's' ? v * 1000 : v * 60_000;
}

/** bash `times` prints "0m1.234s 0m0.567s" for the shell, then for its children. */
function childrenCpu(text: string): number {
  const lines = text.trim().split('\n');
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(lines[lines.length - 1] ?? '');
  if (!m) return NaN;
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1e6;
}

/**
 * Runs wrk (1 thread, `connections` connections) for `seconds` against `url` with a script
 * from wrkScript(). Asynchronous, so the caller's event loop stays free for its IPC.
 */
export function runWrk(url: string, script: string, seconds: number, connections: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'wrk "$@" && times >&2', 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${err || out}`));
      const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      const p50 = ms(/\s50%\s+(\S+)/.exec(out)?.[1] ?? '');
      const p99 = ms(/\s99%\s+(\S+)/.exec(out)?.[1] ?? '');
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const bad = non2xx + (sock ? Number(sock[1]) + Number(sock[2]) + Number(sock[3]) + Number(sock[4]) : 0);
      if (!Number.isFinite(requests) || !Number.isFinite(rps)) return reject(new Error(`could not read wrk's output:\n${out}`));
      resolve({ requests, rps, p50, p99, clientCpu: childrenCpu(err), bad });
    });
  });
}
