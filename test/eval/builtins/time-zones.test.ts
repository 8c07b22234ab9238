// time.format with IANA zones and Go layouts across DST changes, and zone abbreviations
// as Go prints them from the system tzdata (CET, BST, IST, ... not Intl's "GMT+1").
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { text } from './builtin-calls.js';
import { n } from './builtin-calls.js';

const UNIX_DATE = 'Mon Jan _2 15:04:05 MST 2006';
const fmt = (ns: string, zone: string, layout = UNIX_DATE) => text('time.format', [n(ns), zone, layout]);

describe('time.format across DST (America/New_York)', () => {
  it('spring forward: 01:59:59 EST is followed by 03:00:00 EDT', () => {
    expect(fmt('1710053999000000000', 'America/New_York')).toBe('"Sun Mar 10 01:59:59 EST 2024"');
    expect(fmt('1710054000000000000', 'America/New_York')).toBe('"Sun Mar 10 03:00:00 EDT 2024"');
  });
  it('fall back: 01:30 happens twice, first EDT then EST', () => {
    expect(fmt('1699162200000000000', 'America/New_York')).toBe('"Sun Nov  5 01:30:00 EDT 2023"');
    expect(fmt('1699165800000000000', 'America/New_York')).toBe('"Sun Nov  5 01:30:00 EST 2023"');
    expect(text('time.clock', [n('1699165800000000000'), 'America/New_York'])).toBe('[1,30,0]');
  });
  it('summer and far-future instants', () => {
    expect(fmt('1720000000000000000', 'America/New_York')).toBe('"Wed Jul  3 05:46:40 EDT 2024"');
    expect(fmt('4102444800000000000', 'America/New_York', 'MST')).toBe('"EST"');
  });
  it('Go layout elements: fractional seconds dropped when zero, PM, numeric zones', () => {
    expect(fmt('1700000000000000000', 'UTC', 'Monday, 02-Jan-06 15:04:05.999 -0700 Z07:00 PM')).toBe('"Tuesday, 14-Nov-23 22:13:20 +0000 Z PM"');
    expect(fmt('1700000000123456789', 'UTC', '2006-01-02T15:04:05.000Z07:00')).toBe('"2023-11-14T22:13:20.123Z"');
  });
});

describe.runIf(fs.existsSync('/usr/share/zoneinfo/Europe/Paris'))('zone abbreviations from tzdata', () => {
  it('match Go for European, Asian and Australian zones', () => {
    expect(fmt('1699162200000000000', 'Europe/Paris', '2006-01-02T15:04:05Z07:00 MST')).toBe('"2023-11-05T06:30:00+01:00 CET"');
    expect(fmt('1690000000000000000', 'Europe/Paris', 'MST')).toBe('"CEST"');
    expect(fmt('1690000000000000000', 'Europe/London', 'MST')).toBe('"BST"');
    expect(fmt('1700000000000000000', 'Europe/London', 'MST')).toBe('"GMT"');
    expect(fmt('1699162200000000000', 'Asia/Kolkata', 'Monday 3:04PM -07:00 MST')).toBe('"Sunday 11:00AM +05:30 IST"');
    expect(fmt('1700000000000000000', 'Asia/Tokyo', 'MST')).toBe('"JST"');
    expect(fmt('1700000000000000000', 'Australia/Sydney', 'MST')).toBe('"AEDT"');
    // Zones whose tzdata has no letters keep the numeric form.
    expect(fmt('1700000000000000000', 'America/Sao_Paulo', 'MST')).toBe('"-03"');
    // Local mean time before standard time (Paris Mean Time, +00:09:21).
    expect(fmt('-2000000000000000000', 'Europe/Paris', 'MST -07:00:00')).toBe('"PMT +00:09:21"');
  });
});
