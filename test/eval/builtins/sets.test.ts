import { describe, expect, test } from 'vitest';
import { RSet } from '../../../src/value/index.js';
import { call, expectError } from './builtin-calls.js';

const vals = (v: unknown) => (v as RSet).values();

describe('sets', () => {
  test('and / or', () => {
    expect(vals(call('and', RSet.of(1, 2, 3), RSet.of(2, 3, 4)))).toEqual([2, 3]);
    expect(vals(call('or', RSet.of(1, [1]), RSet.of(2, [1])))).toEqual([1, 2, [1]]);
    expectError(() => call('and', RSet.of(1), [1]), 'eval_type_error', 'operand 2 must be set but got array');
  });
  test('intersection / union of a set of sets', () => {
    expect(vals(call('intersection', RSet.of(RSet.of(1, 2, 3), RSet.of(2, 3), RSet.of(3, 2, 9))))).toEqual([2, 3]);
    expect(vals(call('intersection', new RSet()))).toEqual([]);
    expect(vals(call('union', RSet.of(RSet.of(1), RSet.of(2, 3))))).toEqual([1, 2, 3]);
    expect(vals(call('union', new RSet()))).toEqual([]);
    expectError(() => call('union', RSet.of(1)), 'eval_type_error', 'operand 1 must be set but got number');
    expectError(() => call('intersection', [RSet.of(1)]), 'eval_type_error', 'operand 1 must be set but got array');
  });
});
