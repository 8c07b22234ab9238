// The tests' own port helper: ports for servers started in child processes must not be ones an
// outgoing connection of another test can take meanwhile, nor ones another test was given.

import { describe, expect, it } from 'vitest';
import { freePort, reservableRange } from './loopback.js';

describe('freePort', () => {
  it('gives distinct ports below the kernel ephemeral range, even when asked at once', async () => {
    const ports = await Promise.all(Array.from({ length: 100 }, () => freePort()));
    expect(new Set(ports).size).toBe(100);
    // the ephemeral range starts where the reservable one ends (none: the kernel's pick, unchecked)
    const ephemeralLow = reservableRange()?.[1];
    if (ephemeralLow !== undefined) for (const p of ports) expect(p).toBeLessThan(ephemeralLow);
  });
});
