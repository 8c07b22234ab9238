// One worker as the primary sees it: a cluster worker, its replies awaited by kind and
// sequence number, and whether it has joined (taken the state) and serves (listens).

import type { Worker } from 'node:cluster';
import type { ToWorker } from './protocol.js';

/** How long a worker may take to take a state or a change (compiling a large policy set included). */
const REPLY_MS = 60_000;
/** How long /metrics (and the console's samples) wait for a worker's registry: a busy worker is left out, never waited for. */
export const METRICS_MS = 5_000;

export class Member {
  /** It holds the state and takes every change. */
  joined = false;
  /** Its listeners are up. */
  serving = false;
  /** Its console streams decisions: logged events go to it. */
  wantsFeed = false;
  /** The connections its listeners hold, as it last reported (balance.ts). */
  conns = 0;
  /** The share of the connections it was last sent (undefined: none sent yet). */
  share: number | null | undefined;
  /** Resolves when the worker listens for messages (sent earlier, they would be lost). */
  readonly hello: Promise<void>;
  greeted!: () => void;
  private readonly waiting = new Map<string, () => void>();
  private readonly metricReplies = new Map<number, (json: unknown) => void>();

  constructor(readonly worker: Worker) {
    this.hello = new Promise((r) => (this.greeted = r));
    // A message sent to a worker that was just killed, before its channel is seen closed,
    // fails with EPIPE, which cluster emits as 'error' on the worker: unheard, it ended the
    // primary and every other worker with it. The worker's 'exit' follows and replaces it.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      this.greeted();
      for (const done of this.waiting.values()) done();
      this.waiting.clear();
      for (const done of this.metricReplies.values()) done([]);
    });
  }

  get alive(): boolean {
    return !this.worker.isDead() && this.worker.isConnected();
  }

  send(m: ToWorker): void {
    if (this.alive) this.worker.send(m);
  }

  /**
   * Sends and waits for the reply of `kind` with the same seq; a worker that dies counts as
   * done, and one that does not answer within REPLY_MS is killed (and replaced): a wedged
   * worker must not hold every other one, and every write, forever.
   */
  request(m: ToWorker & { seq: number }, kind: string): Promise<void> {
    if (!this.alive) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.worker.process.kill('SIGKILL');
        done();
      }, REPLY_MS);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.set(`${kind}:${m.seq}`, done);
      this.send(m);
    });
  }

  replied(kind: string, seq: number): void {
    const done = this.waiting.get(`${kind}:${seq}`);
    this.waiting.delete(`${kind}:${seq}`);
    done?.();
  }

  /** The worker's metrics as JSON; [] (left out of the sum) when it is gone or has not answered within `waitMs`. */
  metrics(id: number, waitMs = METRICS_MS): Promise<unknown> {
    if (!this.alive) return Promise.resolve([]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.metricReplies.delete(id);
        resolve([]);
      }, waitMs);
      this.metricReplies.set(id, (json) => {
        clearTimeout(timer);
        resolve(json);
      });
      this.send({ t: 'metrics-req', id });
    });
  }

  metricsReplied(id: number, json: unknown): void {
    this.metricReplies.get(id)?.(json);
    this.metricReplies.delete(id);
  }

  /** Resolves when the process has exited. */
  exited(): Promise<void> {
    return new Promise((r) => (this.worker.isDead() ? r() : this.worker.once('exit', () => r())));
  }
}
