// Bounded concurrency for adapters that fetch one thing per item (a version's
// requirements, a calendar's events, a file's permissions): at most `n` at a time, and
// after a failure no new item starts (the read fails anyway; the rest would be wasted).

export async function pool<T>(xs: readonly T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && i < xs.length) {
      try {
        await fn(xs[i++]!);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, xs.length) }, worker));
}
