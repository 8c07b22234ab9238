// wrk (Debian's, written in C) as a load generator beside autocannon: it leaves the server
// most of a core on a 2-core machine, where autocannon (JavaScript) takes ~0.7 of one.
// The request bodies rotate through a Lua script; wrk's own CPU time comes from bash's
// `times` (the children's user + system), so a run reports what the generator used.
// Pipelining (wrk's documented pipeline example: one write carries several requests) cuts
// wrk's CPU per request, so that on a machine it shares with the server it takes less of
// the server's cores; with `check`, every answer is compared with the one expected at its
// place in the pipeline (Node answers pipelined requests in order).

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoadRequest {
  path: string;
  body: string;
  /** The exact response body expected (status 200); needed by a checking script. */
  expect?: string;
}

/** How wrk sends: requests per write, and whether each answer is checked. */
export interface WrkMode {
  /** Requests written at once on a connection (1: no pipelining). */
  pipeline: number;
  /**
   * Compare every answer with the request's `expect` (and status 200). Lua sees the answers
   * of a thread, not of a connection, so a checking run has one thread per connection.
   */
  check: boolean;
  /**
   * Milliseconds each connection waits before each write (wrk's `delay()`): every server gets
   * about the same request rate (connections / (delay + latency)), so CPU per request compares
   * servers at one rate instead of each at its own maximum, where the faster server also
   * answers more requests per wake-up (less kernel and event-loop time per request).
   */
  delayMs?: number;
}

/** A script file and how it must be run. */
export interface WrkScript {
  file: string;
  mode: WrkMode;
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

/**
 * Writes a Lua script for `wrk -s` that sends `requests` in turn, each a POST with a JSON
 * body, `mode.pipeline` per write; with `mode.check`, it also checks every answer.
 */
export function wrkScript(requests: readonly LoadRequest[], headers: Record<string, string> = {}, mode: WrkMode = { pipeline: 1, check: false }): WrkScript {
  const file = join(mkdtempSync(join(tmpdir(), 'regolith-wrk-')), 'requests.lua');
  const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string for this text (no \u escapes in our bodies)
  if (!Number.isInteger(mode.pipeline) || mode.pipeline < 1) throw new Error(`wrk script: pipeline must be a positive integer, not ${mode.pipeline}`);
  if (mode.check && requests.some((q) => q.expect === undefined)) throw new Error('wrk script: a checking script needs every request\'s expected answer');
  if (mode.delayMs !== undefined && !(mode.delayMs > 0)) throw new Error(`wrk script: delayMs must be a positive number of milliseconds, not ${mode.delayMs}`);
  const texts = requests.flatMap((q) => [q.path, q.body, q.expect ?? '']);
  if (texts.some((t) => /\\u/.test(lua(t)))) throw new Error('wrk script: texts with \\u escapes are not supported');
  const hs = Object.entries({ 'content-type': 'application/json', ...headers })
    .map(([k, v]) => `[${lua(k)}]=${lua(v)}`)
    .join(', ');
  // The requests are formatted once per thread in init (wrk sets the Host header before
  // it; at load time the requests would have none, and Node answers those 400): wrk.format
  // per request would cost wrk's CPU. Batch k holds requests k*depth .. k*depth+depth-1
  // (modulo their number), so every request is sent as often as the others; request() is
  // called for each write, that is once per batch, after every answer to the last one.
  // With a check, answer `pos` of batch k is that of request k*depth+pos. A connection the
  // server closes (`Connection: close`, workers rebalancing) loses the rest of its batch:
  // wrk reconnects and asks for the next batch, which starts again at pos 0.
  const text = `local bodies = {
${requests.map((q) => `  {${lua(q.path)}, ${lua(q.body)}, ${lua(q.expect ?? '')}}`).join(',\n')}
}
local depth = ${mode.pipeline}
local n = #bodies
local batches = {}
local nbatches = 0
function init(args)
  local reqs = {}
  for i, b in ipairs(bodies) do reqs[i] = wrk.format("POST", b[1], {${hs}}, b[2]) end
  local a, b = n, depth
  while b > 0 do a, b = b, a % b end
  nbatches = n / a
  for k = 0, nbatches - 1 do
    local parts = {}
    for j = 0, depth - 1 do parts[j + 1] = reqs[((k * depth + j) % n) + 1] end
    batches[k] = table.concat(parts)
  end
end
local k = -1
local pos = 0
request = function()
  k = (k + 1) % nbatches
  pos = 0
  return batches[k]
end
${mode.delayMs !== undefined ? `function delay() return ${mode.delayMs} end\n` : ''}${
  mode.check
    ? `checked = 0
wrong = 0
response = function(status, headers, body)
  local i = ((k * depth + pos) % n) + 1
  pos = pos + 1
  checked = checked + 1
  if status ~= 200 or body ~= bodies[i][3] then wrong = wrong + 1 end
end
local threads = {}
function setup(thread) table.insert(threads, thread) end
function done(summary, latency, requests)
  local c, w = 0, 0
  for _, t in ipairs(threads) do c = c + t:get("checked"); w = w + t:get("wrong") end
  io.write(string.format("answers checked: %d, wrong: %d\\n", c, w))
end
`
    : ''
}`;
  writeFileSync(file, text);
  return { file, mode };
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
 * Runs wrk for `seconds` against `url` with a script from wrkScript(): one thread for all
 * `connections`, or one per connection when the script checks the answers. `cpus` pins wrk
 * (taskset's list, e.g. "1"). Asynchronous, so the caller's event loop stays free for its IPC.
 */
export function runWrk(url: string, script: WrkScript, seconds: number, connections: number, cpus?: string): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const threads = script.mode.check ? connections : 1;
    const wrk = ['wrk', `-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script.file, url];
    const argv = cpus === undefined ? wrk : ['taskset', '-c', cpus, ...wrk];
    const child = spawn('bash', ['-c', '"$@" && times >&2', 'wrk', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      let bad = non2xx + (sock ? Number(sock[1]) + Number(sock[2]) + Number(sock[3]) + Number(sock[4]) : 0);
      if (!Number.isFinite(requests) || !Number.isFinite(rps)) return reject(new Error(`could not read wrk's output:\n${out}`));
      if (script.mode.check) {
        const c = /answers checked: (\d+), wrong: (\d+)/.exec(out);
        if (!c) return reject(new Error(`wrk's script did not report its check:\n${out}`));
        // every answer wrk counted went through the check, and none differed
        if (Number(c[1]) !== requests) return reject(new Error(`wrk counted ${requests} answers, its script checked ${c[1]}`));
        bad += Number(c[2]);
      }
      resolve({ requests, rps, p50, p99, clientCpu: childrenCpu(err), bad });
    });
  });
}
