import { describe, expect, test } from 'vitest';
import { call, expectError, n, text } from './builtin-calls.js';

describe('bits', () => {
  test('basic operations', () => {
    expect(call('bits.or', 7, 9)).toBe(15);
    expect(call('bits.and', 7, 9)).toBe(1);
    expect(call('bits.xor', 42, 3)).toBe(41);
    expect(call('bits.negate', 42)).toBe(-43);
    expect(call('bits.lsh', 1, 3)).toBe(8);
    expect(call('bits.rsh', 8, 3)).toBe(1);
    expect(call('bits.rsh', -8, 1)).toBe(-4);
  });
  test('arbitrary size, exact', () => {
    expect(text('bits.lsh', n('9223372036854775807'), 1)).toBe('18446744073709551614');
    expect(text('bits.lsh', 2147483647, 1)).toBe('4294967294');
    expect(text('bits.and', n('18446744073709551615'), n('340282366920938463463374607431768211455'))).toBe('18446744073709551615');
    expect(call('bits.rsh', 5, n('100000000000'))).toBe(0);
  });
  test('errors', () => {
    expectError(() => call('bits.or', 7.2, 42), 'eval_type_error', 'operand 1 must be integer number but got floating-point number');
    expectError(() => call('bits.and', 7, 'hi'), 'eval_type_error', 'operand 2 must be integer but got string');
    expectError(() => call('bits.lsh', 7, -1), 'eval_type_error', 'operand 2 must be an unsigned integer number but got a negative integer');
    expectError(() => call('bits.rsh', 7, -1), 'eval_type_error', 'operand 2 must be an unsigned integer number but got a negative integer');
  });
});
