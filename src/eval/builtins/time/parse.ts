// Parsing with a Go layout, as Go's time.Parse, with its error messages: the layout is read
// element by element (parseElement), each element setting fields of the time (Fields); the
// fields then become an instant (toNanos).

import { MONTHS, WEEKDAYS, NS_PER_SEC, daysFromCivil, daysIn, isLeap } from './calendar.js';
import { isDigitAt, nextChunk, type Chunk, type Std } from './layout.js';

/** Go's quote() in time error messages. */
function quote(s: string): string {
  return JSON.stringify(s);
}

export class TimeParseError extends Error {}

function parseErr(layout: string, value: string, layoutElem: string, valueElem: string, message = ''): TimeParseError {
  if (message) return new TimeParseError(`parsing time ${quote(value)}${message}`);
  return new TimeParseError(
    `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`,
  );
}

/** Go's skip: matches literal layout text; a space matches any run of spaces. */
function skip(value: string, prefix: string): string | undefined {
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (value.length > 0 && value[0] !== ' ') return undefined;
      prefix = prefix.replace(/^ +/, '');
      value = value.replace(/^ +/, '');
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) return undefined;
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return value;
}

class Bad extends Error {}

function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigitAt(s, 0)) throw new Bad();
  if (!isDigitAt(s, 1)) {
    if (fixed) throw new Bad();
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, s.slice(2)];
}

function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + s.charCodeAt(i) - 48;
  if (i === 0 || (fixed && i !== 3)) throw new Bad();
  return [n, s.slice(i)];
}

function lookupName(names: string[], value: string): [number, string] {
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!;
    if (value.length >= n.length && value.slice(0, n.length).toLowerCase() === n.toLowerCase()) return [i, value.slice(n.length)];
  }
  throw new Bad();
}

/** Parses the fraction ".123" (nbytes includes the separator); returns nanoseconds. */
function parseNanos(value: string, nbytes: number): number {
  if (value[0] !== '.' && value[0] !== ',') throw new Bad();
  if (nbytes > 10) nbytes = 10;
  const digits = value.slice(1, nbytes);
  if (!/^\d+$/.test(digits)) throw new Bad();
  return Number(digits) * 10 ** (10 - nbytes);
}

function timeZoneLength(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith('ChST') || value.startsWith('MeST')) return 4;
  if (value.startsWith('GMT')) {
    const m = /^GMT([+-]\d+)/.exec(value);
    if (m && Math.abs(Number(m[1])) <= 23) return m[0].length;
    return 3;
  }
  if (value[0] === '+' || value[0] === '-') {
    const m = /^[+-]\d\d?/.exec(value);
    return m ? m[0].length : 0;
  }
  let n = 0;
  while (n < 6 && n < value.length && value[n]! >= 'A' && value[n]! <= 'Z') n++;
  if (n === 3) return 3;
  if (n === 4 && (value[3] === 'T' || value.startsWith('WITA'))) return 4;
  if (n === 5 && value[4] === 'T') return 5;
  return 0;
}


/** What the elements of a layout have read so far (-1: not given). */
interface Fields {
  year: number;
  month: number;
  day: number;
  yday: number;
  hour: number;
  min: number;
  sec: number;
  nsec: number;
  pmSet: boolean;
  amSet: boolean;
  zoneOffset: number | undefined;
}

/**
 * Parses a time with a Go layout; returns nanoseconds since the epoch (a bigint that may
 * be outside int64: the caller checks the range). Without zone information the time is UTC.
 */
export function parseTime(layout: string, value: string): bigint {
  const alayout = layout;
  const avalue = value;
  const f: Fields = { year: 0, month: -1, day: -1, yday: -1, hour: 0, min: 0, sec: 0, nsec: 0, pmSet: false, amSet: false, zoneOffset: undefined };
  for (;;) {
    const ch = nextChunk(layout);
    const rest = skip(value, ch.prefix);
    if (rest === undefined) throw parseErr(alayout, avalue, ch.prefix, value);
    value = rest;
    if (!ch.std) {
      if (value.length !== 0) throw parseErr(alayout, avalue, '', value, ': extra text: ' + quote(value));
      break;
    }
    layout = ch.suffix;
    const hold = value;
    let r: Read;
    try {
      r = parseElement(ch, ch.std, value, f);
    } catch (e) {
      if (e instanceof Bad) throw parseErr(alayout, avalue, ch.stdStr, hold);
      throw e;
    }
    value = r.value;
    if (r.rangeErr) throw parseErr(alayout, avalue, ch.stdStr, value, ': ' + r.rangeErr + ' out of range');
  }
  return toNanos(f, (message) => parseErr(alayout, avalue, '', value, message));
}

/** The value left after an element, and what was out of range in it ('' when nothing). */
interface Read {
  value: string;
  rangeErr: string;
}

