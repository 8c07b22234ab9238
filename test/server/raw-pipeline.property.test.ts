// Property: however requests are pipelined on one connection and however their bytes are
// cut into writes, each gets the answer it gets alone through Node's own path. Generated
// pipelines mix decisions answered at once, decisions whose answer waits (gzip on the
// thread pool), and requests only Node reads (a query string, a GET, a header twice), cut
// at random bytes with pauses between the writes; the answers (status, body, gzip or not)
// must come in order and equal those of each request sent alone with a header twice (so
// that Node reads it: handed over at its first byte, the simplest hand-over). This is the connection state machine of src/server/raw-decisions.ts:
// hand-over mid-stream, answers awaited while more requests wait, reads resumed in order.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { rawCounts } from '../../src/server/raw-decisions.js';
import { seededRandom } from '../seeded-random.js';

const RUNS = Number(process.env['RAW_PIPELINE_RUNS'] ?? 40);
const SEED = Number(process.env['RAW_PIPELINE_SEED'] ?? 20261127);

let s: RunningServer;
beforeAll(async () => {
  const engine = new RegolithEngine();
  await engine.putPolicy('p.rego', 'package p\n\necho := input\n\nsize := count(input)\n');
  s = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false, gzip: { minLength: 200 } });
});
afterAll(() => s.close());

type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);

/** One request's bytes; `twice` adds a header twice (Node's path then reads it). */
function requestBytes(r: Rand, twice: boolean): Buffer {
  const kind = int(r, 10);
  const input = Array.from({ length: int(r, kind === 0 ? 60 : 6) }, (_, i) => `v${i}-${'z'.repeat(int(r, 12))}`);
  const body = JSON.stringify({ input });
  const extra = twice ? ['X-Twice: a', 'X-Twice: b'] : [];
  if (kind === 1) return Buffer.from([`GET /v1/data/p/size HTTP/1.1`, 'Host: t', ...extra, '', ''].join('\r\n'));
  const path = kind === 2 ? '/v1/data/p/echo?pretty=true' : kind === 3 ? '/v1/data/p/size' : '/v1/data/p/echo';
  // big inputs with gzip accepted: the answer is gzipped on the thread pool (it waits)
  const headers = ['Host: t', 'Content-Type: application/json', ...(kind === 0 || kind === 4 ? ['Accept-Encoding: gzip'] : []), ...(kind === 5 ? ['X-Twice: a', 'X-Twice: b'] : []), ...(kind === 5 ? [] : extra), `Content-Length: ${Buffer.byteLength(body)}`];
  return Buffer.from(`POST ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n${body}`);
}

interface Answer {
  status: string;
  gzip: boolean;
  body: string;
}

/** Whole responses in `b`, by Content-Length. */
function answers(b: Buffer): Answer[] {
  const out: Answer[] = [];
  let at = 0;
  for (;;) {
    const end = b.indexOf('\r\n\r\n', at);
    if (end < 0) return out;
    const head = b.toString('latin1', at, end);
    const len = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (b.length < end + 4 + len) return out;
    const raw = b.subarray(end + 4, end + 4 + len);
    const gzip = /\r\ncontent-encoding: gzip/i.test(head);
    out.push({ status: head.slice(0, head.indexOf('\r\n')), gzip, body: (gzip ? gunzipSync(raw) : raw).toString('utf8') });
    at = end + 4 + len;
  }
}

/** Writes `parts` with the given pauses on one connection; resolves with the `n` answers (or what came before a close). */
function exchange(parts: Buffer[], pauses: number[], n: number): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const c = connect(s.port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      c.destroy();
      resolve(answers(data));
    }, 20_000);
    c.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d]);
      const got = answers(data);
      if (got.length >= n) {
        clearTimeout(timer);
        c.destroy();
        resolve(got);
      }
    });
    c.on('error', reject);
    c.on('connect', async () => {
      for (let i = 0; i < parts.length; i++) {
        if (pauses[i]) await new Promise((r) => setTimeout(r, pauses[i]));
        c.write(parts[i]!);
      }
    });
  });
}

describe('pipelined requests on the socket path', () => {
  it(`answer as each request alone through Node's path (${RUNS} generated pipelines, seed ${SEED})`, async () => {
    const r = seededRandom(SEED);
    const before = { ...rawCounts };
    let gzipped = 0;
    for (let run = 0; run < RUNS; run++) {
      const n = 1 + int(r, 7);
      const seeds = Array.from({ length: n }, () => int(r, 1 << 30));
      const reqs = seeds.map((x) => requestBytes(seededRandom(x), false));
      const alone = await Promise.all(seeds.map((x) => exchange([requestBytes(seededRandom(x), true)], [0], 1)));
      // the pipeline, cut at random bytes into 1 to 4 writes, 0-15 ms apart
      const all = Buffer.concat(reqs);
      const cuts = [...new Set(Array.from({ length: int(r, 4) }, () => 1 + int(r, all.length - 1)))].sort((a, b) => a - b);
      const parts = [0, ...cuts].map((c, i, xs) => all.subarray(c, xs[i + 1] ?? all.length));
      const pauses = parts.map(() => int(r, 16));
      const got = await exchange(parts, pauses, n);
      expect(got, `run ${run}: ${n} requests in ${parts.length} writes`).toEqual(alone.map((a) => a[0]));
      gzipped += got.filter((a) => a.gzip).length;
    }
    // answers that waited (gzip) were among them
    expect(gzipped).toBeGreaterThan(RUNS / 10);
    // both paths were exercised: requests answered on the socket and connections handed to Node
    expect(rawCounts.answered - before.answered).toBeGreaterThan(RUNS / 2);
    expect(rawCounts.handedOver - before.handedOver).toBeGreaterThan(RUNS / 4);
  }, 120_000);
});
