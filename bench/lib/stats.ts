// Timing helpers shared by the in-process benchmarks: per-call samples (ns) taken with
// process.hrtime.bigint(), interleaved rounds so that two contenders see the same noise
// (the machine is shared), and median / p99 summaries.

export interface Summary {
  /** Nanoseconds per call. */
  median: number;
  p99: number;
  mean: number;
  samples: number;
}

let sink = 0;
/** Keeps results alive so the JIT cannot drop the work that produced them. */
export function consume(v: unknown): void {
  if (v === undefined) sink ^= 1;
  else if (typeof v === 'boolean') sink ^= v ? 2 : 4;
  else if (Array.isArray(v)) sink ^= v.length;
  else sink ^= 8;
}
export function sinkValue(): number {
  return sink;
}

/** Times `count` calls of fn(inputs[i % n]) one by one; returns the samples in ns. */
export function sample<T>(fn: (x: T) => unknown, inputs: readonly T[], count: number, out: number[] = []): number[] {
  const n = inputs.length;
  for (let i = 0; i < count; i++) {
    const x = inputs[i % n]!;
    const t0 = process.hrtime.bigint();
    const r = fn(x);
    const t1 = process.hrtime.bigint();
    consume(r);
    out.push(Number(t1 - t0));
  }
  return out;
}

/** Times batches of `batch` calls and returns ns per call for each batch (for tiny costs). */
export function sampleBatched<T>(fn: (x: T) => unknown, inputs: readonly T[], batches: number, batch: number, out: number[] = []): number[] {
  const n = inputs.length;
  let k = 0;
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) consume(fn(inputs[k++ % n]!));
    const t1 = process.hrtime.bigint();
    out.push(Number(t1 - t0) / batch);
  }
  return out;
}

export function summarize(samples: number[]): Summary {
  const s = Float64Array.from(samples).sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  let sum = 0;
  for (const x of s) sum += x;
  return { median: at(0.5), p99: at(0.99), mean: sum / s.length, samples: s.length };
}

export interface Contender<T> {
  name: string;
  fn: (x: T) => unknown;
}

/**
 * Warms every contender up, then runs `rounds` rounds; in each round each contender
 * makes `perRound` timed calls (the order alternates between rounds). Returns one
 * summary per contender, in order.
 */
export function race<T>(
  contenders: Contender<T>[],
  inputs: readonly T[],
  opts: { warmup: number; rounds: number; perRound: number; roundBudgetMs?: number },
): Summary[] {
  // Each round is capped at a time budget per contender (measured on the warmup), so a
  // slow policy on a loaded machine still finishes in bounded time: the sample count,
  // not the run time, shrinks. (With fixed counts the admission review alone took ~28 s
  // of a 44 s full run at load 4-13 on 2 cores; the heap stays flat, so the one full run
  // that passed 300 s is best explained by per-decision cost times machine load.)
  let slowest = 0;
  for (const c of contenders) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < opts.warmup; i++) consume(c.fn(inputs[i % inputs.length]!));
    slowest = Math.max(slowest, Number(process.hrtime.bigint() - t0) / Math.max(1, opts.warmup));
  }
  const budgetNs = (opts.roundBudgetMs ?? 1000) * 1e6;
  const perRound = Math.max(Math.min(opts.perRound, 500), Math.min(opts.perRound, Math.floor(budgetNs / Math.max(1, slowest))));
  const all = contenders.map(() => [] as number[]);
  for (let r = 0; r < opts.rounds; r++) {
    const order = contenders.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) sample(contenders[i]!.fn, inputs, perRound, all[i]);
  }
  return all.map(summarize);
}

export function us(ns: number): string {
  return (ns / 1000).toFixed(ns < 10_000 ? 2 : 1) + ' µs';
}

export function ratio(a: number, b: number): string {
  return (a / b).toFixed(2) + 'x';
}

/** Pads a table of strings into aligned columns (first column left, others right). */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

/** A small deterministic PRNG (mulberry32) so that generated data is the same on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function machine(): string {
  return `node ${process.version}, ${process.platform}/${process.arch}`;
}
