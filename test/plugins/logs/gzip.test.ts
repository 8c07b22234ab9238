// The encoder's reused gzip stream: every input comes out as a complete gzip member (one
// stream, reset between inputs), finished in the one write that hands it to zlib (a second
// write, to flush, was a second round trip to the thread pool), a second input at the same
// time gets its own, and a stream that fails is not used again.

import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';

const made = vi.hoisted(() => ({ streams: 0, writes: 0, failNext: false }));
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof import('node:zlib')>();
  const createGzip = (o?: import('node:zlib').ZlibOptions): import('node:zlib').Gzip => {
    made.streams++;
    const z = zlib.createGzip(o);
    const write = z.write.bind(z) as (chunk: Buffer, ...rest: unknown[]) => boolean;
    (z as { write: unknown }).write = (chunk: Buffer, ...rest: unknown[]): boolean => {
      made.writes++;
      if (made.failNext && chunk.byteLength) {
        made.failNext = false;
        process.nextTick(() => z.destroy(new Error('deflate failed')));
        return false;
      }
      return write(chunk, ...rest);
    };
    return z;
  };
  return { ...zlib, default: { ...zlib, createGzip }, createGzip };
});

const { ChunkGzip } = await import('../../../src/plugins/logs/gzip.js');

const input = (i: number): Buffer => Buffer.from(JSON.stringify(Array.from({ length: 50 + i * 37 }, (_, k) => ({ k, i, s: 'event '.repeat(k % 9) }))));

describe('ChunkGzip', () => {
  it('compresses input after input through one stream, each a complete gzip member', async () => {
    const gz = new ChunkGzip({ level: 1 });
    const before = made.streams;
    for (let i = 0; i < 40; i++) {
      const raw = input(i);
      expect(gunzipSync(await gz.compress(raw)).equals(raw)).toBe(true);
    }
    expect(made.streams - before).toBe(1);
    gz.close();
  });

  it('hands each input to zlib in one write, which also finishes it', async () => {
    const gz = new ChunkGzip({ level: 1 });
    await gz.compress(input(0));
    const before = made.writes;
    for (let i = 1; i <= 10; i++) {
      const raw = input(i);
      expect(gunzipSync(await gz.compress(raw)).equals(raw)).toBe(true);
    }
    expect(made.writes - before).toBe(10);
    gz.close();
  });

  it('returns the whole member when the gzip passes the 64 KiB output buffer of the stream', async () => {
    const gz = new ChunkGzip({ level: 1 });
    for (const size of [70_000, 300_000]) {
      const raw = randomBytes(size);
      const out = await gz.compress(raw);
      expect(out.length).toBeGreaterThan(64 * 1024);
      expect(gunzipSync(out).equals(raw)).toBe(true);
    }
    gz.close();
  });

  it('gives a second input at the same time a stream of its own', async () => {
    const gz = new ChunkGzip({ level: 1 });
    const raws = [input(3), input(200), input(7)];
    const outs = await Promise.all(raws.map((r) => gz.compress(r)));
    outs.forEach((o, i) => expect(gunzipSync(o).equals(raws[i]!)).toBe(true));
    gz.close();
  });

  it('rejects when the stream fails, and compresses the next input with a new stream', async () => {
    const gz = new ChunkGzip({ level: 1 });
    await gz.compress(input(1));
    const before = made.streams;
    made.failNext = true;
    await expect(gz.compress(input(2))).rejects.toThrow('deflate failed');
    const raw = input(3);
    expect(gunzipSync(await gz.compress(raw)).equals(raw)).toBe(true);
    expect(made.streams - before).toBe(1);
    gz.close();
  });
});
