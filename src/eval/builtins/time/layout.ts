// Go reference-time layouts ("2006-01-02T15:04:05Z07:00"): formatting and parsing with
// the rules of Go's time.Format and time.Parse, including its error messages.

import {
  MONTHS,
  WEEKDAYS,
  NS_PER_SEC,
  daysFromCivil,
  daysIn,
  isLeap,
  toCivil,
  type Zone,
} from './calendar.js';

/** Named layouts OPA accepts in place of a layout string. */
export const NAMED_LAYOUTS: Record<string, string> = {
  ANSIC: 'Mon Jan _2 15:04:05 2006',
  UnixDate: 'Mon Jan _2 15:04:05 MST 2006',
  RubyDate: 'Mon Jan 02 15:04:05 -0700 2006',
  RFC822: '02 Jan 06 15:04 MST',
  RFC822Z: '02 Jan 06 15:04 -0700',
  RFC850: 'Monday, 02-Jan-06 15:04:05 MST',
  RFC1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  RFC1123Z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  RFC3339: '2006-01-02T15:04:05Z07:00',
  RFC3339Nano: '2006-01-02T15:04:05.999999999Z07:00',
};

type Std =
  | 'LongMonth' | 'Month' | 'NumMonth' | 'ZeroMonth'
  | 'LongWeekDay' | 'WeekDay'
  | 'Day' | 'UnderDay' | 'ZeroDay' | 'UnderYearDay' | 'ZeroYearDay'
  | 'Hour' | 'Hour12' | 'ZeroHour12' | 'Minute' | 'ZeroMinute' | 'Second' | 'ZeroSecond'
  | 'LongYear' | 'Year' | 'PM' | 'pm' | 'TZ'
  | 'ISO8601TZ' | 'ISO8601SecondsTZ' | 'ISO8601ShortTZ' | 'ISO8601ColonTZ' | 'ISO8601ColonSecondsTZ'
  | 'NumTZ' | 'NumSecondsTz' | 'NumShortTZ' | 'NumColonTZ' | 'NumColonSecondsTZ'
  | 'Frac0' | 'Frac9';

interface Chunk {
  prefix: string;
  std?: Std;
  /** The layout text of the std element. */
  stdStr: string;
  /** Fractional seconds: digit count and separator. */
  digits?: number;
  sep?: string;
  suffix: string;
}

const isDigitAt = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;
const startsLower = (s: string) => s.length > 0 && s[0]! >= 'a' && s[0]! <= 'z';

const ZERO_X: Std[] = ['ZeroMonth', 'ZeroDay', 'ZeroHour12', 'ZeroMinute', 'ZeroSecond', 'Year'];
const TZ_FORMS: [string, Std][] = [
  ['Z070000', 'ISO8601SecondsTZ'],
  ['Z07:00:00', 'ISO8601ColonSecondsTZ'],
  ['Z0700', 'ISO8601TZ'],
  ['Z07:00', 'ISO8601ColonTZ'],
  ['Z07', 'ISO8601ShortTZ'],
  ['-070000', 'NumSecondsTz'],
  ['-07:00:00', 'NumColonSecondsTZ'],
  ['-0700', 'NumTZ'],
  ['-07:00', 'NumColonTZ'],
  ['-07', 'NumShortTZ'],
];

