import { describe, expect, test } from 'vitest';
import { BigNum, RSet } from '../../../src/value/index.js';
import { fakeContext, callBuiltin } from './fake-context.js';
import { call, expectError, n, text } from './builtin-calls.js';

describe('plus / minus / mul', () => {
  test('small integers stay doubles', () => {
    expect(call('plus', 1, 2)).toBe(3);
    expect(call('minus', 1, 4)).toBe(-3);
    expect(call('mul', -3, 0)).toBe(0);
    expect(Object.is(call('mul', -3, 0), -0)).toBe(false);
  });
  test('integers are exact at any size', () => {
    expect(text('plus', n('18446744073709551617'), 1)).toBe('18446744073709551618');
    expect(text('mul', n('18446744073709551617'), 2)).toBe('36893488147419103234');
    expect(text('plus', 9007199254740991, 2)).toBe('9007199254740993');
    expect(text('minus', n('-30339405259128826320371676477143698993343796573815996524417845829294351'), n('1'))).toBe(
      '-30339405259128826320371676477143698993343796573815996524417845829294352',
    );
    expect(call('plus', 49649733057, 1)).toBe(49649733058);
  });
  test('non-integers go through a 64-bit big.Float, printed shortest', () => {
    expect(call('plus', 0.1, 0.2)).toBe(0.3);
    expect(text('minus', 0.3, 0.1)).toBe('0.20000000000000000002');
    expect(call('mul', 1.5, 2)).toBe(3);
    expect(text('mul', 1.1, 3)).toBe('3.3000000000000000002');
    expect(text('plus', 1000000.5, 1)).toBe('1000001.5');
  });
  test('huge magnitudes', () => {
    // An integral big.Float prints in 'f' form, every digit.
    const big = text('mul', n('1e400'), 2.5);
    expect(big).toMatch(/^2500000000000000000\d*$/);
    expect(big.length).toBe(401);
    // 5^400 is itself rounded (Go's pow5 works at 128 bits), so the last digit may move.
    expect(text('mul', n('1e-400'), 2.5)).toMatch(/^2\.(5|4999999999999999999\d?)e-400$/);
    const t0 = Date.now();
    expect(text('mul', n('1e-100000'), 1.5)).toMatch(/^1\.49999\d*e-100000$|^1\.5e-100000$/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
  test('set difference and type errors', () => {
    const d = call('minus', RSet.of(1, 2, 3), RSet.of(2)) as RSet;
    expect(d.values()).toEqual([1, 3]);
    expectError(() => call('minus', RSet.of(1), 1), 'eval_type_error', 'operand 2 must be set but got number');
    expectError(() => call('minus', 1, RSet.of(1)), 'eval_type_error', 'operand 2 must be number but got set');
    expectError(() => call('minus', 'a', 1), 'eval_type_error', 'operand 1 must be one of {number, set} but got string');
    expectError(() => call('plus', 1, 'a'), 'eval_type_error', 'operand 2 must be number but got string');
  });
});

describe('div / rem', () => {
  test('exact quotients and 64-bit float quotients', () => {
    expect(call('div', 10, 4)).toBe(2.5);
    expect(call('div', 9, 3)).toBe(3);
    expect(text('div', 1, 3)).toBe('0.33333333333333333334');
    expect(text('div', 2, 3)).toBe('0.6666666666666666667');
    expect(call('div', 0, 5)).toBe(0);
  });
  test('errors', () => {
    expectError(() => call('div', 1, 0), 'eval_builtin_error', 'divide by zero');
    expectError(() => call('div', 1.5, 0), 'eval_builtin_error', 'divide by zero');
    expectError(() => call('rem', 7, 0), 'eval_builtin_error', 'modulo by zero');
    expectError(() => call('rem', 1.1, 1), 'eval_builtin_error', 'modulo on floating-point number');
  });
  test('remainder has the dividend sign and is exact for big integers', () => {
    expect(call('rem', 7, 4)).toBe(3);
    expect(call('rem', -7, 4)).toBe(-3);
    expect(Object.is(call('rem', -4, 2), -0)).toBe(false);
    expect(call('rem', 10, n('18446744073709551616'))).toBe(10);
    expect(text('rem', n('100000000000000000000000000001'), 7)).toBe(String(10n ** 29n % 7n + 1n));
  });
});

describe('abs / round / ceil / floor', () => {
  test('abs', () => {
    expect(call('abs', -10)).toBe(10);
    expect(call('abs', -0.1)).toBe(0.1);
    expect(text('abs', n('-123456789012345678901234567890'))).toBe('123456789012345678901234567890');
  });
  test('round is half away from zero', () => {
    expect(call('round', 2.5)).toBe(3);
    expect(call('round', -2.5)).toBe(-3);
    expect(call('round', 2.4)).toBe(2);
    expect(call('round', 0.49999999999999994)).toBe(0);
  });
  test('ceil and floor as OPA computes them', () => {
    expect(call('ceil', 1.01)).toBe(2);
    expect(call('ceil', 2222.2222222222)).toBe(2223);
    expect(call('ceil', -1.99999)).toBe(-1);
    expect(call('floor', 99.99999)).toBe(99);
    expect(call('floor', -1.001)).toBe(-2);
    // OPA truncates first and a truncated zero counts as non-negative.
    expect(call('ceil', -0.5)).toBe(1);
    expect(call('floor', -0.5)).toBe(0);
  });
});

describe('numbers.range / range_step', () => {
  test('ranges both ways', () => {
    expect(call('numbers.range', 1, 4)).toEqual([1, 2, 3, 4]);
    expect(call('numbers.range', 2, -1)).toEqual([2, 1, 0, -1]);
    expect(call('numbers.range_step', 0, 10, 4)).toEqual([0, 4, 8]);
    expect(call('numbers.range_step', 10, 0, 4)).toEqual([10, 6, 2]);
    expect((call('numbers.range', n('9007199254740993'), n('9007199254740994')) as unknown[])[0]).toBeInstanceOf(BigNum);
  });
  test('errors', () => {
    expectError(() => call('numbers.range', 1.5, 2), 'eval_type_error', 'operand 1 must be integer number but got floating-point number');
    expectError(() => call('numbers.range', 'a', 2), 'eval_type_error', 'operand 1 must be integer but got string');
    expectError(() => call('numbers.range_step', 1, 2, 0), 'eval_builtin_error', 'numbers.range_step: step must be a positive number above zero');
  });
});

describe('rand.intn', () => {
  test('one answer per query and arguments, within bounds', () => {
    const ctx = fakeContext();
    const a = callBuiltin('rand.intn', ['x', 1000000], ctx);
    for (let i = 0; i < 5; i++) expect(callBuiltin('rand.intn', ['x', 1000000], ctx)).toBe(a);
    expect(a as number).toBeGreaterThanOrEqual(0);
    expect(a as number).toBeLessThan(1000000);
    expect(ctx.ndCache.get('rand.intn')?.size).toBe(1);
    expect(callBuiltin('rand.intn', ['x', 0], ctx)).toBe(0);
    const neg = callBuiltin('rand.intn', ['y', -5], ctx) as number;
    expect(neg >= 0 && neg < 5).toBe(true);
    expectError(() => callBuiltin('rand.intn', ['x', 1.5], ctx), 'eval_type_error', 'operand 2 must be integer number but got floating-point number');
  });
});

describe('integer results past 2^53', () => {
  test('are the number makeNumber makes of their digits, on generated products', async () => {
    const { intToNumber } = await import('../../../src/eval/builtins/arithmetic/bigfloat.js');
    const { makeNumber } = await import('../../../src/value/number.js');
    const { seededRandom } = await import('../../seeded-random.js');
    const r = seededRandom(53);
    let doubles = 0;
    let bigs = 0;
    for (let i = 0; i < 3000; i++) {
      // products of round numbers (often exact doubles: 4102444800 * 1e9) and of arbitrary ones
      const round = r() < 0.6;
      const a = BigInt(Math.floor(r() * (round ? 1e5 : 1e10))) * 10n ** BigInt(Math.floor(r() * 12));
      const b = BigInt(Math.floor(r() * (round ? 1e5 : 1e10))) * 10n ** BigInt(Math.floor(r() * 8)) * (r() < 0.5 ? 1n : -1n);
      const p = a * b;
      const got = intToNumber(p);
      expect([p, got]).toEqual([p, makeNumber(p, 0)]);
      if (typeof got === 'number') doubles++;
      else bigs++;
    }
    expect(doubles).toBeGreaterThan(100);
    expect(bigs).toBeGreaterThan(100);
  });
});
