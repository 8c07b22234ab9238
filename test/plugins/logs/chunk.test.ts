// The decision-log chunk encoder: gzipped JSON arrays never over upload_size_limit_bytes,
// every event in exactly one chunk and in order, events that can never fit left out, and
// work linear in the events. The work is counted (bytes handed to gzip, through wrappers
// around node:zlib's asynchronous gzip and its gzip stream), not timed, so CPU noise cannot make it pass or fail:
// an encoder that compresses the growing chunk again for each event hands gzip hundreds of
// times the events' own size. gzipSync is counted apart: the encoder must never call it
// (it would stall the event loop a few ms per chunk).

import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../../seeded-random.js';

const zlibWork = vi.hoisted(() => ({ calls: 0, bytes: 0, budget: Infinity, syncCalls: 0 }));
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof import('node:zlib')>();
  type Callback = (err: Error | null, out: Buffer) => void;
  const gzip = (buf: Parameters<typeof zlib.gzipSync>[0], opts: import('node:zlib').ZlibOptions | Callback, callback?: Callback): void => {
    const cb = typeof opts === 'function' ? opts : callback!;
    zlibWork.calls++;
    zlibWork.bytes += typeof buf === 'string' ? Buffer.byteLength(buf) : (buf as ArrayBufferView).byteLength;
    // fail fast instead of spending minutes in a quadratic encoder
    if (zlibWork.bytes > zlibWork.budget) return cb(new Error(`gzip work over budget: ${zlibWork.bytes} bytes in ${zlibWork.calls} calls`), Buffer.alloc(0));
    zlib.gzip(buf, typeof opts === 'function' ? {} : opts, cb);
  };
  const gzipSync = (buf: Parameters<typeof zlib.gzipSync>[0], opts?: Parameters<typeof zlib.gzipSync>[1]): Buffer => {
    zlibWork.syncCalls++;
    return zlib.gzipSync(buf, opts);
  };
  // The encoder's reused stream: each chunk is one write
  const createGzip = (opts?: import('node:zlib').ZlibOptions): import('node:zlib').Gzip => {
    const z = zlib.createGzip(opts);
    const write = z.write.bind(z) as (chunk: Buffer, ...rest: unknown[]) => boolean;
    (z as { write: unknown }).write = (chunk: Buffer, ...rest: unknown[]): boolean => {
      if (!chunk.byteLength) return write(chunk, ...rest); // flush() writes an empty chunk
      zlibWork.calls++;
      zlibWork.bytes += chunk.byteLength;
      if (zlibWork.bytes > zlibWork.budget) {
        process.nextTick(() => z.destroy(new Error(`gzip work over budget: ${zlibWork.bytes} bytes in ${zlibWork.calls} calls`)));
        return false;
      }
      return write(chunk, ...rest);
    };
    return z;
  };
  return { ...zlib, default: { ...zlib, gzip, gzipSync, createGzip }, gzip, gzipSync, createGzip };
});

const { ChunkEncoder, chunkEvents, safeRawSize } = await import('../../../src/plugins/logs/chunk.js');
const { ByteQueue } = await import('../../../src/plugins/logs/byte-queue.js');

afterEach(() => {
  // the encoder compresses on the thread pool only
  expect(zlibWork.syncCalls).toBe(0);
  zlibWork.syncCalls = 0;
  zlibWork.calls = 0;
  zlibWork.bytes = 0;
  zlibWork.budget = Infinity;
});

const ROLES = ['admin', 'viewer', 'editor', 'billing', 'support'];
const PATHS = ['/v1/orders', '/v1/users', '/v1/invoices', '/v1/reports', '/healthz'];

/** Decision events shaped as the plugin encodes them (~350 bytes, compressing ~5-10x in bulk). */
function decisionEvents(n: number, seed = 1): string[] {
  const r = seededRandom(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      JSON.stringify({
        labels: { id: 'b7a3f1c2-6f0e-4d55-9a43-0e2f7c1d9b10', version: '0.1.0' },
        decision_id: randomUUID(),
        path: 'rbac/allow',
        input: { user: `user-${Math.floor(r() * 1000)}`, role: pick(ROLES), method: pick(['GET', 'POST', 'DELETE']), path: pick(PATHS) },
        result: r() < 0.7,
        requested_by: '127.0.0.1:' + (40000 + Math.floor(r() * 20000)),
        timestamp: new Date(1767225600000 + i * 7).toISOString(),
        metrics: { timer_rego_query_eval_ns: Math.floor(r() * 90000), timer_server_handler_ns: Math.floor(r() * 200000) },
      }),
    );
  }
  return out;
}

