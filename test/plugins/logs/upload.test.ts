// Decision-log uploads through the chunk encoder, against a loopback collector: chunks under
// upload_size_limit_bytes, each event delivered once and in order across many uploads and a
// request that fails half-way through a batch, events over the limit counted and left out;
// and the event buffer's byte bound when it drops the oldest events for a long time.

import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBuffer } from '../../../src/plugins/logs/buffer.js';
import type { ByteQueue } from '../../../src/plugins/logs/byte-queue.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';
import { collector, triggeredPlugin } from './triggered-upload.js';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

const metric = (p: DecisionLogPlugin, name: string) => p.uploadStatus().metrics[name];

describe('decision-log uploads', () => {
  it('delivers thousands of events once each, in order, in chunks under the limit, over many uploads', async () => {
    const col = await collector(cleanup);
    const p = await triggeredPlugin(col, { upload_size_limit_bytes: 4096 }, cleanup);
    let id = 0;
    for (const batch of [1, 50, 3000, 7, 1200]) {
      for (let i = 0; i < batch; i++) await p.logDecision({ decision_id: `d${id++}`, path: 'data.rbac.allow', input: { user: `user-${id % 97}`, role: id % 3 ? 'viewer' : 'admin' }, result: id % 2 === 0 });
      expect(await p.trigger()).toBe(true);
    }
    expect(col.events.map((e) => e.decision_id)).toEqual(Array.from({ length: id }, (_, i) => `d${i}`));
    for (const b of col.bodies) expect(b.length).toBeLessThanOrEqual(4096);
    expect(col.bodies.length).toBeLessThan(id / 20); // chunks hold many events, not a few
    expect(p.counts.uploaded).toBe(id);
    expect(metric(p, 'gauge_decision_logs_buffered_events')).toBe(0);
  });

  it('puts back the chunk that failed and everything after it, and delivers each event once when the collector answers again', async () => {
    const col = await collector(cleanup, (n) => n === 2);
    const p = await triggeredPlugin(col, { upload_size_limit_bytes: 1024 }, cleanup);
    for (let i = 0; i < 400; i++) await p.logDecision({ decision_id: `d${i}`, input: { n: i, noise: randomBytes(8).toString('hex') } });
    expect(await p.trigger()).toBe(false);
    const delivered = col.events.length;
    expect(delivered).toBeGreaterThan(0);
    expect(metric(p, 'gauge_decision_logs_buffered_events')).toBe(400 - delivered);
    expect(p.uploadStatus()).toMatchObject({ code: 'decision_logs_error', http_code: '503' });
    // newer events wait behind the ones put back
    for (let i = 400; i < 450; i++) await p.logDecision({ decision_id: `d${i}`, input: { n: i } });
    expect(await p.trigger()).toBe(true);
    expect(col.events.map((e) => e.decision_id)).toEqual(Array.from({ length: 450 }, (_, i) => `d${i}`));
    for (const b of col.bodies) expect(b.length).toBeLessThanOrEqual(1024);
    expect(p.uploadStatus().code).toBeUndefined();
  });

  it('counts and leaves out an event that alone exceeds upload_size_limit_bytes compressed, and sends the others', async () => {
    const col = await collector(cleanup);
    const p = await triggeredPlugin(col, { upload_size_limit_bytes: 600 }, cleanup);
    await p.logDecision({ decision_id: 'a', input: { user: 'alice' } });
    await p.logDecision({ decision_id: 'huge', input: { noise: randomBytes(1000).toString('hex') } });
    // large raw but compressible: it is sent
    await p.logDecision({ decision_id: 'big', input: { text: 'lorem ipsum '.repeat(300) } });
    await p.logDecision({ decision_id: 'b', input: { user: 'bob' } });
    expect(await p.trigger()).toBe(true);
    expect(col.events.map((e) => e.decision_id)).toEqual(['a', 'big', 'b']);
    expect(metric(p, 'counter_decision_logs_dropped_event_too_large')).toBe(1);
    expect(p.counts.uploaded).toBe(3);
    for (const b of col.bodies) expect(b.length).toBeLessThanOrEqual(600);
  });
});

/** The texts of a drained queue, oldest first. */
function texts(q: ByteQueue): string[] {
  const out: string[] = [];
  for (let s = q.first; s < q.end; s++) out.push(q.text(s));
  return out;
}

describe('event buffer', () => {
  it('keeps the newest events within buffer_size_limit_bytes and counts every one it drops', () => {
    const ev = (i: number) => `{"decision_id":"d${String(i).padStart(6, '0')}"}`;
    const size = Buffer.byteLength(ev(0));
    const b = new EventBuffer(1000 * size, undefined);
    for (let i = 0; i < 100_000; i++) b.push(ev(i));
    expect(b.length).toBe(1000);
    expect(b.sizeBytes).toBe(1000 * size);
    expect(b.dropped.buffer_size_limit_exceeded).toBe(99_000);
    // an upload failed: its events go back in front, and the oldest are dropped for room
    const out = b.drain();
    expect(texts(out)).toEqual(Array.from({ length: 1000 }, (_, i) => ev(99_000 + i)));
    for (let i = 100_000; i < 100_500; i++) b.push(ev(i));
    b.requeue(out);
    expect(b.length).toBe(1000);
    expect(b.sizeBytes).toBe(1000 * size);
    expect(b.dropped.buffer_size_limit_exceeded).toBe(99_500);
    expect(texts(b.drain())).toEqual([...Array.from({ length: 500 }, (_, i) => ev(99_500 + i)), ...Array.from({ length: 500 }, (_, i) => ev(100_000 + i))]);
    expect(b.length).toBe(0);
    expect(b.sizeBytes).toBe(0);
  });

  it('drops an event larger than the whole buffer', () => {
    const b = new EventBuffer(10, undefined);
    b.push('{"decision_id":"too big"}');
    b.push('{"a":1}');
    expect(texts(b.drain())).toEqual(['{"a":1}']);
    expect(b.dropped.buffer_size_limit_exceeded).toBe(1);
  });
});
