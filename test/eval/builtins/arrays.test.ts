import { describe, expect, test } from 'vitest';
import { call, expectError } from './builtin-calls.js';

describe('arrays', () => {
  test('concat', () => {
    expect(call('array.concat', [1, 2], [3, 4])).toEqual([1, 2, 3, 4]);
    expectError(() => call('array.concat', { a: 1 }, [1]), 'eval_type_error', 'operand 1 must be array but got object');
    expectError(() => call('array.concat', [1], { a: 1 }), 'eval_type_error', 'operand 2 must be array but got object');
  });
  test('slice clamps its indices', () => {
    const a = [1, 2, 3, 4, 5];
    expect(call('array.slice', a, 1, 3)).toEqual([2, 3]);
    expect(call('array.slice', a, -4, -1)).toEqual([]);
    expect(call('array.slice', a, 4, 1)).toEqual([]);
    expect(call('array.slice', a, -1, 2)).toEqual([1, 2]);
    expect(call('array.slice', a, 3, 6)).toEqual([4, 5]);
    expect(call('array.slice', [], 1000, 2000)).toEqual([]);
    expectError(() => call('array.slice', a, 1.5, 2), 'eval_type_error', 'operand 2 must be integer number but got floating-point number');
    expectError(() => call('array.slice', a, 1, 'x'), 'eval_type_error', 'operand 3 must be number but got string');
  });
  test('reverse does not modify its input', () => {
    const a = [1, 2, 3];
    expect(call('array.reverse', a)).toEqual([3, 2, 1]);
    expect(a).toEqual([1, 2, 3]);
    expectError(() => call('array.reverse', {}), 'eval_type_error', 'operand 1 must be array but got object');
  });
  test('flatten splices one level of arrays', () => {
    expect(call('array.flatten', [[1, 2], 3, [[4]]])).toEqual([1, 2, 3, [4]]);
    expect(call('array.flatten', [])).toEqual([]);
  });
});
