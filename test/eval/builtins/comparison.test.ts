import { describe, expect, test } from 'vitest';
import { RSet, newPlainObject } from '../../../src/value/index.js';
import { call, n } from './builtin-calls.js';

describe('comparison', () => {
  test('numbers compare by value across representations', () => {
    expect(call('lt', 1, 2)).toBe(true);
    expect(call('gt', 1, 2)).toBe(false);
    expect(call('equal', n('28857836529306024611913'), n('28857836529306024611912'))).toBe(false);
    expect(call('neq', n('28857836529306024611913'), n('28857836529306024611912'))).toBe(true);
    expect(call('lt', 9007199254740992, n('9007199254740993'))).toBe(true);
    expect(call('gte', 1.0, 1)).toBe(true);
  });
  test("OPA's total order across types", () => {
    const o = newPlainObject();
    const ordered = [null, false, true, -1, 'a', [1], o, RSet.of(1)];
    for (let i = 0; i + 1 < ordered.length; i++) {
      expect(call('lt', ordered[i]!, ordered[i + 1]!)).toBe(true);
      expect(call('lte', ordered[i + 1]!, ordered[i]!)).toBe(false);
    }
    expect(call('lt', 'B', 'a')).toBe(true);
    expect(call('lt', [1, 2], [1, 3])).toBe(true);
  });
  test('equality is structural', () => {
    expect(call('equal', RSet.of(1, 2), RSet.of(2, 1))).toBe(true);
    expect(call('eq', { a: [1] }, { a: [1] })).toBe(true);
    expect(call('equal', { a: 1 }, { a: 2 })).toBe(false);
  });
});
