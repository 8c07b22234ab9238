// Go's renderings that `opa eval --profile/--count` output uses: time.Duration's String(),
// %v of a float64, and go-metrics' histogram statistics.

import { describe, expect, it } from 'vitest';
import { goDuration, goFloat, statistics } from '../../src/cli/eval-stats.js';

describe('Go renderings', () => {
  it('durations as time.Duration prints them', () => {
    expect(goDuration(0)).toBe('0s');
    expect(goDuration(999)).toBe('999ns');
    expect(goDuration(1500)).toBe('1.5µs');
    expect(goDuration(1_234_567)).toBe('1.234567ms');
    expect(goDuration(2_000_000)).toBe('2ms');
    expect(goDuration(2.5e9)).toBe('2.5s');
    expect(goDuration(60e9)).toBe('1m0s');
    expect(goDuration(3723e9)).toBe('1h2m3s');
  });

  it('floats as %v prints them', () => {
    expect(goFloat(123456)).toBe('123456');
    expect(goFloat(123456.5)).toBe('123456.5');
    expect(goFloat(1234567)).toBe('1.234567e+06');
    expect(goFloat(0.00001)).toBe('1e-05');
  });

  it('statistics as go-metrics computes them (interpolated percentiles)', () => {
    const s = statistics([4, 1, 3, 2]);
    expect(s).toMatchObject({ count: 4, min: 1, max: 4, mean: 2.5, median: 2.5, '75%': 3.75, '90%': 4 });
    expect(s.stddev).toBeCloseTo(Math.sqrt(1.25));
    expect(Object.keys(s)).toEqual([...Object.keys(s)].sort());
  });
});
