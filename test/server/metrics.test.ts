// An idle server sleeps. /metrics serves the event loop's lag, sampled by a timer: at
// prom-client's default (every 10 ms) it woke an idle sidecar 100 times a second, in every
// process (~0.7% of a core each; three processes with --workers 2).
// Counted as each main thread's voluntary context switches (one per sleep in epoll) over two
// idle seconds, from /proc: Linux only, skipped elsewhere with the reason printed.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/helpers.js';
import { startRun, type RunProcess } from '../runtime/run-process.js';

const PROC = existsSync('/proc/self/status');
if (!PROC) console.log('test/server/metrics.test.ts: no /proc (not Linux): idle wake-ups not counted');

/** At most this many wake-ups a second for an idle process (before: ~100). */
const MAX_WAKEUPS_PER_SECOND = 40;
const IDLE_MS = 2000;

/** The main thread's voluntary context switches so far. */
function switches(pid: number): number {
  const m = /^voluntary_ctxt_switches:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'));
  return Number(m![1]);
}

async function wakeupsPerSecond(pids: number[]): Promise<number[]> {
  const before = pids.map(switches);
  await new Promise((r) => setTimeout(r, IDLE_MS));
  return pids.map((p, i) => ((switches(p) - before[i]!) * 1000) / IDLE_MS);
}

let run: RunProcess | undefined;
afterEach(async () => {
  await run?.kill('SIGTERM');
  run = undefined;
});

describe.skipIf(!PROC)('an idle server', () => {
  it('wakes a few times a second, and still reports the event loop lag', async () => {
    ensureBuilt();
    run = await startRun([]);
    // settled: start-up's work (and its timers) done
    await new Promise((r) => setTimeout(r, 1000));
    const [rate] = await wakeupsPerSecond([run.child.pid!]);
    expect(rate).toBeLessThan(MAX_WAKEUPS_PER_SECOND);
    const text = await (await fetch(`${run.url}/metrics`)).text();
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('with --workers 2: the primary and each worker', async () => {
    ensureBuilt();
    run = await startRun(['--workers', '2']);
    await new Promise((r) => setTimeout(r, 1000));
    const workers = execFileSync('pgrep', ['-P', String(run.child.pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
    expect(workers).toHaveLength(2);
    const rates = await wakeupsPerSecond([run.child.pid!, ...workers]);
    for (const r of rates) expect(r).toBeLessThan(MAX_WAKEUPS_PER_SECOND);
  });
});
