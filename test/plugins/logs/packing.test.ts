// Events compressed ahead of the upload: the buffer keeps a chunk's worth of raw JSON at most
// while the rest waits compressed, every event still reaches the collector once and in order,
// the byte limit counts packed events and drops the oldest body whole, and bodies packed for
// one upload limit are cut again when a new configuration changes it.

import { afterEach, describe, expect, it } from 'vitest';
import { EventBuffer, type PackedChunk } from '../../../src/plugins/logs/buffer.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { collector, triggeredConfig, triggeredPlugin } from './triggered-upload.js';
import { seededRandom as random } from '../../seeded-random.js';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

/** The plugin's buffer and the compression in flight (private: what these tests are about). */
const inside = (p: DecisionLogPlugin) => p as unknown as { buffer: EventBuffer; packing: Promise<void> | undefined };

async function settled(p: DecisionLogPlugin): Promise<void> {
  while (inside(p).packing) await inside(p).packing;
}

let n = 0;
function decision() {
  const i = n++;
  return {
    decision_id: `d${i}`,
    path: 'data.rbac.allow',
    input: { user: `user-${i % 1000}`, resource: { id: `doc-${i}`, tags: ['a', 'b'] }, pad: 'x'.repeat(i % 200) },
    result: i % 2 === 0,
    requested_by: '127.0.0.1:1',
    timestamp: new Date(1767225600000 + i).toISOString(),
  };
}

