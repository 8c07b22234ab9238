// The byte queue under the decision-log buffer and feed: texts come back as written (any
// UTF-8, any size, across slabs), sequence numbers stay with their records, a range of
// records copies out as one JSON array, records marked skipped are never copied again.

import { describe, expect, it } from 'vitest';
import { ByteQueue } from '../../../src/plugins/logs/byte-queue.js';
import { EventBuffer } from '../../../src/plugins/logs/buffer.js';
import { seededRandom as random } from '../../seeded-random.js';

const all = (q: ByteQueue): string[] => {
  const out: string[] = [];
  for (let s = q.first; s < q.end; s++) if (!q.skipped(s)) out.push(q.text(s));
  return out;
};

/** Texts of varied sizes and alphabets: ASCII, Latin-1, BMP, astral (4 UTF-8 bytes). */
function texts(n: number): string[] {
  const alphabets = ['a', 'é', '€', '😀', '"\\'];
  return Array.from({ length: n }, (_, i) => JSON.stringify({ i, s: alphabets[i % alphabets.length]!.repeat((i * 7919) % 900) }));
}

describe('ByteQueue', () => {
  it('gives back every text as written, across many slabs, and counts UTF-8 bytes', () => {
    const q = new ByteQueue();
    const ts = texts(3000);
    let bytes = 0;
    for (const t of ts) {
      expect(q.push(t)).toBe(Buffer.byteLength(t));
      bytes += Buffer.byteLength(t);
    }
    expect(bytes).toBeGreaterThan(20 * 64 * 1024);
    expect(q.length).toBe(3000);
    expect(q.bytes).toBe(bytes);
    expect(all(q)).toEqual(ts);
    for (let s = q.first; s < q.end; s++) expect(q.size(s)).toBe(Buffer.byteLength(ts[s - q.first]!));
    q.clear();
    expect(q.length).toBe(0);
    expect(q.bytes).toBe(0);
  });

  it('holds a text larger than a slab', () => {
    const q = new ByteQueue();
    const big = JSON.stringify('€'.repeat(100_000));
    q.push('{"a":1}');
    q.push(big);
    q.push('{"b":2}');
    expect(all(q)).toEqual(['{"a":1}', big, '{"b":2}']);
    const out = Buffer.alloc(1 + 8 + Buffer.byteLength(big) + 1 + 8);
    expect(q.copyArray(q.first, q.end, out)).toBe(out.length);
    expect(JSON.parse(out.toString())).toEqual([{ a: 1 }, JSON.parse(big), { b: 2 }]);
    q.clear();
  });

  it('keeps sequence numbers across shifts and copies any range out as one JSON array', () => {
    const q = new ByteQueue();
    const ts = texts(2000);
    for (const t of ts.slice(0, 1000)) q.push(t);
    const first = q.first;
    for (let i = 0; i < 600; i++) q.shift();
    for (const t of ts.slice(1000)) q.push(t);
    expect(q.first).toBe(first + 600);
    expect(q.end).toBe(first + 2000);
    expect(q.text(first + 600)).toBe(ts[600]);
    for (const [a, b] of [[600, 601], [600, 2000], [999, 1001], [1234, 1999]] as const) {
      const size = ts.slice(a, b).reduce((n, t) => n + Buffer.byteLength(t) + 1, 1);
      const out = Buffer.alloc(size);
      expect(q.copyArray(first + a, first + b, out)).toBe(size);
      expect(out.toString()).toBe('[' + ts.slice(a, b).join(',') + ']');
    }
    q.shiftUntil(first + 1990);
    expect(all(q)).toEqual(ts.slice(1990));
    q.clear();
  });

  it('never shares a skipped record again, and refuses to put one in an array', () => {
    const q = new ByteQueue();
    for (const t of ['{"a":1}', '{"b":2}', '{"c":3}']) q.push(t);
    q.skip(q.first + 1);
    expect(q.bytes).toBe(14);
    expect(q.skipped(q.first + 1)).toBe(true);
    const copy = new ByteQueue();
    for (let s = q.first; s < q.end; s++) copy.pushShared(q, s);
    expect(all(copy)).toEqual(['{"a":1}', '{"c":3}']);
    expect(() => q.copyArray(q.first, q.end, Buffer.alloc(100))).toThrow(/left out/);
    q.clear();
    copy.clear();
  });

  it('refuses a sequence number it does not hold', () => {
    const q = new ByteQueue();
    q.push('{}');
    q.shift();
    q.push('[]');
    expect(() => q.text(q.first - 1)).toThrow(RangeError);
    q.clear();
  });
});

