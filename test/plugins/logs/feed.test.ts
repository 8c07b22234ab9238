// The console's decision feed: a ring of the last events (by count and by size), oldest
// first, and listeners told of each event and counted.

import { describe, expect, it } from 'vitest';
import { DecisionFeed } from '../../../src/plugins/logs/feed.js';

describe('DecisionFeed', () => {
  it('keeps the last events, oldest first, across wrap-arounds', () => {
    const f = new DecisionFeed({ events: 3 });
    expect(f.recent(5)).toEqual([]);
    for (const e of ['a', 'b', 'c', 'd', 'e']) f.push(e);
    expect(f.recent(10)).toEqual(['c', 'd', 'e']);
    expect(f.recent(2)).toEqual(['d', 'e']);
    expect(f.recent(0)).toEqual([]);
  });

  it('drops the oldest while over its size, keeping at least the newest', () => {
    const f = new DecisionFeed({ events: 10, bytes: 5 });
    for (const e of ['aa', 'bb', 'cc']) f.push(e);
    expect(f.recent(10)).toEqual(['bb', 'cc']);
    f.push('x'.repeat(9));
    expect(f.recent(10)).toEqual(['x'.repeat(9)]);
  });

  it('tells every listener, survives one that throws, and counts them', () => {
    const counts: number[] = [];
    const errors: unknown[] = [];
    const f = new DecisionFeed({ onListeners: (n) => counts.push(n), onListenerError: (e) => errors.push(e) });
    const seen: string[] = [];
    const off1 = f.subscribe(() => {
      throw new Error('boom');
    });
    const off2 = f.subscribe((e) => seen.push(e));
    f.push('one');
    off1();
    off1();
    off2();
    f.push('two');
    expect(seen).toEqual(['one']);
    expect(errors).toHaveLength(1);
    expect(counts).toEqual([1, 2, 1, 0]);
  });
});
