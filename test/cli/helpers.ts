// Runs the built `regolith` binary the way a user does. The package is built once per
// test run: concurrent runs (two vitest workers, another engineer's run) serialise on a
// lock directory, and a build newer than every source file is reused. Each test process
// then runs its own snapshot of dist/, so a rebuild elsewhere (tsup empties dist/ first)
// cannot pull the binary away mid-test.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
const SNAPSHOT = join(ROOT, `node_modules/.cache/regolith-cli-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
/** The snapshot of dist/cli/main.js this process runs (node_modules still resolve from ROOT). */
export const BIN = join(SNAPSHOT, 'cli/main.js');
const LOCK = join(ROOT, 'node_modules/.cache/regolith-cli-build.lock');

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestSource(p) : st.mtimeMs);
  }
  return newest;
}

/** When the last build through ensureBuilt started (ms); a build started after this process did is fresh for it. */
const STAMP = join(ROOT, 'node_modules/.cache/regolith-cli-build.started');
const STARTED = Date.now() - process.uptime() * 1000;

function fresh(): boolean {
  const main = join(DIST, 'cli/main.js');
  if (!existsSync(main)) return false;
  // Sources edited while this process waited for the lock (others keep working) do not
  // call for another build: each would make every waiter rebuild in turn.
  const stamp = existsSync(STAMP) ? Number(readFileSync(STAMP, 'utf8')) : 0;
  return stamp >= STARTED || statSync(main).mtimeMs >= newestSource(join(ROOT, 'src'));
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Whether the process holding the build lock is still alive (it wrote its pid into the lock). */
function holderAlive(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
  } catch {
    // the lock is gone, its holder has not written its pid yet, or it predates pids (old rule: stale after 5 minutes)
    return !existsSync(LOCK) || Date.now() - statSync(LOCK).mtimeMs < 300_000;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function ensureBuilt(): void {
  mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch {
      // Someone else is building: wait for as long as it runs (a build on a loaded machine
      // takes minutes, so no fixed deadline); a lock whose holder died is broken.
      try {
        if (!holderAlive()) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      sleep(250);
    }
  }
  try {
    if (!fresh()) {
      const started = Date.now();
      const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
      if (r.status !== 0 || !existsSync(join(DIST, 'cli/main.js'))) {
        throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
      }
      writeFileSync(STAMP, String(started));
    }
    rmSync(SNAPSHOT, { recursive: true, force: true });
    cpSync(DIST, SNAPSHOT, { recursive: true });
    process.on('exit', () => rmSync(SNAPSHOT, { recursive: true, force: true }));
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export function regolith(args: string[], opts: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    input: opts.input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
