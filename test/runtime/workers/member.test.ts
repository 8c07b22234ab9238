// Member.metrics: the primary's /metrics and the console's samples ask every worker for its
// registry; a worker that is alive but does not answer (busy, wedged) must be left out of
// the sum after a while, never waited for forever.

import { EventEmitter } from 'node:events';
import type { Worker } from 'node:cluster';
import { describe, expect, it } from 'vitest';
import { Member } from '../../../src/runtime/workers/member.js';

function fakeWorker() {
  const w = new EventEmitter() as EventEmitter & { sent: unknown[]; dead: boolean };
  w.sent = [];
  w.dead = false;
  Object.assign(w, {
    id: 1,
    isDead: () => w.dead,
    isConnected: () => !w.dead,
    send: (m: unknown) => w.sent.push(m),
    process: { kill: () => undefined },
  });
  return w;
}

describe('Member.metrics', () => {
  it('answers what the worker replies', async () => {
    const w = fakeWorker();
    const m = new Member(w as unknown as Worker);
    const p = m.metrics(7, 1_000);
    expect(w.sent).toEqual([{ t: 'metrics-req', id: 7 }]);
    m.metricsReplied(7, [{ name: 'x' }]);
    await expect(p).resolves.toEqual([{ name: 'x' }]);
  });

  it('leaves out a worker that does not answer in time', async () => {
    const w = fakeWorker();
    const m = new Member(w as unknown as Worker);
    await expect(m.metrics(1, 50)).resolves.toEqual([]);
    // a late reply is ignored
    m.metricsReplied(1, [{ name: 'late' }]);
  });

  it('leaves out a worker that dies while asked', async () => {
    const w = fakeWorker();
    const m = new Member(w as unknown as Worker);
    const p = m.metrics(2, 60_000);
    w.dead = true;
    w.emit('exit');
    await expect(p).resolves.toEqual([]);
  });
});

describe('Member and a worker that dies', () => {
  it("survives the 'error' a send to a just-killed worker raises (EPIPE): the primary must not die with it", () => {
    const w = fakeWorker();
    new Member(w as unknown as Worker);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(() => w.emit('error', epipe)).not.toThrow();
  });
});
