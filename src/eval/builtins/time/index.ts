// time.* built-ins. Instants are int64 nanoseconds since the epoch, computed with bigint
// (they exceed 2^53); calendars and layouts follow Go's time package (calendar.ts; layout.ts,
// format.ts, parse.ts).

import { registerBuiltins, type BuiltinImpl } from '../registry.js';
import { builtinError, operandError } from '../errors.js';
import { BigNum, fromBigInt, isNumber, toDecimal, type Value } from '../../../value/index.js';
import {
  MAX_I64,
  MIN_I64,
  UTC,
  WEEKDAYS,
  daysIn,
  fromCivil,
  loadZone,
  toCivil,
  type Zone,
} from './calendar.js';
import { formatTime } from './format.js';
import { NAMED_LAYOUTS } from './layout.js';
import { TimeParseError, parseTime } from './parse.js';

const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00';
const TZ_EXPECTED = 'either number (ns) or [number (ns), string (tz)]';

function stringArg(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v !== 'string') throw operandError(i + 1, 'string', v);
  return v;
}

function numberArg(args: Value[], i: number): number | BigNum {
  const v = args[i]!;
  if (!isNumber(v)) throw operandError(i + 1, 'number', v);
  return v;
}

/**
 * The integer a number denotes, by its decimal value (a double stands for its shortest
 * decimal form, so BigInt(double) would give the wrong digits). Undefined if not integral.
 */
export function exactInt(v: number | BigNum): bigint | undefined {
  const d = toDecimal(v);
  if (d.exp < 0) return undefined;
  return d.mant * 10n ** BigInt(d.exp);
}

/** OPA reads timestamps as exact int64; anything else is "timestamp too big". */
function nsOf(v: number | BigNum): bigint {
  const b = exactInt(v);
  if (b === undefined || b < MIN_I64 || b > MAX_I64) throw builtinError('timestamp too big');
  return b;
}

function zoneArg(name: string): Zone {
  const z = loadZone(name);
  if (!z) throw builtinError(`unknown time zone ${name}`);
  return z;
}

/** OPA's tzTime: a number, or [ns, tz] / [ns, tz, layout]. */
function tzTime(v: Value, pos = 1): { ns: bigint; zone: Zone; layout: string } {
  let layout = RFC3339_NANO;
  let zone = UTC;
  let n: Value;
  if (Array.isArray(v)) {
    if (v.length === 0) throw operandError(pos, TZ_EXPECTED, v);
    n = v[0]!;
    if (!isNumber(n)) throw operandError(pos, 'number', n);
    if (v.length > 1) {
      const tz = v[1]!;
      if (typeof tz !== 'string') throw operandError(pos, 'string', tz);
      zone = zoneArg(tz);
    }
    if (v.length > 2) {
      const l = v[2]!;
      if (typeof l !== 'string') throw operandError(pos, 'string', l);
      layout = NAMED_LAYOUTS[l] ?? l;
    }
  } else if (isNumber(v)) n = v;
  else throw operandError(pos, TZ_EXPECTED, v);
  return { ns: nsOf(n as number | BigNum), zone, layout };
}

function checkRange(ns: bigint): Value {
  if (ns < MIN_I64 || ns > MAX_I64) throw builtinError('time outside of valid range');
  return fromBigInt(ns);
}

function parseWith(layout: string, value: string): Value {
  let ns: bigint;
  try {
    ns = parseTime(layout, value);
  } catch (e) {
    if (e instanceof TimeParseError) throw builtinError(e.message);
    throw e;
  }
  return checkRange(ns);
}

const UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5 micro sign
  'μs': 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go's time.ParseDuration. */
export function parseDuration(s: string): bigint {
  const orig = s;
  const invalid = () => builtinError(`time: invalid duration ${JSON.stringify(orig)}`);
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  const limit = 1n << 63n;
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const intPart = m[1]!;
    const fracPart = m[2];
    if (intPart === '' && (fracPart === undefined || fracPart === '')) throw invalid();
    s = s.slice(m[0].length);
    const um = /^[^\d.]*/.exec(s)!;
    const unitName = um[0];
    if (unitName === '') throw builtinError(`time: missing unit in duration ${JSON.stringify(orig)}`);
    const unit = UNITS[unitName];
    if (unit === undefined) {
      throw builtinError(`time: unknown unit ${JSON.stringify(unitName)} in duration ${JSON.stringify(orig)}`);
    }
    s = s.slice(unitName.length);
    const v = BigInt(intPart || '0');
    if (v > limit / BigInt(unit)) throw invalid();
    let part = v * BigInt(unit);
    if (fracPart) {
      // Go keeps at most the digits that fit and scales with float64 arithmetic.
      let f = 0;
      let scale = 1;
      let overflow = false;
      for (const c of fracPart) {
        if (overflow) continue;
        if (f > (2 ** 63 - 1) / 10) {
          overflow = true;
          continue;
        }
        f = f * 10 + (c.charCodeAt(0) - 48);
        scale *= 10;
      }
      part += BigInt(Math.trunc(f * (unit / scale)));
    }
    total += part;
    if (total > limit) throw invalid();
  }
  if (neg) return -total;
  if (total > limit - 1n) throw invalid();
  return total;
}

