// A worker's batch of logged decisions (decision-batch.ts): when it goes to the primary.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { readEvents } from '../../../src/runtime/workers/decision-wire.js';
import { DecisionBatch } from '../../../src/runtime/workers/decision-batch.js';

describe("a worker's batch of logged decisions", () => {
  afterEach(() => vi.useRealTimers());
  // (the first piece of each event starts with its id's JSON string)
  const ids = (b: Buffer): string[] => {
    const out: string[] = [];
    readEvents(b, (e) => out.push(JSON.parse(e.buf.toString('utf8', e.start, e.buf.indexOf(0x22, e.start + 1) + 1)) as string));
    return out;
  };

  it('goes 250 ms after its first decision, in order, or at once when large, or when flushed', () => {
    vi.useFakeTimers();
    const sent: string[][] = [];
    const batch = new DecisionBatch((b) => sent.push(ids(b)));
    batch.push({ decision_id: '1' });
    batch.push({ decision_id: '2' });
    vi.advanceTimersByTime(249);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([['1', '2']]);
    // nothing pending: no message
    vi.advanceTimersByTime(500);
    batch.flush();
    expect(sent).toHaveLength(1);
    for (let i = 0; i < 512; i++) batch.push({ decision_id: String(i) });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toHaveLength(512);
    batch.push({ decision_id: '600' });
    batch.flush();
    expect(sent[2]).toEqual(['600']);
    // the timer of a flushed batch does not send it again
    vi.advanceTimersByTime(500);
    expect(sent).toHaveLength(3);
    // large inputs: a batch goes once it holds a MiB
    const big = { decision_id: 'big', input: { s: 'x'.repeat(300_000) } };
    for (let i = 0; i < 3; i++) batch.push(big);
    expect(sent).toHaveLength(3);
    batch.push(big);
    expect(sent).toHaveLength(4);
    expect(sent[3]).toHaveLength(4);
  });
});
