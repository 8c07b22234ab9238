// OPA's two shutdown periods: --shutdown-wait-period (seconds the server keeps serving after
// the signal, so that a load balancer stops sending it requests first; default 0) and
// --shutdown-grace-period (seconds requests in flight get to finish once listeners are
// closed; default 10).

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

export interface ShutdownPeriods {
  graceMs: number;
  waitMs: number;
}

/** Waits the shutdown wait period, if any, before shutdown begins. */
export async function shutdownWait(p: ShutdownPeriods, logger: Logger): Promise<void> {
  if (p.waitMs <= 0) return;
  logger.info(`Waiting ${p.waitMs / 1000}s before initiating shutdown...`);
  await sleep(p.waitMs);
}

/**
 * The first SIGINT or SIGTERM, caught from the moment this is created: a signal that comes
 * while the server is still starting (its address already logged, its handlers not yet
 * set) must not kill it outright; it is handed to onSignal's callback once there is one.
 */
export class ShutdownSignal {
  private received: string | undefined;
  private handler: ((signal: string) => void) | undefined;

  constructor() {
    const on = (signal: string): void => {
      if (this.received) return;
      this.received = signal;
      this.handler?.(signal);
    };
    process.once('SIGINT', () => on('SIGINT'));
    process.once('SIGTERM', () => on('SIGTERM'));
  }

  onSignal(fn: (signal: string) => void): void {
    this.handler = fn;
    if (this.received) fn(this.received);
  }
}
