// The tests' own port helper: ports for servers started in child processes must not be ones an
// outgoing connection of another test can take meanwhile, nor ones another test was given.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from './loopback.js';

describe('freePort', () => {
  it('gives distinct ports below the kernel ephemeral range, even when asked at once', async () => {
    const ports = await Promise.all(Array.from({ length: 100 }, () => freePort()));
    expect(new Set(ports).size).toBe(100);
    let ephemeralLow = 32768;
    try {
      ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    } catch {
      /* not Linux */
    }
    if (ephemeralLow - Math.max(10_000, ephemeralLow - 12_000) >= 1000) for (const p of ports) expect(p).toBeLessThan(ephemeralLow);
  });
});
