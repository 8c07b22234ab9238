import { describe, expect, test } from 'vitest';
import { call, expectError, text } from './builtin-calls.js';

describe('units.parse_bytes', () => {
  test('units and numbers', () => {
    expect(call('units.parse_bytes', '1KiB')).toBe(1024);
    expect(call('units.parse_bytes', '10KB')).toBe(10000);
    expect(call('units.parse_bytes', '1.1KiB')).toBe(1126);
    expect(call('units.parse_bytes', '.5KB')).toBe(500);
    expect(call('units.parse_bytes', '"100TIB"')).toBe(109951162777600);
    expect(text('units.parse_bytes', '10eib')).toBe('11529215046068469760');
    expect(text('units.parse_bytes', '10e')).toBe('10000000000000000000');
    expect(call('units.parse_bytes', '1e3k')).toBe(1000000);
    expect(call('units.parse_bytes', '0.0')).toBe(0);
  });
  test('errors name the built-in as OPA does', () => {
    const b = (s: string, m: string) => expectError(() => call('units.parse_bytes', s), 'eval_builtin_error', 'units.parse_bytes: ' + m);
    b('', 'no byte amount provided');
    b('GB', 'no byte amount provided');
    b('0.0.0', 'could not parse byte amount to a number');
    b(' 327MiB ', 'spaces not allowed in resource strings');
    b('5xb', 'byte unit xb not recognized');
    b('1e1234567', 'exponent too large');
    expectError(() => call('units.parse_bytes', 1), 'eval_type_error', 'operand 1 must be string but got number');
  });
});

describe('units.parse', () => {
  test('SI and binary units, milli vs mega', () => {
    expect(call('units.parse', '500m')).toBe(0.5);
    expect(call('units.parse', '0.0005K')).toBe(0.5);
    expect(call('units.parse', '0.0000005M')).toBe(0.5);
    expect(call('units.parse', '100m')).toBe(0.1);
    expect(call('units.parse', '1.1Ki')).toBe(1126.4);
    expect(call('units.parse', '10KI')).toBe(10240);
    expect(call('units.parse', '1G')).toBe(1000000000);
    expect(text('units.parse', '10Ei')).toBe('11529215046068469760');
    expect(call('units.parse', '1m')).toBe(0.001);
  });
  test('errors', () => {
    const p = (s: string, m: string) => expectError(() => call('units.parse', s), 'eval_builtin_error', 'units.parse: ' + m);
    p('', 'no amount provided');
    p('foo', 'no amount provided');
    p('.5.2', 'could not parse amount to a number');
    p('100 k', 'spaces not allowed in resource strings');
    p('1Kb', 'unit Kb not recognized');
  });
});