describe('room for records', () => {
  it('the upload buffer starts each new queue with the room its last one needed, within a bound', () => {
    const b = new EventBuffer(undefined, undefined);
    for (let i = 0; i < 5000; i++) b.push(`{"i":${i}}`);
    const first = b.drain();
    expect(first.length).toBe(5000);
    expect(first.capacity).toBeGreaterThanOrEqual(5000);
    // the queue that takes the next events has that room already (no growing from 256 again)
    expect(b.drain().capacity).toBe(first.capacity);
    expect(new ByteQueue().capacity).toBe(256);
    expect(new ByteQueue(10).capacity).toBe(256);
    expect(new ByteQueue(1 << 24).capacity).toBe(65536);
    // the room changes nothing else: records in order, across a compaction
    const q = new ByteQueue(300);
    for (let i = 0; i < 700; i++) {
      q.push(`"${i}"`);
      if (i % 3 === 0) q.shift();
    }
    const left = all(q);
    expect(left.length).toBe(700 - 234);
    expect(left[left.length - 1]).toBe('"699"');
  });
});

describe('records shared between queues (the upload buffer holds the feed copy of each event)', () => {
  it('a shared record keeps its bytes after the queue that wrote it lets go and its slabs are written again', () => {
    const feed = new ByteQueue();
    const buffer = new ByteQueue();
    const ts = texts(400);
    for (const t of ts) {
      feed.push(t);
      buffer.pushShared(feed, feed.end - 1);
    }
    // the feed drops every record: its slabs would go back to the pool if nobody else held them
    while (feed.length) feed.shift();
    const churn = new ByteQueue();
    for (let i = 0; i < 3000; i++) churn.push('x'.repeat(500));
    expect(all(buffer)).toEqual(ts);
    // and they copy out as one array, as records of the buffer's own
    const out = Buffer.alloc(buffer.bytes + buffer.length + 1);
    const n = buffer.copyArray(buffer.first, buffer.end, out);
    expect(JSON.parse(out.toString('utf8', 0, n))).toEqual(ts.map((t) => JSON.parse(t)));
    churn.clear();
    buffer.clear();
  });

  it('generated interleavings of writes, shares, shifts, drains and churn: every queue gives back what it was given', () => {
    const seeds = Number(process.env['BYTE_QUEUE_SEEDS'] ?? 20);
    for (let seed = 1; seed <= seeds; seed++) {
      const rnd = random(seed);
      const feed = new ByteQueue();
      let buffer = new ByteQueue();
      let drained: ByteQueue | undefined;
      const model = { feed: [] as string[], buffer: [] as string[], drained: [] as string[] };
      const churn = new ByteQueue();
      let k = 0;
      const text = (): string => {
        const r = rnd();
        // mostly events of a few hundred bytes, some over a whole slab
        const len = r < 0.02 ? 70_000 + Math.floor(rnd() * 10_000) : Math.floor(rnd() * 900);
        return JSON.stringify({ k: k++, s: 'aé€😀'[Math.floor(rnd() * 4)]!.repeat(len / 2) });
      };
      for (let step = 0; step < 3000; step++) {
        const r = rnd();
        if (r < 0.45) {
          const t = text();
          if (rnd() < 0.5) feed.push(t);
          else {
            const b = Buffer.from(t);
            feed.pushBytes(b, 0, b.length);
          }
          model.feed.push(t);
          if (rnd() < 0.9) {
            buffer.pushShared(feed, feed.end - 1);
            model.buffer.push(t);
          }
        } else if (r < 0.55) {
          // the buffer's own writes (a requeue's copies) between shared records
          const t = text();
          buffer.push(t);
          model.buffer.push(t);
        } else if (r < 0.75) {
          const n = Math.floor(rnd() * 40);
          for (let i = 0; i < n && feed.length; i++) feed.shift();
          model.feed.splice(0, Math.min(n, model.feed.length));
        } else if (r < 0.82) {
          const n = Math.floor(rnd() * 40);
          for (let i = 0; i < n && buffer.length; i++) buffer.shift();
          model.buffer.splice(0, Math.min(n, model.buffer.length));
        } else if (r < 0.86) {
          // an upload takes the buffer; a new queue takes the next events
          drained?.clear();
          drained = buffer;
          model.drained = model.buffer;
          buffer = new ByteQueue();
          model.buffer = [];
        } else if (r < 0.88 && drained) {
          drained.clear();
          model.drained = [];
        } else {
          // other queues writing into slabs from the pool
          churn.push('z'.repeat(Math.floor(rnd() * 2000)));
          if (churn.length > 50) churn.shift();
        }
        if (step % 97 === 0 || step === 2999) {
          expect(all(feed), `seed ${seed}, step ${step}: feed`).toEqual(model.feed);
          expect(all(buffer), `seed ${seed}, step ${step}: buffer`).toEqual(model.buffer);
          if (drained) expect(all(drained), `seed ${seed}, step ${step}: drained`).toEqual(model.drained);
          expect(buffer.bytes).toBe(model.buffer.reduce((s, t) => s + Buffer.byteLength(t), 0));
          if (buffer.length) {
            const out = Buffer.alloc(buffer.bytes + buffer.length + 1);
            const n = buffer.copyArray(buffer.first, buffer.end, out);
            expect(out.toString('utf8', 0, n)).toBe('[' + model.buffer.join(',') + ']');
          }
        }
      }
      feed.clear();
      buffer.clear();
      drained?.clear();
      churn.clear();
    }
  });
});
