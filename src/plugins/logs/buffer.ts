// The bounded buffer of encoded decision events waiting for upload. It is limited in
// bytes (buffer_size_limit_bytes: the oldest events are dropped to make room) and in rate
// (max_decisions_per_second: a token bucket refusing the excess); every drop is counted.
// Events that fail to upload are put back at the front, so nothing is lost while the
// collector is down as long as the buffer has room. The events are held as bytes
// (ByteQueue), not strings: see byte-queue.ts.

import { ByteQueue } from './byte-queue.js';

export interface DropCounters {
  buffer_size_limit_exceeded: number;
  rate_limit_exceeded: number;
  /** Single events larger than the upload size limit (they can never be sent). */
  event_too_large: number;
}

export class EventBuffer {
  private queue = new ByteQueue();
  readonly dropped: DropCounters = { buffer_size_limit_exceeded: 0, rate_limit_exceeded: 0, event_too_large: 0 };
  private tokens: number;
  private last: number;

  constructor(
    private readonly limitBytes: number | undefined,
    private readonly perSecond: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond ?? 0;
    this.last = this.now();
  }

  get length(): number {
    return this.queue.length;
  }

  get sizeBytes(): number {
    return this.queue.bytes;
  }

  /** Whether the rate limit lets one more decision through now (consumes a token). */
  admit(): boolean {
    if (this.perSecond === undefined) return true;
    const t = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.dropped.rate_limit_exceeded++;
    return false;
  }

  push(encoded: string): void {
    const limit = this.limitBytes;
    // (a UTF-16 unit is 1 to 3 bytes: counting exactly is needed only near the limit)
    if (limit !== undefined && encoded.length * 3 > limit && Buffer.byteLength(encoded) > limit) {
      this.dropped.buffer_size_limit_exceeded++;
      return;
    }
    this.queue.push(encoded);
    this.evict();
  }

  /** push() for record `seq` of `from`, shared, not copied (see ByteQueue.pushShared). */
  pushShared(from: ByteQueue, seq: number): void {
    if (this.limitBytes !== undefined && from.size(seq) > this.limitBytes) {
      this.dropped.buffer_size_limit_exceeded++;
      return;
    }
    this.queue.pushShared(from, seq);
    this.evict();
  }

  /** Takes everything out (for an upload attempt): the caller owns the queue returned. */
  drain(): ByteQueue {
    const out = this.queue;
    this.queue = new ByteQueue(out.capacity);
    return out;
  }

  /**
   * Puts events that failed to upload (those left in `events`, but the ones it marks
   * skipped) back in front of newer ones. A copy of their bytes: failures are rare.
   */
  requeue(events: ByteQueue): void {
    if (!events.length) return;
    const q = new ByteQueue();
    for (let s = events.first; s < events.end; s++) q.pushFrom(events, s);
    for (let s = this.queue.first; s < this.queue.end; s++) q.pushFrom(this.queue, s);
    events.clear();
    this.queue.clear();
    this.queue = q;
    this.evict();
  }

  private evict(): void {
    if (this.limitBytes === undefined) return;
    while (this.queue.bytes > this.limitBytes && this.queue.length) {
      this.queue.shift();
      this.dropped.buffer_size_limit_exceeded++;
    }
  }
}
