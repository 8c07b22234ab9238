import { describe, expect, it } from 'vitest';
import { MAX_EXITS, RestartPolicy, WINDOW_MS } from '../../../src/runtime/workers/restarts.js';

describe('RestartPolicy', () => {
  it('backs off, then gives up past MAX_EXITS exits within the window', () => {
    let now = 0;
    const p = new RestartPolicy(() => now);
    const delays: number[] = [];
    for (let i = 0; i < MAX_EXITS; i++) {
      const v = p.exited('SIGKILL');
      if (!('restartInMs' in v)) throw new Error('gave up too early');
      delays.push(v.restartInMs);
      now += 1000;
    }
    expect(delays).toEqual([100, 200, 400, 800, 1600]);
    expect(p.exited('exit code 3')).toEqual({ giveUp: expect.stringContaining('exited 6 times within 60s (the last with exit code 3)') });
  });

  it('forgets exits older than the window', () => {
    let now = 0;
    const p = new RestartPolicy(() => now);
    for (let i = 0; i < MAX_EXITS; i++) p.exited('SIGKILL');
    now += WINDOW_MS;
    expect(p.exited('SIGKILL')).toEqual({ restartInMs: 100 });
  });
});
