// The decision log as a feed for the web console: the last events as logged (encoded JSON,
// after mask and drop), held as bytes (a ByteQueue: kept as strings, the last thousand
// events all reached V8's old generation, a cost per decision in garbage collection; see
// byte-queue.ts) and read back as text when asked for, and listeners told of each event.
// The decision-log plugin keeps one; with --workers each worker keeps one that the primary
// fills while the worker has listeners.

import { ByteQueue } from './byte-queue.js';

export interface DecisionFeedOptions {
  /** Events kept at most. */
  events?: number;
  /** About this many bytes of events kept at most (the oldest go first). */
  bytes?: number;
  /** A listener threw (it is not removed; the others are still told). */
  onListenerError?: (err: unknown) => void;
  /** The number of listeners changed (0: nobody is watching). */
  onListeners?: (count: number) => void;
}

export class DecisionFeed {
  /** The events kept; the newest is the last record (the upload buffer shares its bytes). */
  readonly q = new ByteQueue();
  private readonly max: number;
  private readonly listeners = new Set<(eventJson: string) => void>();

  constructor(private readonly o: DecisionFeedOptions = {}) {
    this.max = o.events ?? 1000;
  }

  push(eventJson: string): void {
    this.q.push(eventJson);
    this.trim();
    this.tell(eventJson);
  }

  /** push() for an event already written as UTF-8, buf[0, n): decoded only for listeners. */
  pushBytes(buf: Buffer, n: number): void {
    this.q.pushBytes(buf, 0, n);
    this.trim();
    if (this.listeners.size) this.tell(buf.toString('utf8', 0, n));
  }

  private trim(): void {
    const q = this.q;
    if (q.length > this.max) q.shift();
    while (this.o.bytes !== undefined && q.bytes > this.o.bytes && q.length > 1) q.shift();
  }

  private tell(eventJson: string): void {
    for (const fn of this.listeners) {
      try {
        fn(eventJson);
      } catch (err) {
        this.o.onListenerError?.(err);
      }
    }
  }

  /** The last `limit` events, oldest first. */
  recent(limit: number): string[] {
    const n = Math.max(0, Math.min(limit, this.q.length));
    const out: string[] = [];
    for (let s = this.q.end - n; s < this.q.end; s++) out.push(this.q.text(s));
    return out;
  }

  /** Calls `fn` with each event as it is logged; returns the unsubscribe function. */
  subscribe(fn: (eventJson: string) => void): () => void {
    this.listeners.add(fn);
    this.o.onListeners?.(this.listeners.size);
    return () => {
      if (this.listeners.delete(fn)) this.o.onListeners?.(this.listeners.size);
    };
  }
}
