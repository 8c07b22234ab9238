// A benchmark loop in the manner of Go's testing.B, which `opa bench` and `opa test --bench`
// use: grow the iteration count until a run lasts the bench time, then report ns/op and
// memory per op. Node has no allocation counter, so bytes/op and allocs/op are estimated
// from heap growth (with GC between runs when node runs with --expose-gc). A warm-up
// phase first lets the JIT settle, which Go's loop does not need.

import { getHeapStatistics } from 'node:v8';

export interface BenchResult {
  /** Iterations of the final run. */
  n: number;
  /** Total time of the final run, in nanoseconds. */
  totalNs: number;
  nsPerOp: number;
  /** Estimated heap bytes allocated per operation. */
  bytesPerOp: number;
  /** Estimated allocations per op (bytes per op / 64, a typical small object). */
  allocsPerOp: number;
}

const ESTIMATED_ALLOC_SIZE = 64;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function timed(fn: () => unknown, n: number): Promise<{ ns: number; bytes: number }> {
  gc();
  const heap0 = getHeapStatistics().used_heap_size;
  let allocated = 0;
  let last = heap0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const r = fn();
    if (r instanceof Promise) await r;
    // Heap usage drops when a GC runs in between; count only the growth we saw.
    if ((i & 63) === 63) {
      const h = getHeapStatistics().used_heap_size;
      if (h > last) allocated += h - last;
      last = h;
    }
  }
  const ns = Number(process.hrtime.bigint() - t0);
  const h = getHeapStatistics().used_heap_size;
  if (h > last) allocated += h - last;
  return { ns, bytes: allocated };
}

/** Go's roundUp: the next count of the form 1, 2, 3, 5 times a power of ten. */
function roundUp(n: number): number {
  let base = 1;
  while (base * 10 <= n) base *= 10;
  for (const m of [1, 2, 3, 5, 10]) if (n <= m * base) return m * base;
  return 10 * base;
}

export async function benchmark(fn: () => unknown, benchTimeMs = 1000, maxN = 1e9): Promise<BenchResult> {
  const target = benchTimeMs * 1e6;
  const warmUntil = process.hrtime.bigint() + BigInt(Math.round(target / 5));
  while (process.hrtime.bigint() < warmUntil) for (let i = 0; i < 100; i++) await fn();
  let n = 1;
  let run = await timed(fn, n);
  while (run.ns < target && n < maxN) {
    const perOp = Math.max(run.ns / n, 1);
    // Predict the count that fills the bench time, growing at most 100x per step (as Go).
    let next = Math.ceil((target * 1.2) / perOp);
    next = Math.max(Math.min(next, n * 100), n + 1);
    n = Math.min(roundUp(next), maxN);
    run = await timed(fn, n);
  }
  const bytesPerOp = Math.round(run.bytes / n);
  return {
    n,
    totalNs: run.ns,
    nsPerOp: run.ns / n,
    bytesPerOp,
    allocsPerOp: Math.round(bytesPerOp / ESTIMATED_ALLOC_SIZE),
  };
}

/** Go's BenchmarkResult.String(): "<N>\t<ns> ns/op". */
export function goBenchString(r: BenchResult): string {
  const ns = r.nsPerOp >= 100 || r.nsPerOp === 0 ? String(Math.round(r.nsPerOp)) : r.nsPerOp.toFixed(r.nsPerOp >= 10 ? 1 : 2);
  return `${String(r.n).padStart(8)}\t${ns.padStart(10)} ns/op`;
}

/** Go's MemString(): "<B> B/op\t<allocs> allocs/op". */
export function goBenchMemString(r: BenchResult): string {
  return `${String(r.bytesPerOp).padStart(8)} B/op\t${String(r.allocsPerOp).padStart(8)} allocs/op`;
}
