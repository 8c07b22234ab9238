// The schedule every bundle source shares: fetch, hand the outcome to onResult (the next
// fetch waits for it: activation is serialised per bundle), wait the delay the source
// asks for, again; or, with a manual trigger, fetch only when trigger() is called.
// stop() ends the loop at once, mid-wait or mid-request.

import { sleep } from '../timing.js';

export type DownloadResult =
  | { kind: 'bundle'; archive: Buffer; etag?: string; requestNs: number }
  | { kind: 'not-modified'; requestNs: number }
  | { kind: 'error'; message: string; httpCode?: number; requestNs: number };

export abstract class PollingSource {
  protected readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly manual: boolean,
    private readonly onResult: (r: DownloadResult) => Promise<void>,
  ) {}

  /** One fetch. */
  protected abstract fetchOnce(): Promise<DownloadResult> | DownloadResult;
  /** How long to wait after this outcome before the next fetch. */
  protected abstract delayAfter(res: DownloadResult): number;

  /** Starts polling (periodic trigger) or waits for trigger() calls (manual trigger). */
  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  /** Fetches once now (manual trigger, or to cut a polling delay short). */
  async once(): Promise<void> {
    await this.onResult(await this.fetchOnce());
  }

  /** Manual trigger: run one fetch in the loop. */
  trigger(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      if (this.manual) {
        await new Promise<void>((r) => (this.wake = r));
        if (this.abort.signal.aborted) return;
      }
      const res = await this.fetchOnce();
      if (this.abort.signal.aborted) return;
      try {
        await this.onResult(res);
      } catch {
        /* onResult reports its own errors */
      }
      if (this.manual) continue;
      if (!(await sleep(this.delayAfter(res), this.abort.signal))) return;
    }
  }
}
