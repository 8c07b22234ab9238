import { describe, expect, test } from 'vitest';
import { call, expectError } from './builtin-calls.js';

describe('semver', () => {
  test('is_valid', () => {
    // As in OPA's parser, an empty pre-release or build part after '-' / '+' is accepted.
    for (const v of ['1.0.0', '0.0.0', '1.2.3-alpha.1', '1.2.3+build.5', '1.2.3-rc.1+meta', '01.2.3', '1.0.0-', '1.0.0+']) expect(call('semver.is_valid', v), v).toBe(true);
    for (const v of ['1', '1.0', '1.0.0.1', 'v1.0.0', '1.0.0-a..b', 'a.b.c', '1.0.0-al_pha']) expect(call('semver.is_valid', v), v).toBe(false);
    expect(call('semver.is_valid', 1)).toBe(false);
  });
  test('compare with prerelease precedence', () => {
    expect(call('semver.compare', '1.0.0', '2.0.0')).toBe(-1);
    expect(call('semver.compare', '2.0.0', '1.0.0')).toBe(1);
    expect(call('semver.compare', '1.0.0', '1.0.0+build')).toBe(0);
    expect(call('semver.compare', '1.0.0-alpha', '1.0.0')).toBe(-1);
    const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    for (let i = 0; i + 1 < order.length; i++) {
      expect(call('semver.compare', order[i]!, order[i + 1]!), `${order[i]} < ${order[i + 1]}`).toBe(-1);
      expect(call('semver.compare', order[i + 1]!, order[i]!)).toBe(1);
    }
    expect(call('semver.compare', '1.10.0', '1.9.0')).toBe(1);
  });
  test('errors', () => {
    expectError(() => call('semver.compare', '1', '1.0.0'), 'eval_builtin_error', 'operand 1: string "1" is not a valid SemVer');
    expectError(() => call('semver.compare', '1.0.0', '1'), 'eval_builtin_error', 'operand 2: string "1" is not a valid SemVer');
    expectError(() => call('semver.compare', 1, '1.0.0'), 'eval_type_error', 'operand 1 must be string but got number');
  });
});
