// A worker's logged decisions, sent to the primary up to DELAY_MS' worth at a time: one
// IPC message (one Buffer, one write, one 'message' event in the primary) for many decisions
// instead of one each. The decisions are written into the batch as they are logged (nothing
// of the request is kept), wait at most DELAY_MS (250 ms), and are flushed before the worker's last
// message, so none is lost on a shutdown.

import type { LoggedDecision } from '../../plugins/logs/event.js';
import { DecisionWriter } from './decision-wire.js';

/**
 * How long the first decision of a batch waits for others. Each message costs the two
 * processes ~200 µs whatever it holds, on this VM (bench/logs-workers.ts, 2,000/s over 2
 * workers: 5 ms cost ~7 µs a decision more than 20 ms, 20 ms ~6 µs more than 100, and 100 ms
 * ~1.5 µs more than 250; bench/README). Uploads wait a second or more anyway; the console's
 * live stream shows a worker's decisions up to this much later, and a worker that crashes
 * loses this much of its log.
 */
const DELAY_MS = 250;
/** A batch this large goes at once (decisions, or bytes: large inputs make large batches). */
const MAX_EVENTS = 512;
const MAX_BYTES = 1024 * 1024;

export class DecisionBatch {
  private readonly writer = new DecisionWriter();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly send: (batch: Buffer) => void) {}

  push(d: LoggedDecision): void {
    this.writer.add(d);
    if (this.writer.count >= MAX_EVENTS || this.writer.size >= MAX_BYTES) this.flush();
    // unref: a pending batch never keeps the process alive; leaving flushes it
    else if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), DELAY_MS).unref();
  }

  /** Sends what is pending now. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.writer.count > 0) this.send(this.writer.take());
  }
}