/** Events whose content is random hex (gzip gains ~2x at best). */
function noisyEvents(n: number, bytes: number, seed = 2): string[] {
  const r = seededRandom(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let hex = '';
    while (hex.length < bytes) hex += Math.floor(r() * 0x100000000).toString(16).padStart(8, '0');
    out.push(JSON.stringify({ decision_id: `n${i}`, input: { noise: hex.slice(0, bytes) } }));
  }
  return out;
}

const rawBytes = (events: string[]) => events.reduce((n, e) => n + Buffer.byteLength(e) + 1, 1);

/** Checks the chunks: each under the limit, each body the JSON array of its events, all events once in order. */
function checkChunks(events: string[], limit: number, res: { chunks: { body: Buffer; events: string[] }[]; tooLarge: string[] }): void {
  for (const c of res.chunks) {
    expect(c.body.length).toBeLessThanOrEqual(limit);
    expect(c.events.length).toBeGreaterThan(0);
    expect(gunzipSync(c.body).toString()).toBe('[' + c.events.join(',') + ']');
  }
  const tooLarge = new Set(res.tooLarge);
  expect(res.chunks.flatMap((c) => c.events)).toEqual(events.filter((e) => !tooLarge.has(e)));
}

describe('chunk encoder', () => {
  it('does work linear in the events: each byte is compressed about once, for 1k and 10k events', async () => {
    for (const limit of [32768, 1024 * 1024]) {
      const work: number[] = [];
      for (const n of [1000, 10000]) {
        const events = decisionEvents(n, n);
        const raw = rawBytes(events);
        zlibWork.bytes = 0;
        zlibWork.budget = 4 * raw;
        const res = await chunkEvents(events, limit);
        checkChunks(events, limit, res);
        expect(res.tooLarge).toEqual([]);
        // the events' own size, plus a little for chunks that had to be cut again
        expect(zlibWork.bytes / raw).toBeGreaterThanOrEqual(1);
        expect(zlibWork.bytes / raw).toBeLessThan(2);
        work.push(zlibWork.bytes);
      }
      // 10x the events, ~10x the work (quadratic would be ~100x)
      expect(work[1]! / work[0]!).toBeGreaterThan(8);
      expect(work[1]! / work[0]!).toBeLessThan(12.5);
    }
  });

  it('keeps the per-event work constant across batch sizes when one encoder serves many uploads', async () => {
    const enc = new ChunkEncoder(32768);
    const perByte: number[] = [];
    for (const batch of [10, 100, 1000, 10000]) {
      const events = decisionEvents(batch, batch + 7);
      const before = enc.work.bytesGzipped;
      const { chunks } = await chunkEvents(events, 32768, enc);
      expect(chunks.flatMap((c) => c.events)).toEqual(events);
      for (const c of chunks) expect(c.body.length).toBeLessThanOrEqual(32768);
      perByte.push((enc.work.bytesGzipped - before) / rawBytes(events));
    }
    for (const w of perByte) expect(w).toBeLessThan(2);
    expect(enc.work.bytesGzipped).toBe(zlibWork.bytes);
  });

  it('fills chunks close to the limit once it has seen how the events compress', async () => {
    const limit = 32768;
    const { chunks } = await chunkEvents(decisionEvents(20000), limit);
    // the first chunks are small while the encoder learns; the full ones are mostly > 80%
    const full = chunks.slice(3, -1);
    expect(full.length).toBeGreaterThan(3);
    const avg = full.reduce((n, c) => n + c.body.length, 0) / full.length;
    expect(avg).toBeGreaterThan(0.8 * limit);
    expect(chunks.length).toBeLessThan(Math.ceil(chunks.reduce((n, c) => n + c.body.length, 0) / (0.8 * limit)) + 4);
  });

  it('never exceeds the limit when the events suddenly compress worse, and stays linear', async () => {
    for (const limit of [600, 4096, 32768]) {
      // very compressible, then incompressible, then mixed: the learnt raw size overshoots
      const events = [...decisionEvents(3000, 3), ...noisyEvents(300, 200), ...decisionEvents(500, 4).flatMap((e, i) => (i % 5 ? [e] : [e, noisyEvents(1, 150, i)[0]!]))];
      const raw = rawBytes(events);
      zlibWork.bytes = 0;
      zlibWork.budget = 6 * raw;
      const res = await chunkEvents(events, limit);
      checkChunks(events, limit, res);
      expect(res.tooLarge).toEqual([]);
      expect(zlibWork.bytes / raw).toBeLessThan(4);
    }
  });

  it('leaves out an event that alone exceeds the limit once compressed, and keeps its neighbours', async () => {
    const limit = 600;
    const small = decisionEvents(40, 5);
    const huge = noisyEvents(2, 1500, 9);
    const events = [...small.slice(0, 20), huge[0]!, ...small.slice(20), huge[1]!];
    const res = await chunkEvents(events, limit);
    expect(res.tooLarge).toEqual(huge);
    checkChunks(events, limit, res);
  });

  it('sends an event larger than the limit raw when it compresses under it, in a chunk of its own if need be', async () => {
    const limit = 600;
    const big = JSON.stringify({ decision_id: 'big', input: { text: 'all work and no play '.repeat(200) } });
    expect(Buffer.byteLength(big)).toBeGreaterThan(limit);
    const events = [...decisionEvents(5, 6), big, ...decisionEvents(5, 7)];
    const res = await chunkEvents(events, limit);
    expect(res.tooLarge).toEqual([]);
    checkChunks(events, limit, res);
  });

  it('handles limits around the gzip framing: a chunk of safeRawSize raw bytes always fits', async () => {
    for (const limit of [100, 300, 1000, 70000, 200000]) {
      const size = safeRawSize(limit);
      // incompressible JSON: a string of random base64 characters
      const r = seededRandom(limit);
      let s = '';
      const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      while (s.length < size - 4) s += abc[Math.floor(r() * 64)];
      const res = await chunkEvents([JSON.stringify(s)], limit);
      expect(res.tooLarge).toEqual([]);
      expect(res.chunks[0]!.body.length).toBeLessThanOrEqual(limit);
    }
    // the same with many small incompressible events: all chunks fit
    const events = noisyEvents(500, 40, 11);
    for (const limit of [120, 200, 1000]) checkChunks(events, limit, await chunkEvents(events, limit));
  });

  it('takes events from a queue without removing them, and reports where the next chunk starts', async () => {
    const enc = new ChunkEncoder(32768);
    const q = new ByteQueue();
    const events = decisionEvents(30, 8);
    for (const e of events) q.push(e);
    const r = await enc.next(q, q.first + 10);
    expect(r.next).toBe(q.end);
    expect(r.chunks).toHaveLength(1);
    expect(r.chunks[0]).toMatchObject({ from: q.first + 10, to: q.end });
    expect(gunzipSync(r.chunks[0]!.body).toString()).toBe('[' + events.slice(10).join(',') + ']');
    expect(q.length).toBe(30);
    expect(q.text(q.first)).toBe(events[0]);
    q.clear();
  });

  it('compresses off the event loop: other work runs while a chunk is gzipped, and a gzip failure loses nothing', async () => {
    const enc = new ChunkEncoder(1024 * 1024);
    const events = decisionEvents(20000, 12);
    const q = new ByteQueue();
    for (const e of events) q.push(e);
    let turns = 0;
    let done = false;
    const spin = (): void => {
      turns++;
      if (!done) setImmediate(spin);
    };
    setImmediate(spin);
    const r = await enc.next(q, q.first);
    done = true;
    // gzipSync (or gzip awaited without the thread pool) would resolve before any turn of the loop
    expect(turns).toBeGreaterThan(0);
    const taken = r.next - q.first;
    expect(taken).toBeGreaterThan(1000);
    expect(r.chunks.map((c) => [c.from, c.to])).toEqual([[q.first, r.next]]);

    // a failing gzip leaves every event in the queue, in order
    zlibWork.budget = zlibWork.bytes;
    await expect(enc.next(q, r.next)).rejects.toThrow(/over budget/);
    expect(q.length).toBe(events.length);
    for (let s = r.next; s < r.next + 100; s++) expect(q.text(s)).toBe(events[s - q.first]);
    q.clear();
  });
});