describe('events compressed ahead of the upload', () => {
  it('keeps at most a chunk of raw JSON while thousands of events wait, and delivers each once, in order', async () => {
    const col = await collector(cleanup);
    const p = await triggeredPlugin(col, { upload_size_limit_bytes: 8192 }, cleanup);
    const first = n;
    for (let i = 0; i < 20_000; i++) {
      p.record(decision());
      if (i % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    await settled(p);
    const { buffer } = inside(p);
    const enc = (p as unknown as { encoder: { uncompressedLimit: number } }).encoder;
    expect(buffer.length).toBe(20_000);
    // what is not packed yet is less than one chunk's raw size
    expect(buffer.rawBytes).toBeLessThan(enc.uncompressedLimit);
    // packed bodies are most of it
    expect(buffer.packedNow().length).toBeGreaterThan(10);
    expect(await p.trigger()).toBe(true);
    expect(col.events.map((e) => e['decision_id'])).toEqual(Array.from({ length: 20_000 }, (_, i) => `d${first + i}`));
    for (const b of col.bodies) expect(b.length).toBeLessThanOrEqual(8192);
    expect(p.counts.uploaded).toBe(20_000);
    expect(p.uploadStatus().metrics['gauge_decision_logs_buffered_events']).toBe(0);
  });

  it('cuts packed bodies again when a new configuration lowers upload_size_limit_bytes', async () => {
    const col = await collector(cleanup);
    const p = await triggeredPlugin(col, { upload_size_limit_bytes: 65536 }, cleanup);
    const first = n;
    for (let i = 0; i < 6000; i++) p.record(decision());
    await settled(p);
    expect(inside(p).buffer.packedNow().length).toBeGreaterThan(0);
    const cfg = triggeredConfig(col, { upload_size_limit_bytes: 2048 });
    await p.reconfigure(cfg, new ServiceClient(cfg.services['s']!), { id: 'x', version: 'v' });
    expect(inside(p).buffer.packedNow().length).toBe(0);
    expect(inside(p).buffer.length).toBe(6000);
    expect(await p.trigger()).toBe(true);
    expect(col.events.map((e) => e['decision_id'])).toEqual(Array.from({ length: 6000 }, (_, i) => `d${first + i}`));
    for (const b of col.bodies) expect(b.length).toBeLessThanOrEqual(2048);
  });
});

describe('the byte limit over packed and raw events', () => {
  const packed = (sizes: number[]): PackedChunk => ({ body: Buffer.alloc(10), sizes: Int32Array.from(sizes), raw: sizes.reduce((a, b) => a + b, 0), sending: false });
  const ev = (i: number) => `{"i":${String(i).padStart(94, '0')}}`; // 100 bytes

  it('counts the JSON bytes of both, and drops the oldest packed body whole, counting its events', () => {
    const b = new EventBuffer(1000, undefined);
    const old = packed([300, 300]);
    b.addPacked(old);
    for (let i = 0; i < 4; i++) b.push(ev(i));
    expect(b.sizeBytes).toBe(1000);
    expect(b.length).toBe(6);
    expect(b.dropped.buffer_size_limit_exceeded).toBe(0);
    b.push(ev(4));
    // over by 100: the oldest events are the packed ones, dropped as a body
    expect(b.holdsPacked(old)).toBe(false);
    expect(b.dropped.buffer_size_limit_exceeded).toBe(2);
    expect(b.length).toBe(5);
    expect(b.sizeBytes).toBe(500);
  });

  it('never drops a body being sent: the next oldest events go instead', () => {
    const b = new EventBuffer(1000, undefined);
    const sending = packed([300, 300]);
    const next = packed([200]);
    b.addPacked(sending);
    b.addPacked(next);
    sending.sending = true;
    for (let i = 0; i < 3; i++) b.push(ev(i));
    expect(b.holdsPacked(sending)).toBe(true);
    expect(b.holdsPacked(next)).toBe(false);
    expect(b.dropped.buffer_size_limit_exceeded).toBe(1);
    expect(b.sizeBytes).toBe(900);
    // with no packed body left to drop, the oldest raw event goes
    b.push(ev(3));
    b.push(ev(4));
    expect(b.holdsPacked(sending)).toBe(true);
    expect(b.sizeBytes).toBe(1000);
    expect(b.dropped.buffer_size_limit_exceeded).toBe(2);
    expect(b.removePacked(sending)).toBe(true);
    expect(b.length).toBe(4);
  });
});

describe('generated runs: bursts, failing uploads, byte limits, new upload limits', () => {
  it('every event is delivered at most once, in order, and each one not delivered is counted as dropped', async () => {
    const runs = Number(process.env['LOG_PACKING_RUNS'] ?? 6);
    const seed0 = Number(process.env['LOG_PACKING_SEED'] ?? 1);
    for (let seed = seed0; seed < seed0 + runs; seed++) {
      const rnd = random(seed);
      let failing = 0;
      const col = await collector(undefined, () => failing > 0 && rnd() < failing);
      const limits = [1024, 4096, 32768];
      let uploadLimit = limits[Math.floor(rnd() * 3)]!;
      const bufferLimit = rnd() < 0.5 ? undefined : 200_000 + Math.floor(rnd() * 400_000);
      const reporting = () => ({ upload_size_limit_bytes: uploadLimit, ...(bufferLimit ? { buffer_size_limit_bytes: bufferLimit } : {}) });
      const p = await triggeredPlugin(col, reporting());
      let logged = 0;
      let sent = 0;
      const uploads: Promise<boolean>[] = [];
      for (let step = 0; step < 40; step++) {
        const r = rnd();
        if (r < 0.6) {
          const burst = Math.floor(rnd() * 1500);
          for (let i = 0; i < burst; i++) {
            const d = decision();
            d.decision_id = `e${String(logged++).padStart(7, '0')}`;
            p.record(d);
            if (rnd() < 0.01) await new Promise((res) => setImmediate(res));
          }
        } else if (r < 0.85) {
          failing = rnd() < 0.4 ? rnd() : 0;
          // sometimes an upload runs while more events come in
          uploads.push(p.trigger());
          if (rnd() < 0.5) await uploads[uploads.length - 1];
        } else if (r < 0.92) {
          await Promise.all(uploads);
          uploadLimit = limits[Math.floor(rnd() * 3)]!;
          const next = triggeredConfig(col, reporting());
          const reconfigured = p.reconfigure(next, new ServiceClient(next.services['s']!), { id: 'x', version: 'v' });
          // decisions keep coming while packed bodies are taken apart for the new limit
          const burst = Math.floor(rnd() * 3000);
          for (let i = 0; i < burst; i++) {
            const d = decision();
            d.decision_id = `e${String(logged++).padStart(7, '0')}`;
            p.record(d);
            if (i % 50 === 0) await new Promise((res) => setImmediate(res));
          }
          await reconfigured;
        } else {
          await new Promise((res) => setTimeout(res, Math.floor(rnd() * 5)));
        }
        for (const b of col.bodies.slice(sent)) expect(b.length, `seed ${seed}`).toBeLessThanOrEqual(32768);
        sent = col.bodies.length;
      }
      await Promise.all(uploads);
      failing = 0;
      expect(await p.trigger(), `seed ${seed}`).toBe(true);
      const ids = col.events.map((e) => e['decision_id'] as string);
      // in order and never twice
      for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `seed ${seed}: ${ids[i - 1]} then ${ids[i]}`).toBe(true);
      const m = p.uploadStatus().metrics;
      expect(m['gauge_decision_logs_buffered_events'], `seed ${seed}`).toBe(0);
      // each event either arrived or was dropped for room (never "too large" here: events are small)
      expect(ids.length + m['counter_decision_logs_dropped_buffer_size_limit_bytes_exceeded']!, `seed ${seed}`).toBe(logged);
      expect(m['counter_decision_logs_dropped_event_too_large'], `seed ${seed}`).toBe(0);
      if (!bufferLimit) expect(ids.length, `seed ${seed}`).toBe(logged);
      expect(p.counts.uploaded, `seed ${seed}`).toBe(ids.length);
      await p.stop();
      await col.close();
    }
  }, 60_000);
});
