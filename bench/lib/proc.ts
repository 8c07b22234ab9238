// A server's CPU time as Linux counts it (/proc), for servers that are several processes
// (`regolith run --workers N`: a primary and its workers) and several threads each (the
// event loop, and V8's helpers: garbage collection, compilation). The main threads are
// counted apart: one process can serve no faster than its event loop allows, whatever its
// helpers do on other cores.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1_000_000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

export interface TreeCpu {
  /** µs of CPU in user space and in the kernel, every thread of every process. */
  user: number;
  system: number;
  /** µs of CPU of the processes' main threads (their event loops), user and kernel. */
  main: number;
  /** µs of CPU of the first process alone (a cluster's primary), every thread. */
  root: number;
}

/** utime and stime (clock ticks) from a /proc/.../stat line; the name may hold spaces. */
function times(stat: string): [number, number] {
  const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return [Number(f[11]), Number(f[12])];
}

/** The process and its children (a cluster primary's workers). */
export function processTree(pid: number): number[] {
  try {
    return [pid, ...execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number)];
  } catch {
    return [pid]; // pgrep exits 1 when there are no children
  }
}

/** CPU so far of a process and its children. A process that exits between reads counts as nothing. */
export function treeCpu(pid: number): TreeCpu {
  const out: TreeCpu = { user: 0, system: 0, main: 0, root: 0 };
  for (const p of processTree(pid)) {
    try {
      const [u, s] = times(readFileSync(`/proc/${p}/stat`, 'utf8'));
      const [mu, ms] = times(readFileSync(`/proc/${p}/task/${p}/stat`, 'utf8'));
      out.user += u * TICK_US;
      out.system += s * TICK_US;
      out.main += (mu + ms) * TICK_US;
      if (p === pid) out.root = (u + s) * TICK_US;
    } catch {
      /* exited */
    }
  }
  return out;
}

/** CPU so far (µs) of each kind of thread in a process tree, keyed by "primary:" or "child:"
 *  and "main" (the event loop) or the thread's name, threads of one name summed: where the
 *  extra CPU of a change goes. (Node 20 names every helper thread, V8's and libuv's, `node`.) */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of processTree(pid)) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tids) {
      try {
        const stat = readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).trim();
        const [u, s] = times(stat);
        const key = `${p === pid ? 'primary' : 'child'}:${Number(t) === p ? 'main' : name}`;
        out.set(key, (out.get(key) ?? 0) + (u + s) * TICK_US);
      } catch {
        /* exited */
      }
    }
  }
  return out;
}

/** Pins a process and all its threads to `cpus` (taskset's list, e.g. "1"). */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

