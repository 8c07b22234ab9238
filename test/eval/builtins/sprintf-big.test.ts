// sprintf with Go's verbs, widths and precisions on numbers beyond float64 precision:
// OPA hands integers to fmt as *big.Int and other numbers as float64.
import { describe, expect, it } from 'vitest';
import { call, n } from './builtin-calls.js';

const BIG = '123456789012345678901234567890';
const sp = (format: string, ...args: string[]) => call('sprintf', format, args.map((a) => (/^-?\d/.test(a) ? n(a) : a)));

describe('sprintf on big numbers', () => {
  it('formats big integers exactly with %d %x %X %o, widths, flags', () => {
    expect(sp('%d', BIG)).toBe(BIG);
    expect(sp('%x|%X|%o', BIG, BIG, BIG)).toBe('18ee90ff6c373e0ee4e3f0ad2|18EE90FF6C373E0EE4E3F0AD2|143564417755415637016711617605322');
    expect(sp('[%40d][%-32d][%+d][%032d]', BIG, BIG, BIG, '-' + BIG)).toBe(
      '[          123456789012345678901234567890][123456789012345678901234567890  ][+123456789012345678901234567890][-0123456789012345678901234567890]',
    );
  });
  it('reports verbs big.Int does not support as Go does', () => {
    expect(sp('%e', BIG)).toBe('%!e(big.Int=123456789012345678901234567890)');
  });
  it('formats non-integers as float64', () => {
    expect(sp('%.2f', '12345678901234567890.125')).toBe('12345678901234567168.00');
    expect(sp('%v', '123456789012345678901234567890.5')).toBe('1.2345678901234568e+29');
    expect(sp('%10.3f|%08.3f|%e|%g', '3.14159', '-3.5', '123456.789', '0.000001234')).toBe('     3.142|-003.500|1.234568e+05|1.234e-06');
    expect(sp('%d', '1.5')).toBe('%!d(float64=1.5)');
  });
});
