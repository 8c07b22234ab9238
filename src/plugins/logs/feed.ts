// The decision log as a feed for the web console: the last events as logged (encoded JSON,
// after mask and drop), in a ring that costs nothing per decision beyond a store into a
// slot, and listeners told of each event. The decision-log plugin keeps one; with
// --workers each worker keeps one that the primary fills while the worker has listeners.

export interface DecisionFeedOptions {
  /** Events kept at most. */
  events?: number;
  /** About this many characters of events kept at most (the oldest go first). */
  bytes?: number;
  /** A listener threw (it is not removed; the others are still told). */
  onListenerError?: (err: unknown) => void;
  /** The number of listeners changed (0: nobody is watching). */
  onListeners?: (count: number) => void;
}

export class DecisionFeed {
  private readonly slots: (string | undefined)[];
  /** Index of the oldest event, and how many there are. */
  private head = 0;
  private size = 0;
  private bytes = 0;
  private readonly listeners = new Set<(eventJson: string) => void>();

  constructor(private readonly o: DecisionFeedOptions = {}) {
    this.slots = new Array<string | undefined>(o.events ?? 1000);
  }

  push(eventJson: string): void {
    const cap = this.slots.length;
    if (this.size === cap) this.dropOldest();
    this.slots[(this.head + this.size) % cap] = eventJson;
    this.size++;
    this.bytes += eventJson.length;
    while (this.o.bytes !== undefined && this.bytes > this.o.bytes && this.size > 1) this.dropOldest();
    for (const fn of this.listeners) {
      try {
        fn(eventJson);
      } catch (err) {
        this.o.onListenerError?.(err);
      }
    }
  }

  private dropOldest(): void {
    this.bytes -= this.slots[this.head]!.length;
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.slots.length;
    this.size--;
  }

  /** The last `limit` events, oldest first. */
  recent(limit: number): string[] {
    const n = Math.max(0, Math.min(limit, this.size));
    const out: string[] = [];
    for (let i = this.size - n; i < this.size; i++) out.push(this.slots[(this.head + i) % this.slots.length]!);
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