/** Reads one layout element at the start of `value` into `f`; throws Bad when it is not there. */
function parseElement(ch: Chunk, std: Std, value: string, f: Fields): Read {
  switch (std) {
    case 'Year':
    case 'LongYear':
    case 'Month':
    case 'LongMonth':
    case 'NumMonth':
    case 'ZeroMonth':
    case 'WeekDay':
    case 'LongWeekDay':
    case 'Day':
    case 'UnderDay':
    case 'ZeroDay':
    case 'UnderYearDay':
    case 'ZeroYearDay':
      return parseDate(std, value, f);
    case 'Hour':
    case 'Hour12':
    case 'ZeroHour12':
    case 'Minute':
    case 'ZeroMinute':
    case 'Second':
    case 'ZeroSecond':
    case 'PM':
    case 'pm':
    case 'Frac0':
    case 'Frac9':
      return parseClock(ch, std, value, f);
    case 'TZ':
      return parseZoneName(value, f);
    default:
      return parseOffset(std, value, f);
  }
}

type DateStd = 'Year' | 'LongYear' | 'Month' | 'LongMonth' | 'NumMonth' | 'ZeroMonth' | 'WeekDay' | 'LongWeekDay' | 'Day' | 'UnderDay' | 'ZeroDay' | 'UnderYearDay' | 'ZeroYearDay';
type ClockStd = 'Hour' | 'Hour12' | 'ZeroHour12' | 'Minute' | 'ZeroMinute' | 'Second' | 'ZeroSecond' | 'PM' | 'pm' | 'Frac0' | 'Frac9';

/** Year, month, weekday, day, day of the year. */
function parseDate(std: DateStd, value: string, f: Fields): Read {
  let rangeErr = '';
  switch (std) {
    case 'Year': {
      if (value.length < 2) throw new Bad();
      const p = value.slice(0, 2);
      if (!/^\d\d$/.test(p)) throw new Bad();
      value = value.slice(2);
      f.year = Number(p);
      f.year += f.year >= 69 ? 1900 : 2000;
      break;
    }
    case 'LongYear': {
      if (value.length < 4 || !isDigitAt(value, 0)) throw new Bad();
      const p = value.slice(0, 4);
      if (!/^\d{4}$/.test(p)) throw new Bad();
      value = value.slice(4);
      f.year = Number(p);
      break;
    }
    case 'Month':
    case 'LongMonth': {
      const names = std === 'Month' ? MONTHS.map((m) => m.slice(0, 3)) : MONTHS;
      const [i, r] = lookupName(names, value);
      f.month = i + 1;
      value = r;
      break;
    }
    case 'NumMonth':
    case 'ZeroMonth':
      [f.month, value] = getnum(value, std === 'ZeroMonth');
      if (f.month <= 0 || f.month > 12) rangeErr = 'month';
      break;
    case 'WeekDay':
    case 'LongWeekDay': {
      const names = std === 'WeekDay' ? WEEKDAYS.map((m) => m.slice(0, 3)) : WEEKDAYS;
      value = lookupName(names, value)[1];
      break;
    }
    case 'Day':
    case 'UnderDay':
    case 'ZeroDay':
      if (std === 'UnderDay' && value[0] === ' ') value = value.slice(1);
      [f.day, value] = getnum(value, std === 'ZeroDay');
      break;
    case 'UnderYearDay':
    case 'ZeroYearDay':
      for (let i = 0; i < 2; i++) if (std === 'UnderYearDay' && value[0] === ' ') value = value.slice(1);
      [f.yday, value] = getnum3(value, std === 'ZeroYearDay');
      if (f.yday < 1 || f.yday > 366) rangeErr = 'day-of-year';
      break;
  }
  return { value, rangeErr };
}

/** Hour, minute, second, AM/PM, fractional seconds. */
function parseClock(ch: Chunk, std: ClockStd, value: string, f: Fields): Read {
  let rangeErr = '';
  switch (std) {
    case 'Hour':
      [f.hour, value] = getnum(value, false);
      if (f.hour < 0 || f.hour >= 24) rangeErr = 'hour';
      break;
    case 'Hour12':
    case 'ZeroHour12':
      [f.hour, value] = getnum(value, std === 'ZeroHour12');
      if (f.hour < 0 || f.hour > 12) rangeErr = 'hour';
      break;
    case 'Minute':
    case 'ZeroMinute':
      [f.min, value] = getnum(value, std === 'ZeroMinute');
      if (f.min < 0 || f.min >= 60) rangeErr = 'minute';
      break;
    case 'Second':
    case 'ZeroSecond': {
      [f.sec, value] = getnum(value, std === 'ZeroSecond');
      if (f.sec < 0 || f.sec >= 60) {
        rangeErr = 'second';
        break;
      }
      // A fraction after the seconds is accepted even when the layout has none.
      if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
        const next = nextChunk(ch.suffix).std;
        if (next === 'Frac0' || next === 'Frac9') break;
        let n = 2;
        while (n < value.length && isDigitAt(value, n)) n++;
        f.nsec = parseNanos(value, n);
        value = value.slice(n);
      }
      break;
    }
    case 'PM':
    case 'pm': {
      if (value.length < 2) throw new Bad();
      const p = value.slice(0, 2);
      value = value.slice(2);
      const [pm, am] = std === 'PM' ? ['PM', 'AM'] : ['pm', 'am'];
      if (p === pm) f.pmSet = true;
      else if (p === am) f.amSet = true;
      else throw new Bad();
      break;
    }
    case 'Frac0': {
      const ndigit = 1 + ch.digits!;
      if (value.length < ndigit) throw new Bad();
      f.nsec = parseNanos(value, ndigit);
      value = value.slice(ndigit);
      break;
    }
    case 'Frac9': {
      if (value.length < 2 || (value[0] !== '.' && value[0] !== ',') || !isDigitAt(value, 1)) break;
      let i = 0;
      while (i + 1 < value.length && isDigitAt(value, i + 1)) i++;
      f.nsec = parseNanos(value, 1 + i);
      value = value.slice(1 + i);
      break;
    }
  }
  return { value, rangeErr };
}

