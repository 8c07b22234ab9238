import { describe, expect, it } from 'vitest';
import { newDecisionId } from '../../src/engine/decision-id.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newDecisionId', () => {
  it('makes version 4 UUIDs as randomUUID writes them, all different, across refills of its random pool', () => {
    const seen = new Set<string>();
    // 4,096 ids per refill: this crosses the pool's end twice
    for (let i = 0; i < 10000; i++) {
      const id = newDecisionId();
      expect(id).toMatch(V4);
      seen.add(id);
    }
    expect(seen.size).toBe(10000);
  });

  it('uses every hex digit in every free position (the bytes are random, not a counter)', () => {
    // position -> digits seen; a counter or a stuck byte would leave positions with one digit
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 4000; i++) {
      const id = newDecisionId();
      for (let p = 0; p < 36; p++) digits[p]!.add(id[p]!);
    }
    for (let p = 0; p < 36; p++) {
      if ([8, 13, 18, 23].includes(p)) expect([...digits[p]!]).toEqual(['-']);
      else if (p === 14) expect([...digits[p]!]).toEqual(['4']);
      else if (p === 19) expect(digits[p]!.size).toBe(4);
      else expect(digits[p]!.size).toBe(16);
    }
  });
});
