// Connections spread over the workers (src/runtime/workers/balance.ts): the worker's count
// and its choice of connections to close, the primary's share, and the built server with
// --workers 2, where a burst of kept-alive connections used to stay with one worker.

import { EventEmitter } from 'node:events';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionBalance, connectionShare } from '../../../src/runtime/workers/balance.js';
import { ensureBuilt } from '../../cli/helpers.js';
import { startRun, type RunProcess } from '../run-process.js';
import { waitFor } from '../../loopback.js';

const conn = () => new EventEmitter() as EventEmitter & { once(e: 'close', l: () => void): unknown };

describe('ConnectionBalance', () => {
  it('closes connections over its share, one per interval, each once', () => {
    let now = 0;
    const b = new ConnectionBalance(() => {}, () => now, 100, 50);
    const cs = Array.from({ length: 9 }, conn);
    for (const c of cs) b.connection(c);
    // no share known yet: nothing is closed
    expect(cs.map((c) => b.shed(c))).toEqual(Array(9).fill(false));
    b.setShare(5);
    expect(b.shed(cs[0]!)).toBe(true);
    // the same connection is not counted twice, and the next waits for the interval
    expect(b.shed(cs[0]!)).toBe(false);
    expect(b.shed(cs[1]!)).toBe(false);
    const shed: number[] = [];
    for (let round = 0; round < 10; round++) {
      now += 50;
      for (let i = 1; i < 9; i++) if (b.shed(cs[i]!)) shed.push(i);
    }
    // 9 held, share 5: four in all (the first and three more), then none
    expect(shed).toHaveLength(3);
    // a closed connection that was not chosen leaves room: 8 held, 4 closing, share 5
    cs[8]!.emit('close');
    now += 50;
    expect(cs.slice(1, 8).some((c) => b.shed(c))).toBe(false);
  });

  it('closes nothing at or under its share, or with no limit', () => {
    const b = new ConnectionBalance(() => {}, () => 1_000, 100, 0);
    const cs = Array.from({ length: 3 }, conn);
    for (const c of cs) b.connection(c);
    b.setShare(3);
    expect(cs.some((c) => b.shed(c))).toBe(false);
    b.setShare(null);
    expect(cs.some((c) => b.shed(c))).toBe(false);
    b.setShare(2);
    expect(b.shed(cs[2]!)).toBe(true);
  });

  it('reports its count once per burst of changes, and only when it changed', async () => {
    const reports: number[] = [];
    const b = new ConnectionBalance((n) => reports.push(n), () => 0, 20, 0);
    const cs = Array.from({ length: 4 }, conn);
    for (const c of cs) b.connection(c);
    await waitFor('a report', () => reports.length > 0);
    expect(reports).toEqual([4]);
    cs[0]!.emit('close');
    b.connection(conn());
    await new Promise((r) => setTimeout(r, 60));
    expect(reports).toEqual([4]);
    cs[1]!.emit('close');
    await waitFor('a second report', () => reports.length > 1);
    expect(reports).toEqual([4, 3]);
  });
});

describe('connectionShare', () => {
  it('is the total over the workers, rounded up; no limit for one worker', () => {
    expect(connectionShare([9, 1])).toBe(5);
    expect(connectionShare([2, 1])).toBe(2);
    expect(connectionShare([0, 0])).toBe(1);
    expect(connectionShare([7, 0, 0])).toBe(3);
    expect(connectionShare([10])).toBeNull();
    expect(connectionShare([])).toBeNull();
  });
});

/** Established TCP connections on `port` (server side) held by each process, from /proc. */
function connectionsByPid(pids: number[], port: number): Map<number, number> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local address "0100007F:1F90", state 01 = ESTABLISHED, inode in column 10
      if (f[1]!.endsWith(':' + hexPort) && f[3] === '01') inodes.add(f[9]!);
    }
  }
  const out = new Map<number, number>();
  for (const pid of pids) {
    let n = 0;
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) n++;
      } catch {
        /* closed meanwhile */
      }
    }
    out.set(pid, n);
  }
  return out;
}

describe.skipIf(process.platform !== 'linux')('regolith run --workers 2: kept-alive connections', () => {
  let run: RunProcess | undefined;
  // a build (when the sources are newer than dist/) takes minutes on a busy machine
  beforeAll(() => ensureBuilt(), 600_000);
  afterAll(async () => {
    await run?.kill('SIGTERM');
  });

  it('a burst of 10 kept-alive connections ends up served by both workers', async () => {
    run = await startRun(['--workers', '2']);
    const url = new URL(run.url);
    const pids = execFileSync('pgrep', ['-P', String(run.child.pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
    expect(pids).toHaveLength(2);
    // both workers serve before the burst (each answers /health only once it listens)
    await waitFor('both workers', async () => (await fetch(`${run!.url}/health`)).status === 200, 30_000);
    await new Promise((r) => setTimeout(r, 500));

    // 10 connections opened at once, each sending decision requests one after another, as a
    // load generator or a proxy's pool does; the agent reconnects when a response says close
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    let stop = false;
    let answered = 0;
    const post = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, path: '/v1/data/x/allow', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end('{"input":{"user":"alice"}}');
      });
    const loops = Array.from({ length: 10 }, async () => {
      while (!stop) {
        expect(await post()).toBe(200);
        answered++;
      }
    });
    try {
      // 4 of 10 each at least (5 each is the share; a reconnection may land on either)
      const held = await waitFor(
        'both workers to hold at least 4 of the 10 connections',
        () => {
          const m = connectionsByPid(pids, Number(url.port));
          const counts = [...m.values()];
          return counts.reduce((a, b) => a + b, 0) >= 10 && counts.every((n) => n >= 4) ? counts : undefined;
        },
        20_000,
      );
      expect(held.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(10);
    } finally {
      stop = true;
      await Promise.all(loops);
      agent.destroy();
    }
    expect(answered).toBeGreaterThan(0);
  }, 120_000);
});
