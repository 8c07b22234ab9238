import { describe, expect, it } from 'vitest';
import { callBuiltin, fakeContext } from './fake-context.js';
import { BigNum, parseNumber, type Value } from '../../../src/value/index.js';

const call = (name: string, ...args: Value[]) => callBuiltin(name, args);
const num = (s: string) => parseNumber(s)!;
const text = (v: Value | undefined) => (v instanceof BigNum ? v.text : String(v));
const err = (name: string, ...args: Value[]) => {
  try {
    call(name, ...args);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
};

describe('time.parse_ns / parse_rfc3339_ns', () => {
  it('parses Go layouts', () => {
    const L = '2006-01-02T15:04:05Z07:00';
    expect(call('time.parse_ns', L, '2017-06-02T19:00:00-07:00')).toBe(1496455200000000000);
    expect(text(call('time.parse_ns', L, '1677-09-21T00:12:43.145224192-00:00'))).toBe('-9223372036854775808');
    expect(text(call('time.parse_ns', L, '2262-04-11T23:47:16.854775807-00:00'))).toBe('9223372036854775807');
    expect(call('time.parse_ns', "01/02 03:04:05PM '06 -0700", "06/02 07:00:00PM '17 -0700")).toBe(1496455200000000000);
    expect(call('time.parse_ns', '02 Jan 06 15:04 -0700', '02 Jun 17 19:00 -0700')).toBe(1496455200000000000);
    expect(call('time.parse_ns', 'RFC822Z', '02 Jun 17 19:00 -0700')).toBe(1496455200000000000);
    expect(call('time.parse_ns', '2006-01-02', '2020-02-29')).toBe(1582934400000000000);
    expect(call('time.parse_ns', 'Mon Jan _2 15:04:05 2006', 'Tue Feb  4 01:02:03 2020')).toBe(1580778123000000000);
  });
  it('rejects times outside int64 nanoseconds', () => {
    expect(err('time.parse_ns', '2006-01-02T15:04:05Z07:00', '1677-09-21T00:12:43.145224191-00:00')).toBe(
      'time outside of valid range',
    );
    expect(err('time.parse_rfc3339_ns', '2262-04-11T23:47:16.854775808-00:00')).toBe('time outside of valid range');
  });
  it('reports Go parse errors', () => {
    expect(err('time.parse_ns', '2006-01-02', '2020-13-01')).toBe('parsing time "2020-13-01": month out of range');
    expect(err('time.parse_ns', '2006-01-02', '2020-02-30')).toBe('parsing time "2020-02-30": day out of range');
    expect(err('time.parse_ns', '2006-01-02', '2020-x')).toBe(
      'parsing time "2020-x" as "2006-01-02": cannot parse "x" as "01"',
    );
    expect(err('time.parse_ns', '2006-01-02', '2020-01-02 extra')).toBe(
      'parsing time "2020-01-02 extra": extra text: " extra"',
    );
  });
  it('parses RFC 3339 with fractions', () => {
    expect(call('time.parse_rfc3339_ns', '1970-01-01T00:00:00-00:00')).toBe(0);
    expect(call('time.parse_rfc3339_ns', '2017-06-02T19:00:00-07:00')).toBe(1496455200000000000);
    expect(text(call('time.parse_rfc3339_ns', '1970-01-01T00:00:01.5Z'))).toBe('1500000000');
  });
});

describe('time.parse_duration_ns', () => {
  it('parses Go durations', () => {
    expect(call('time.parse_duration_ns', '100ms')).toBe(100000000);
    expect(call('time.parse_duration_ns', '1h2m3.5s')).toBe(3723500000000);
    expect(call('time.parse_duration_ns', '1µs')).toBe(1000);
    expect(call('time.parse_duration_ns', '-1.5h')).toBe(-5400000000000);
    expect(call('time.parse_duration_ns', '0')).toBe(0);
  });
  it('reports errors', () => {
    expect(err('time.parse_duration_ns', '1')).toBe('time: missing unit in duration "1"');
    expect(err('time.parse_duration_ns', '1x')).toBe('time: unknown unit "x" in duration "1x"');
    expect(err('time.parse_duration_ns', '')).toBe('time: invalid duration ""');
  });
});

describe('time.date / clock / weekday', () => {
  const ns = 1517814000 * 1e9;
  it('works in UTC and in zones', () => {
    expect(call('time.date', ns)).toEqual([2018, 2, 5]);
    expect(call('time.date', [ns, 'America/Los_Angeles'])).toEqual([2018, 2, 4]);
    expect(call('time.date', [1517832000 * 1e9, ''])).toEqual([2018, 2, 5]);
    expect(call('time.date', 1582977600 * 1e9)).toEqual([2020, 2, 29]);
    expect(call('time.clock', 1517832000 * 1e9)).toEqual([12, 0, 0]);
    expect(call('time.clock', [1517832000 * 1e9, 'America/New_York'])).toEqual([7, 0, 0]);
    expect(call('time.weekday', 1517832000000000000)).toBe('Monday');
    expect(call('time.weekday', 1518350400000000000)).toBe('Sunday');
    expect(call('time.date', -1)).toEqual([1969, 12, 31]);
  });
  it('rejects too big timestamps and unknown zones', () => {
    const big = num('1582977600000000000000');
    expect(err('time.date', big)).toBe('timestamp too big');
    expect(err('time.clock', big)).toBe('timestamp too big');
    expect(err('time.weekday', big)).toBe('timestamp too big');
    expect(err('time.date', [0, 'Mars/Olympus'])).toBe('unknown time zone Mars/Olympus');
    expect(err('time.date', 'x')).toMatch(/operand 1 must be/);
  });
});

describe('time.add_date / diff / format', () => {
  it('adds with Go normalisation', () => {
    expect(text(call('time.add_date', num('1585852421593912000'), 3, 9, 12))).toBe('1705257221593912000');
    expect(text(call('time.add_date', num('1585852421593912000'), -1, -1, -1))).toBe('1551465221593912000');
    // Jan 31 + 1 month = Mar 2 (2021) as Go normalises.
    const jan31 = call('time.parse_ns', '2006-01-02', '2021-01-31') as number;
    expect(call('time.add_date', jan31, 0, 1, 0)).toBe(call('time.parse_ns', '2006-01-02', '2021-03-03'));
    expect(err('time.add_date', 0, 2262, 1, 1)).toBe('time outside of valid range');
    expect(err('time.add_date', num('-9223372036854775808'), 0, 0, -1)).toBe('time outside of valid range');
  });
  it('diffs', () => {
    const p = (s: string) => call('time.parse_ns', '2006-01-02', s)!;
    expect(call('time.diff', p('2020-02-02'), p('2020-03-01'))).toEqual([0, 0, 28, 0, 0, 0]);
    expect(call('time.diff', p('2021-02-02'), p('2021-03-01'))).toEqual([0, 0, 27, 0, 0, 0]);
    expect(call('time.diff', p('2004-02-29'), p('2005-03-01'))).toEqual([1, 0, 1, 0, 0, 0]);
    const now = 1700000000000000000;
    expect(call('time.diff', now + 61e9, now)).toEqual([0, 0, 0, 0, 1, 1]);
    expect(call('time.diff', [now + 60e9, 'UTC'], [now, 'Asia/Shanghai'])).toEqual([0, 0, 0, 0, 1, 0]);
  });
  it('formats', () => {
    const t = num('1670006453141828752');
    expect(call('time.format', t)).toBe('2022-12-02T18:40:53.141828752Z');
    expect(call('time.format', [t, 'Asia/Kolkata'])).toBe('2022-12-03T00:10:53.141828752+05:30');
    expect(call('time.format', [t, 'Asia/Kolkata', 'Mon Jan 02 15:04:05 -0700 2006'])).toBe('Sat Dec 03 00:10:53 +0530 2022');
    expect(call('time.format', [t, 'Asia/Kolkata', 'RFC1123Z'])).toBe('Sat, 03 Dec 2022 00:10:53 +0530');
    expect(call('time.format', [0, 'UTC', '3:04PM Jan _2 .000'])).toBe('12:00AM Jan  1 .000');
    expect(call('time.format', [0, 'America/New_York', 'RFC1123'])).toBe('Wed, 31 Dec 1969 19:00:00 EST');
    expect(err('time.format', 1582977600 * 10e12)).toBe('timestamp too big');
  });
  it('now_ns is the query time', () => {
    const ctx = fakeContext('time.now_ns', { nowNs: 1234567890123456789n });
    expect(text(callBuiltin('time.now_ns', [], ctx))).toBe('1234567890123456789');
  });
});