/** Finds the first layout element, as Go's nextStdChunk. */
function nextChunk(layout: string): Chunk {
  const mk = (i: number, len: number, std: Std, extra: Partial<Chunk> = {}): Chunk => ({
    prefix: layout.slice(0, i),
    std,
    stdStr: layout.slice(i, i + len),
    suffix: layout.slice(i + len),
    ...extra,
  });
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i]!;
    const rest = layout.slice(i);
    switch (c) {
      case 'J':
        if (rest.startsWith('Jan')) {
          if (rest.startsWith('January')) return mk(i, 7, 'LongMonth');
          if (!startsLower(rest.slice(3))) return mk(i, 3, 'Month');
        }
        break;
      case 'M':
        if (rest.startsWith('Mon')) {
          if (rest.startsWith('Monday')) return mk(i, 6, 'LongWeekDay');
          if (!startsLower(rest.slice(3))) return mk(i, 3, 'WeekDay');
        }
        if (rest.startsWith('MST')) return mk(i, 3, 'TZ');
        break;
      case '0':
        if (rest.length >= 2 && rest[1]! >= '1' && rest[1]! <= '6') return mk(i, 2, ZERO_X[rest.charCodeAt(1) - 49]!);
        if (rest.startsWith('002')) return mk(i, 3, 'ZeroYearDay');
        break;
      case '1':
        if (rest.startsWith('15')) return mk(i, 2, 'Hour');
        return mk(i, 1, 'NumMonth');
      case '2':
        if (rest.startsWith('2006')) return mk(i, 4, 'LongYear');
        return mk(i, 1, 'Day');
      case '_':
        if (rest.startsWith('_2')) {
          // "_2006" is a literal underscore followed by the year.
          if (rest.startsWith('_2006')) return mk(i + 1, 4, 'LongYear');
          return mk(i, 2, 'UnderDay');
        }
        if (rest.startsWith('__2')) return mk(i, 3, 'UnderYearDay');
        break;
      case '3':
        return mk(i, 1, 'Hour12');
      case '4':
        return mk(i, 1, 'Minute');
      case '5':
        return mk(i, 1, 'Second');
      case 'P':
        if (rest.startsWith('PM')) return mk(i, 2, 'PM');
        break;
      case 'p':
        if (rest.startsWith('pm')) return mk(i, 2, 'pm');
        break;
      case '-':
      case 'Z':
        for (const [text, std] of TZ_FORMS) if (rest.startsWith(text)) return mk(i, text.length, std);
        break;
      case '.':
      case ',':
        if (rest.length >= 2 && (rest[1] === '0' || rest[1] === '9')) {
          const ch = rest[1]!;
          let j = 1;
          while (j < rest.length && rest[j] === ch) j++;
          if (!isDigitAt(rest, j)) {
            return mk(i, j, ch === '0' ? 'Frac0' : 'Frac9', { digits: j - 1, sep: c });
          }
        }
        break;
    }
  }
  return { prefix: layout, stdStr: '', suffix: '' };
}

const pad = (n: number, w: number) => {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? '-' + s : s;
};

/** Formats an instant in a zone with a Go layout. */
export function formatTime(ns: bigint, zone: Zone, layout: string): string {
  const t = toCivil(ns, zone);
  let out = '';
  for (;;) {
    const ch = nextChunk(layout);
    out += ch.prefix;
    if (!ch.std) break;
    layout = ch.suffix;
    switch (ch.std) {
      case 'Year':
        out += pad(((t.year % 100) + 100) % 100, 2);
        break;
      case 'LongYear':
        out += pad(t.year, 4);
        break;
      case 'Month':
        out += MONTHS[t.month - 1]!.slice(0, 3);
        break;
      case 'LongMonth':
        out += MONTHS[t.month - 1];
        break;
      case 'NumMonth':
        out += t.month;
        break;
      case 'ZeroMonth':
        out += pad(t.month, 2);
        break;
      case 'WeekDay':
        out += WEEKDAYS[t.weekday]!.slice(0, 3);
        break;
      case 'LongWeekDay':
        out += WEEKDAYS[t.weekday];
        break;
      case 'Day':
        out += t.day;
        break;
      case 'UnderDay':
        out += (t.day < 10 ? ' ' : '') + t.day;
        break;
      case 'ZeroDay':
        out += pad(t.day, 2);
        break;
      case 'UnderYearDay':
        out += String(t.yday).padStart(3, ' ');
        break;
      case 'ZeroYearDay':
        out += pad(t.yday, 3);
        break;
      case 'Hour':
        out += pad(t.hour, 2);
        break;
      case 'Hour12':
      case 'ZeroHour12': {
        const h = t.hour % 12 === 0 ? 12 : t.hour % 12;
        out += ch.std === 'Hour12' ? String(h) : pad(h, 2);
        break;
      }
      case 'Minute':
        out += t.minute;
        break;
      case 'ZeroMinute':
        out += pad(t.minute, 2);
        break;
      case 'Second':
        out += t.second;
        break;
      case 'ZeroSecond':
        out += pad(t.second, 2);
        break;
      case 'PM':
        out += t.hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += t.hour >= 12 ? 'pm' : 'am';
        break;
      case 'TZ':
        if (t.abbr) out += t.abbr;
        else out += numericOffset(t.offset, 'NumTZ');
        break;
      case 'Frac0':
      case 'Frac9': {
        let digits = String(t.nsec).padStart(9, '0').slice(0, ch.digits!);
        if (ch.std === 'Frac9') digits = digits.replace(/0+$/, '');
        if (digits) out += ch.sep + digits;
        break;
      }
      default:
        // Numeric zone forms; the ISO 8601 ones write "Z" for UTC.
        if (ch.std.startsWith('ISO') && t.offset === 0) out += 'Z';
        else out += numericOffset(t.offset, ch.std);
    }
  }
  return out;
}

