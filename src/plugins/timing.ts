// How plugin delays map to wall-clock time. Configuration delays are whole seconds (as in
// OPA); tests shrink them with a scale instead of bending the configuration format.

export interface Timing {
  /** Milliseconds per configured second (1000 in production). */
  msPerSecond: number;
  /** Random number in [0, 1), replaceable for deterministic tests. */
  random(): number;
}

export const REAL_TIMING: Timing = { msPerSecond: 1000, random: Math.random };

export function secondsToMs(t: Timing, seconds: number): number {
  return seconds * t.msPerSecond;
}

/** A delay between min and max seconds, uniformly jittered (OPA's polling interval). */
export function jitteredDelayMs(t: Timing, minSeconds: number, maxSeconds: number): number {
  const min = secondsToMs(t, minSeconds);
  const max = secondsToMs(t, maxSeconds);
  return min + Math.floor(t.random() * (max - min + 1));
}

/**
 * Exponential backoff with jitter as OPA's util.DefaultBackoff: base 100ms (scaled), factor 2,
 * 10% jitter, capped at maxMs.
 */
export function backoffMs(t: Timing, retries: number, maxMs: number): number {
  const base = 0.1 * t.msPerSecond;
  let d = base * Math.pow(2, Math.min(retries, 30));
  d = Math.min(d, maxMs);
  const jitter = d * 0.1 * (t.random() * 2 - 1);
  return Math.max(0, Math.round(d + jitter));
}

/** A sleep that a stop() can cut short; resolves false when aborted. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
