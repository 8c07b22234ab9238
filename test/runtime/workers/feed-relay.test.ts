// FeedRelay: the primary listens to its decision feed only while a worker's console streams
// decisions (a listener costs a string per logged event), and relays each event to those
// workers only.

import { describe, expect, it } from 'vitest';
import { FeedRelay } from '../../../src/runtime/workers/feed-relay.js';
import type { Member } from '../../../src/runtime/workers/member.js';

function fakeFeed() {
  const listeners = new Set<(e: string) => void>();
  return {
    listeners,
    subscribe(fn: (e: string) => void) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    push(e: string) {
      for (const fn of listeners) fn(e);
    },
  };
}

function fakeMember() {
  const sent: unknown[] = [];
  return { m: { wantsFeed: false, send: (x: unknown) => sent.push(x) } as unknown as Member, sent };
}

describe('FeedRelay', () => {
  it('listens only while some worker wants the feed, and sends each event to those workers', () => {
    const feed = fakeFeed();
    const a = fakeMember(), b = fakeMember();
    const members = new Set([a.m, b.m]);
    const relay = new FeedRelay(feed, () => members);
    relay.update();
    expect(feed.listeners.size).toBe(0);
    feed.push('e0');

    a.m.wantsFeed = true;
    relay.update();
    relay.update();
    expect(feed.listeners.size).toBe(1);
    feed.push('e1');
    expect(a.sent).toEqual([{ t: 'decision-event', json: 'e1' }]);
    expect(b.sent).toEqual([]);

    // the watching worker leaves: nobody wants it any more
    members.delete(a.m);
    relay.update();
    expect(feed.listeners.size).toBe(0);

    b.m.wantsFeed = true;
    relay.update();
    feed.push('e2');
    expect(b.sent).toEqual([{ t: 'decision-event', json: 'e2' }]);
    b.m.wantsFeed = false;
    relay.update();
    expect(feed.listeners.size).toBe(0);
  });

  it('never listens again once stopped', () => {
    const feed = fakeFeed();
    const a = fakeMember();
    const relay = new FeedRelay(feed, () => [a.m]);
    a.m.wantsFeed = true;
    relay.update();
    relay.stop();
    expect(feed.listeners.size).toBe(0);
    relay.update();
    expect(feed.listeners.size).toBe(0);
  });

  it('does nothing without a feed (decision logging off)', () => {
    const a = fakeMember();
    a.m.wantsFeed = true;
    const relay = new FeedRelay(undefined, () => [a.m]);
    expect(() => relay.update()).not.toThrow();
  });
});