function numericOffset(offset: number, std: Std): string {
  let zone = Math.trunc(offset / 60);
  let abs = offset;
  let s = '+';
  if (zone < 0) {
    s = '-';
    zone = -zone;
    abs = -abs;
  }
  s += pad(Math.floor(zone / 60), 2);
  const colon = std === 'ISO8601ColonTZ' || std === 'NumColonTZ' || std === 'ISO8601ColonSecondsTZ' || std === 'NumColonSecondsTZ';
  if (colon) s += ':';
  if (std !== 'NumShortTZ' && std !== 'ISO8601ShortTZ') s += pad(zone % 60, 2);
  if (std === 'ISO8601SecondsTZ' || std === 'NumSecondsTz' || std === 'NumColonSecondsTZ' || std === 'ISO8601ColonSecondsTZ') {
    if (colon) s += ':';
    s += pad(abs % 60, 2);
  }
  return s;
}

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

/**
 * Parses a time with a Go layout; returns nanoseconds since the epoch (a bigint that may
 * be outside int64: the caller checks the range). Without zone information the time is UTC.
 */
export function parseTime(layout: string, value: string): bigint {
  const alayout = layout;
  const avalue = value;
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let pmSet = false;
  let amSet = false;
  let zoneOffset: number | undefined;
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
    let rangeErr = '';
    try {
      switch (ch.std) {
        case 'Year': {
          if (value.length < 2) throw new Bad();
          const p = value.slice(0, 2);
          if (!/^\d\d$/.test(p)) throw new Bad();
          value = value.slice(2);
          year = Number(p);
          year += year >= 69 ? 1900 : 2000;
          break;
        }
        case 'LongYear': {
          if (value.length < 4 || !isDigitAt(value, 0)) throw new Bad();
          const p = value.slice(0, 4);
          if (!/^\d{4}$/.test(p)) throw new Bad();
          value = value.slice(4);
          year = Number(p);
          break;
        }
        case 'Month':
        case 'LongMonth': {
          const names = ch.std === 'Month' ? MONTHS.map((m) => m.slice(0, 3)) : MONTHS;
          const [i, r] = lookupName(names, value);
          month = i + 1;
          value = r;
          break;
        }
        case 'NumMonth':
        case 'ZeroMonth':
          [month, value] = getnum(value, ch.std === 'ZeroMonth');
          if (month <= 0 || month > 12) rangeErr = 'month';
          break;
        case 'WeekDay':
        case 'LongWeekDay': {
          const names = ch.std === 'WeekDay' ? WEEKDAYS.map((m) => m.slice(0, 3)) : WEEKDAYS;
          value = lookupName(names, value)[1];
          break;
        }
        case 'Day':
        case 'UnderDay':
        case 'ZeroDay':
          if (ch.std === 'UnderDay' && value[0] === ' ') value = value.slice(1);
          [day, value] = getnum(value, ch.std === 'ZeroDay');
          break;
        case 'UnderYearDay':
        case 'ZeroYearDay':
          for (let i = 0; i < 2; i++) if (ch.std === 'UnderYearDay' && value[0] === ' ') value = value.slice(1);
          [yday, value] = getnum3(value, ch.std === 'ZeroYearDay');
          if (yday < 1 || yday > 366) rangeErr = 'day-of-year';
          break;
        case 'Hour':
          [hour, value] = getnum(value, false);
          if (hour < 0 || hour >= 24) rangeErr = 'hour';
          break;
        case 'Hour12':
        case 'ZeroHour12':
          [hour, value] = getnum(value, ch.std === 'ZeroHour12');
          if (hour < 0 || hour > 12) rangeErr = 'hour';
          break;
        case 'Minute':
        case 'ZeroMinute':
          [min, value] = getnum(value, ch.std === 'ZeroMinute');
          if (min < 0 || min >= 60) rangeErr = 'minute';
          break;
        case 'Second':
        case 'ZeroSecond': {
          [sec, value] = getnum(value, ch.std === 'ZeroSecond');
          if (sec < 0 || sec >= 60) {
            rangeErr = 'second';
            break;
          }
          // A fraction after the seconds is accepted even when the layout has none.
          if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
            const next = nextChunk(layout).std;
            if (next === 'Frac0' || next === 'Frac9') break;
            let n = 2;
            while (n < value.length && isDigitAt(value, n)) n++;
            nsec = parseNanos(value, n);
            value = value.slice(n);
          }
          break;
        }
        case 'PM':
        case 'pm': {
          if (value.length < 2) throw new Bad();
          const p = value.slice(0, 2);
          value = value.slice(2);
          const [pm, am] = ch.std === 'PM' ? ['PM', 'AM'] : ['pm', 'am'];
          if (p === pm) pmSet = true;
          else if (p === am) amSet = true;
          else throw new Bad();
          break;
        }
        case 'TZ': {
          if (value.startsWith('UTC')) {
            value = value.slice(3);
            zoneOffset = 0;
            break;
          }
          const n = timeZoneLength(value);
          if (n === 0) throw new Bad();
          // An abbreviation does not move the instant: Go reads the time as UTC.
          value = value.slice(n);
          zoneOffset = 0;
          break;
        }
        case 'Frac0': {
          const ndigit = 1 + ch.digits!;
          if (value.length < ndigit) throw new Bad();
          nsec = parseNanos(value, ndigit);
          value = value.slice(ndigit);
          break;
        }
        case 'Frac9': {
          if (value.length < 2 || (value[0] !== '.' && value[0] !== ',') || !isDigitAt(value, 1)) break;
          let i = 0;
          while (i + 1 < value.length && isDigitAt(value, i + 1)) i++;
          nsec = parseNanos(value, 1 + i);
          value = value.slice(1 + i);
          break;
        }
        default: {
          const std = ch.std;
          if (std.startsWith('ISO') && value[0] === 'Z') {
            value = value.slice(1);
            zoneOffset = 0;
            break;
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
          zoneOffset = off;
        }
      }
    } catch (e) {
      if (e instanceof Bad) throw parseErr(alayout, avalue, ch.stdStr, hold);
      throw e;
    }
    if (rangeErr) throw parseErr(alayout, avalue, ch.stdStr, value, ': ' + rangeErr + ' out of range');
  }
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;
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
    if (month >= 0 && month !== m) throw parseErr(alayout, avalue, '', value, ': day-of-year does not match month');
    month = m;
    if (day >= 0 && day !== d) throw parseErr(alayout, avalue, '', value, ': day-of-year does not match day');
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  if (day < 1 || day > daysIn(month, year)) throw parseErr(alayout, avalue, '', value, ': day out of range');
  const secs = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - (zoneOffset ?? 0);
  return BigInt(secs) * NS_PER_SEC + BigInt(nsec);
}