/** A zone abbreviation (MST): read, but the instant stays UTC. */
function parseZoneName(value: string, f: Fields): Read {
  if (value.startsWith('UTC')) {
    f.zoneOffset = 0;
    return { value: value.slice(3), rangeErr: '' };
  }
  const n = timeZoneLength(value);
  if (n === 0) throw new Bad();
  // An abbreviation does not move the instant: Go reads the time as UTC.
  value = value.slice(n);
  f.zoneOffset = 0;
  return { value, rangeErr: '' };
}

/** A numeric zone offset (-0700, Z07:00, ...) into f.zoneOffset. */
function parseOffset(std: Std, value: string, f: Fields): Read {
  let rangeErr = '';
  if (std.startsWith('ISO') && value[0] === 'Z') {
    f.zoneOffset = 0;
    return { value: value.slice(1), rangeErr };
  }
  let sign: string, hh: string, mm: string, ss: string;
  if (std === 'ISO8601ColonTZ' || std === 'NumColonTZ') {
    if (value.length < 6 || value[3] !== ':') throw new Bad();
    [sign, hh, mm, ss] = [value[0]!, value.slice(1, 3), value.slice(4, 6), '00'];
    value = value.slice(6);
  } else if (std === 'NumShortTZ' || std === 'ISO8601ShortTZ') {
    if (value.length < 3) throw new Bad();
    [sign, hh, mm, ss] = [value[0]!, value.slice(1, 3), '00', '00'];
    value = value.slice(3);
  } else if (std === 'ISO8601ColonSecondsTZ' || std === 'NumColonSecondsTZ') {
    if (value.length < 9 || value[3] !== ':' || value[6] !== ':') throw new Bad();
    [sign, hh, mm, ss] = [value[0]!, value.slice(1, 3), value.slice(4, 6), value.slice(7, 9)];
    value = value.slice(9);
  } else if (std === 'ISO8601SecondsTZ' || std === 'NumSecondsTz') {
    if (value.length < 7) throw new Bad();
    [sign, hh, mm, ss] = [value[0]!, value.slice(1, 3), value.slice(3, 5), value.slice(5, 7)];
    value = value.slice(7);
  } else {
    if (value.length < 5) throw new Bad();
    [sign, hh, mm, ss] = [value[0]!, value.slice(1, 3), value.slice(3, 5), '00'];
    value = value.slice(5);
  }
  const h = getnum(hh, true)[0];
  const m = getnum(mm, true)[0];
  const s = getnum(ss, true)[0];
  if (h > 24) rangeErr = 'time zone offset hour';
  if (m > 60) rangeErr = 'time zone offset minute';
  if (s > 60) rangeErr = 'time zone offset second';
  let off = (h * 60 + m) * 60 + s;
  if (sign === '-') off = -off;
  else if (sign !== '+') throw new Bad();
  f.zoneOffset = off;
  return { value, rangeErr };
}

/** The instant the fields name: AM/PM applied, a day of the year turned into month and day. */
function toNanos(f: Fields, err: (message: string) => TimeParseError): bigint {
  let { month, day, yday, hour } = f;
  const year = f.year;
  if (f.pmSet && hour < 12) hour += 12;
  else if (f.amSet && hour === 12) hour = 0;
  if (yday >= 0) {
    let d = 0;
    let m = 0;
    if (isLeap(year)) {
      if (yday === 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) yday--;
    }
    if (m === 0) {
      const before = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];
      m = Math.floor(yday / 31) + 1;
      if (before[m]! < yday) m++;
      d = yday - before[m - 1]!;
    }
    if (month >= 0 && month !== m) throw err(': day-of-year does not match month');
    month = m;
    if (day >= 0 && day !== d) throw err(': day-of-year does not match day');
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  if (day < 1 || day > daysIn(month, year)) throw err(': day out of range');
  const secs = daysFromCivil(year, month, day) * 86400 + hour * 3600 + f.min * 60 + f.sec - (f.zoneOffset ?? 0);
  return BigInt(secs) * NS_PER_SEC + BigInt(f.nsec);
}
