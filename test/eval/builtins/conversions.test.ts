import { describe, expect, test } from 'vitest';
import { BigNum, RSet } from '../../../src/value/index.js';
import { call, expectError, text } from './builtin-calls.js';

describe('to_number', () => {
  test('scalars', () => {
    expect(call('to_number', null)).toBe(0);
    expect(call('to_number', true)).toBe(1);
    expect(call('to_number', false)).toBe(0);
    expect(call('to_number', -42.5)).toBe(-42.5);
  });
  test('strings in Go float syntax', () => {
    expect(call('to_number', '10')).toBe(10);
    expect(call('to_number', '+1.5')).toBe(1.5);
    expect(call('to_number', '.5')).toBe(0.5);
    expect(call('to_number', '1.')).toBe(1);
    expect(call('to_number', '1e3')).toBe(1000);
    expect(call('to_number', '0x1p-2')).toBe(0.25);
    expect(text('to_number', '12345678901234567890123')).toBe('12345678901234567890123');
    expect(call('to_number', '12345678901234567890123')).toBeInstanceOf(BigNum);
  });
  test('errors', () => {
    expectError(() => call('to_number', 'foo'), 'eval_builtin_error', 'strconv.ParseFloat: parsing "foo": invalid syntax');
    expectError(() => call('to_number', '1 '), 'eval_builtin_error', 'strconv.ParseFloat: parsing "1 ": invalid syntax');
    expectError(() => call('to_number', '1e400'), 'eval_builtin_error', 'strconv.ParseFloat: parsing "1e400": value out of range');
    expectError(() => call('to_number', '-Inf'), 'eval_type_error', 'operand 1 must be valid number string but got string');
    expectError(() => call('to_number', 'NaN'), 'eval_type_error', 'operand 1 must be valid number string but got string');
    expectError(() => call('to_number', [1]), 'eval_type_error', 'operand 1 must be one of {null, boolean, number, string} but got array');
  });
});

describe('cast_*', () => {
  test('pass the right type through, convert arrays and sets', () => {
    expect(call('cast_array', RSet.of(3, 1))).toEqual([1, 3]);
    expect((call('cast_set', [1, 1, 2]) as RSet).values()).toEqual([1, 2]);
    expect(call('cast_string', 'a')).toBe('a');
    expect(call('cast_boolean', true)).toBe(true);
    expect(call('cast_null', null)).toBe(null);
    expect(call('cast_object', { a: 1 })).toEqual({ a: 1 });
  });
  test('errors', () => {
    expectError(() => call('cast_array', 'a'), 'eval_type_error', 'operand 1 must be one of {array, set} but got string');
    expectError(() => call('cast_string', 1), 'eval_type_error', 'operand 1 must be string but got number');
    expectError(() => call('cast_object', [1]), 'eval_type_error', 'operand 1 must be object but got array');
  });
});
