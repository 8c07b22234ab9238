import { describe, expect, test } from 'vitest';
import { RObject, RSet } from '../../../src/value/index.js';
import { call, expectError, n, text } from './builtin-calls.js';

describe('count', () => {
  test('collections and strings (code points)', () => {
    expect(call('count', [1, 2, 3])).toBe(3);
    expect(call('count', { a: 1, b: 2 })).toBe(2);
    expect(call('count', RSet.of(1, 2, 2))).toBe(2);
    expect(call('count', 'åäö')).toBe(3);
    expect(call('count', 'a😀b')).toBe(3);
    const r = new RObject();
    r.set(1, 1);
    expect(call('count', r)).toBe(1);
  });
  test('errors', () => {
    expectError(() => call('count', null), 'eval_type_error', 'operand 1 must be one of {array, object, set, string} but got null');
    expectError(() => call('count', 1), 'eval_type_error', 'operand 1 must be one of {array, object, set, string} but got number');
  });
});

describe('sum / product', () => {
  test('integers, exact', () => {
    expect(call('sum', [1, 2, 3, 4])).toBe(10);
    expect(call('sum', RSet.of(1, 2, 3, 4))).toBe(10);
    expect(call('sum', [49649733057, 1])).toBe(49649733058);
    expect(text('sum', [n('18446744073709551617'), 1])).toBe('18446744073709551618');
    expect(call('product', [1, 2, 3, 4])).toBe(24);
    expect(text('product', [n('18446744073709551617'), 2])).toBe('36893488147419103234');
    expect(call('sum', [])).toBe(0);
    expect(call('product', [])).toBe(1);
  });
  test('non-integers', () => {
    expect(call('sum', [0.1, 0.2])).toBe(0.3);
    expect(call('sum', [1.5, 1])).toBe(2.5);
    // product keeps big.NewFloat(1)'s 53-bit precision, like doubles.
    expect(call('product', [0.1, 3])).toBe(0.30000000000000004);
  });
  test('element errors', () => {
    expectError(() => call('sum', [1, 'a']), 'eval_type_error', 'operand 1 must be array of numbers but got array containing string');
    expectError(() => call('product', RSet.of(1, 'a')), 'eval_type_error', 'operand 1 must be set of numbers but got set containing string');
    expectError(() => call('sum', 'a'), 'eval_type_error', 'operand 1 must be one of {set, array} but got string');
  });
});

describe('max / min / sort / all / any', () => {
  test('max and min', () => {
    expect(call('max', [1, 4, 2])).toBe(4);
    expect(call('min', [3, 2, 1, 4, 6, -7, 10])).toBe(-7);
    expect(call('max', RSet.of(1, 'a'))).toBe('a');
    expect(call('min', RSet.of(1, 'a'))).toBe(1);
    expect(call('max', [])).toBeUndefined();
    expect(call('min', new RSet())).toBeUndefined();
  });
  test('sort', () => {
    const input = [4, 'b', 1, null];
    expect(call('sort', input)).toEqual([null, 1, 4, 'b']);
    expect(input).toEqual([4, 'b', 1, null]);
    expect(call('sort', RSet.of(3, 1))).toEqual([1, 3]);
    expectError(() => call('sort', 'x'), 'eval_type_error', 'operand 1 must be one of {set, array} but got string');
  });
  test('all and any', () => {
    expect(call('all', [true, true])).toBe(true);
    expect(call('all', [true, 1])).toBe(false);
    expect(call('all', [])).toBe(true);
    expect(call('all', RSet.of(true, false))).toBe(false);
    expect(call('any', [false, true])).toBe(true);
    expect(call('any', RSet.of(false))).toBe(false);
    expectError(() => call('any', 1), 'eval_type_error', 'operand 1 must be one of {array, set} but got number');
  });
});