/** Go's Time.AddDate on a UTC time (OPA converts to UTC first). */
function addDate(ns: bigint, years: number, months: number, days: number, zone: Zone): bigint {
  const t = toCivil(ns, zone);
  return fromCivil(t.year + years, t.month + months, t.day + days, t.hour, t.minute, t.second, BigInt(t.nsec), zone);
}

function intArg(args: Value[], i: number): number {
  const v = numberArg(args, i);
  const d = toDecimal(v);
  if (d.exp < 0) throw operandError(i + 1, 'integer number', v);
  const b = exactInt(v)!;
  if (b > 2n ** 62n || b < -(2n ** 62n)) throw builtinError('time outside of valid range');
  return Number(b);
}

// The clock reads whole milliseconds, so many queries in a row see the same instant:
// its number (usually a BigNum, built through decimal digits) is made once per instant.
let lastNow: bigint | undefined;
let lastNowValue: Value = 0;
function nowValue(ns: bigint): Value {
  if (ns !== lastNow) {
    lastNowValue = fromBigInt(ns);
    lastNow = ns;
  }
  return lastNowValue;
}

const defs: BuiltinImpl[] = [
  {
    name: 'time.now_ns',
    impure: true,
    fn: (_args, ctx) => nowValue(ctx.now()),
  },
  {
    name: 'time.parse_ns',
    fn: (args) => {
      const layout = stringArg(args, 0);
      const value = stringArg(args, 1);
      return parseWith(NAMED_LAYOUTS[layout] ?? layout, value);
    },
  },
  {
    name: 'time.parse_rfc3339_ns',
    fn: (args) => parseWith(NAMED_LAYOUTS.RFC3339!, stringArg(args, 0)),
  },
  {
    name: 'time.parse_duration_ns',
    fn: (args) => fromBigInt(parseDuration(stringArg(args, 0))),
  },
  {
    name: 'time.date',
    fn: (args) => {
      const { ns, zone } = tzTime(args[0]!);
      const t = toCivil(ns, zone);
      return [t.year, t.month, t.day];
    },
  },
  {
    name: 'time.clock',
    fn: (args) => {
      const { ns, zone } = tzTime(args[0]!);
      const t = toCivil(ns, zone);
      return [t.hour, t.minute, t.second];
    },
  },
  {
    name: 'time.weekday',
    fn: (args) => {
      const { ns, zone } = tzTime(args[0]!);
      return WEEKDAYS[toCivil(ns, zone).weekday]!;
    },
  },
  {
    name: 'time.add_date',
    fn: (args) => {
      const ns = nsOf(numberArg(args, 0));
      const years = intArg(args, 1);
      const months = intArg(args, 2);
      const days = intArg(args, 3);
      // Years beyond what a double can count in seconds are out of range anyway.
      if (Math.abs(years) > 1e6 || Math.abs(months) > 12e6 || Math.abs(days) > 4e8) {
        throw builtinError('time outside of valid range');
      }
      return checkRange(addDate(ns, years, months, days, UTC));
    },
  },
  {
    name: 'time.diff',
    fn: (args) => {
      const a = tzTime(args[0]!, 1);
      const b = tzTime(args[1]!, 2);
      // Both in the first time's zone; earlier one first.
      const [x, y] = a.ns <= b.ns ? [a.ns, b.ns] : [b.ns, a.ns];
      const t1 = toCivil(x, a.zone);
      const t2 = toCivil(y, a.zone);
      let year = t2.year - t1.year;
      let month = t2.month - t1.month;
      let day = t2.day - t1.day;
      let hour = t2.hour - t1.hour;
      let min = t2.minute - t1.minute;
      let sec = t2.second - t1.second;
      if (sec < 0) {
        sec += 60;
        min--;
      }
      if (min < 0) {
        min += 60;
        hour--;
      }
      if (hour < 0) {
        hour += 24;
        day--;
      }
      if (day < 0) {
        day += daysIn(t1.month, t1.year);
        month--;
      }
      if (month < 0) {
        month += 12;
        year--;
      }
      return [year, month, day, hour, min, sec];
    },
  },
  {
    name: 'time.format',
    fn: (args) => {
      const { ns, zone, layout } = tzTime(args[0]!);
      return formatTime(ns, zone, layout);
    },
  },
];

registerBuiltins(defs);
