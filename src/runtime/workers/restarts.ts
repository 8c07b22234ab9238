// When a worker that served dies, the primary starts another — after a backoff that grows
// with the exits of the last minute, and not at all past MAX_EXITS of them: a worker that
// keeps dying (a crash on every start, memory exhausted at once) ends the process with an
// error instead of restarting forever.

export const WINDOW_MS = 60_000;
export const MAX_EXITS = 5;
const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 5_000;

export type RestartVerdict = { restartInMs: number } | { giveUp: string };

export class RestartPolicy {
  private exits: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A worker exited (how: its exit code or signal): when to start another, or give up. */
  exited(how: string): RestartVerdict {
    const t = this.now();
    this.exits = this.exits.filter((x) => t - x < WINDOW_MS);
    this.exits.push(t);
    const n = this.exits.length;
    if (n > MAX_EXITS) return { giveUp: `worker processes exited ${n} times within ${WINDOW_MS / 1000}s (the last with ${how}); not restarting them again` };
    return { restartInMs: Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (n - 1)) };
  }
}
