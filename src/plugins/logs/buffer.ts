// The bounded buffer of encoded decision events waiting for upload. It is limited in
// bytes (buffer_size_limit_bytes: the oldest events are dropped to make room) and in rate
// (max_decisions_per_second: a token bucket refusing the excess); every drop is counted.
// Events that fail to upload are put back at the front, so nothing is lost while the
// collector is down as long as the buffer has room.

export interface DropCounters {
  buffer_size_limit_exceeded: number;
  rate_limit_exceeded: number;
  /** Single events larger than the upload size limit (they can never be sent). */
  event_too_large: number;
}

export class EventBuffer {
  /** The events are items[head..]; dropping the oldest moves `head` (no copy per event). */
  private items: string[] = [];
  private head = 0;
  private bytes = 0;
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
    return this.items.length - this.head;
  }

  get sizeBytes(): number {
    return this.bytes;
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
    const size = Buffer.byteLength(encoded);
    if (this.limitBytes !== undefined && size > this.limitBytes) {
      this.dropped.buffer_size_limit_exceeded++;
      return;
    }
    this.items.push(encoded);
    this.bytes += size;
    this.evict();
  }

  /** Takes everything out (for an upload attempt). */
  drain(): string[] {
    const out = this.head ? this.items.slice(this.head) : this.items;
    this.items = [];
    this.head = 0;
    this.bytes = 0;
    return out;
  }

  /** Puts events that failed to upload back in front of newer ones. */
  requeue(events: string[]): void {
    if (!events.length) return;
    let size = 0;
    for (const e of events) size += Buffer.byteLength(e);
    this.items = events.concat(this.head ? this.items.slice(this.head) : this.items);
    this.head = 0;
    this.bytes += size;
    this.evict();
  }

  private evict(): void {
    if (this.limitBytes === undefined || this.bytes <= this.limitBytes) return;
    while (this.bytes > this.limitBytes && this.head < this.items.length) {
      const old = this.items[this.head]!;
      this.items[this.head++] = '';
      this.bytes -= Buffer.byteLength(old);
      this.dropped.buffer_size_limit_exceeded++;
    }
    // Give the dropped slots back once they are half the array.
    if (this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
