// The decision log as a feed for the web console in a worker process: the primary logs
// (and masks) every decision and sends each logged event to the workers, which keep the
// recent ones and hand them to the console's stream subscribers.

export class DecisionFeed {
  private readonly ring: string[] = [];
  private readonly listeners = new Set<(json: string) => void>();

  constructor(private readonly keep = 1000) {}

  push(json: string): void {
    this.ring.push(json);
    if (this.ring.length > this.keep) this.ring.shift();
    for (const fn of this.listeners) {
      try {
        fn(json);
      } catch {
        /* a broken listener must not stop the others */
      }
    }
  }

  recent(limit: number): string[] {
    return limit <= 0 ? [] : this.ring.slice(-limit);
  }

  subscribe(fn: (json: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
