// Keep-alive connections spread over the workers. Every worker accepts from the shared
// socket itself (SCHED_NONE), so a burst of connections — a load generator or a proxy
// opening its pool — goes to whichever worker wakes first: 9 of 10 to one worker, measured
// on Linux. A kept-alive connection then stays where it landed: one worker's core is
// saturated while the other waits. So each worker tells the primary how many connections
// it holds (at most every REPORT_MS), the primary gives every worker its share (the total
// over the serving workers, rounded up), and a worker holding more than its share answers
// the next request of one of its connections with `Connection: close` (at most one per
// SHED_MS). The client reconnects, and the new connection is most likely accepted by a
// worker with time to spare: a busy one is running JavaScript, not waiting in accept.

/** The least a worker waits between two reports of its connection count. */
export const REPORT_MS = 100;
/** The least a worker waits between two connections it closes to rebalance. */
export const SHED_MS = 50;

/** What the balance needs of a connection: its close event. */
export interface Connection {
  once(event: 'close', listener: () => void): unknown;
}

const SHED = Symbol('regolith.shed');
type Marked = Connection & { [SHED]?: true };

/** A worker's side: counts its connections, reports them, and picks those to close. */
export class ConnectionBalance {
  private open = 0;
  /** Connections answered with `Connection: close`, not yet closed. */
  private closing = 0;
  /** The most connections this worker should hold; null: no limit (a single worker, or not known yet). */
  private share: number | null = null;
  private lastShed = -Infinity;
  private reported = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly report: (open: number) => void,
    private readonly now: () => number = () => performance.now(),
    private readonly reportMs = REPORT_MS,
    private readonly shedMs = SHED_MS,
  ) {}

  /** A connection the worker accepted. */
  connection(c: Connection): void {
    this.open++;
    c.once('close', () => {
      this.open--;
      this.changed();
    });
    this.changed();
  }

  /** The primary's answer: this worker's share of the connections (null: no limit). */
  setShare(share: number | null): void {
    this.share = share;
  }

  /** Whether the response to this connection's request closes it (the worker holds more than its share). */
  shed(c: Connection): boolean {
    if (this.share === null || this.open - this.closing <= this.share) return false;
    const m = c as Marked;
    if (m[SHED]) return false;
    const t = this.now();
    if (t - this.lastShed < this.shedMs) return false;
    this.lastShed = t;
    m[SHED] = true;
    this.closing++;
    c.once('close', () => this.closing--);
    return true;
  }

  /** The count, reported once the last report is REPORT_MS old (one message for a burst of changes). */
  private changed(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.open !== this.reported) {
        this.reported = this.open;
        this.report(this.open);
      }
    }, this.reportMs);
    this.timer.unref?.();
  }
}

/** The primary's side: each serving worker's share of all their connections; null (no limit) for fewer than two. */
export function connectionShare(counts: readonly number[]): number | null {
  if (counts.length < 2) return null;
  let total = 0;
  for (const n of counts) total += n;
  return Math.max(1, Math.ceil(total / counts.length));
}
