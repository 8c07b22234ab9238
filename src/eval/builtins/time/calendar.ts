// Civil calendar arithmetic (proleptic Gregorian, as Go's time package) and time zones
// through Intl. Instants are bigint nanoseconds since the Unix epoch.

import { tzAbbreviation } from './tzif.js';

export const NS_PER_SEC = 1_000_000_000n;
export const MIN_I64 = -(2n ** 63n);
export const MAX_I64 = 2n ** 63n - 1n;

export const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

export function bigFloorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

/** Days since 1970-01-01 of a civil date; month and day may be out of range (normalised). */
export function daysFromCivil(y: number, m: number, d: number): number {
  // Normalise the month first, as Go's Date does.
  const m0 = m - 1;
  y += floorDiv(m0, 12);
  m = (m0 - floorDiv(m0, 12) * 12) + 1;
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = floorDiv(153 * mp + 2, 5) + 1 - 1;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy;
  return era * 146097 + doe - 719468 + (d - 1);
}

export function civilFromDays(z: number): { year: number; month: number; day: number } {
  z += 719468;
  const era = floorDiv(z, 146097);
  const doe = z - era * 146097;
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365);
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100));
  const mp = floorDiv(5 * doy + 2, 153);
  const day = doy - floorDiv(153 * mp + 2, 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

export function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** A time zone: UTC, a fixed offset, or an IANA zone looked up through Intl. */
export interface Zone {
  name: string;
  /** Offset in seconds east of UTC and the abbreviation in effect at an instant (Unix seconds). */
  lookup(sec: number): { offset: number; abbr: string };
}

export const UTC: Zone = { name: 'UTC', lookup: () => ({ offset: 0, abbr: 'UTC' }) };

export function fixedZone(name: string, offset: number): Zone {
  return { name, lookup: () => ({ offset, abbr: name }) };
}

const zoneCache = new Map<string, Zone>();

/** Loads a zone as Go's time.LoadLocation does; undefined when it is unknown. */
export function loadZone(name: string): Zone | undefined {
  if (name === '' || name === 'UTC') return UTC;
  if (name === 'Local') name = Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  const cached = zoneCache.get(name);
  if (cached) return cached;
  // Intl also accepts offsets like "+05:00" and any letter case; Go accepts neither.
  if (!/^[A-Za-z]/.test(name)) return undefined;
  let fmt: Intl.DateTimeFormat;
  let abbrFmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    abbrFmt = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'short' });
  } catch {
    return undefined;
  }
  // Intl matches names case-insensitively; Go's zoneinfo lookup is case-sensitive.
  const canonical = fmt.resolvedOptions().timeZone;
  if (canonical !== name && canonical.toLowerCase() === name.toLowerCase()) return undefined;
  const zone: Zone = {
    name,
    lookup(sec: number) {
      const ms = sec * 1000;
      const parts: Record<string, string> = {};
      for (const p of fmt.formatToParts(new Date(ms))) parts[p.type] = p.value;
      let year = Number(parts.year);
      if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
      const local =
        daysFromCivil(year, Number(parts.month), Number(parts.day)) * 86400 +
        Number(parts.hour) * 3600 +
        Number(parts.minute) * 60 +
        Number(parts.second);
      const offset = local - sec;
      let abbr = '';
      for (const p of abbrFmt.formatToParts(new Date(ms))) if (p.type === 'timeZoneName') abbr = p.value;
      // Intl writes "GMT+5:30" where the zone has no abbreviation; Go's tzdata writes "+0530" or "+05".
      if (/^GMT[+-]/.test(abbr) || abbr === 'GMT' && offset !== 0) abbr = numericAbbr(offset);
      // Go takes the abbreviation from the system tzdata when it is there.
      abbr = tzAbbreviation(name, sec, offset) ?? abbr;
      return { offset, abbr };
    },
  };
  zoneCache.set(name, zone);
  return zone;
}

function numericAbbr(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const h = String(Math.floor(a / 3600)).padStart(2, '0');
  const m = Math.floor((a % 3600) / 60);
  return sign + h + (m ? String(m).padStart(2, '0') : '');
}

/** Broken-down time of an instant in a zone (what Go's Time methods return). */
export interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nsec: number;
  weekday: number;
  yday: number;
  offset: number;
  abbr: string;
}

export function toCivil(ns: bigint, zone: Zone): Civil {
  const sec = Number(bigFloorDiv(ns, NS_PER_SEC));
  const nsec = Number(ns - BigInt(sec) * NS_PER_SEC);
  const { offset, abbr } = zone.lookup(sec);
  const local = sec + offset;
  const days = floorDiv(local, 86400);
  const rem = local - days * 86400;
  const { year, month, day } = civilFromDays(days);
  const weekday = (((days + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  const yday = days - daysFromCivil(year, 1, 1) + 1;
  return {
    year,
    month,
    day,
    hour: Math.floor(rem / 3600),
    minute: Math.floor((rem % 3600) / 60),
    second: rem % 60,
    nsec,
    weekday,
    yday,
    offset,
    abbr,
  };
}

/**
 * The instant of a civil time in a zone, as Go's time.Date: fields are normalised and
 * the zone's offset is the one in effect (looked up twice around transitions).
 */
export function fromCivil(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nsec: bigint,
  zone: Zone,
): bigint {
  const localSec = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  let offset = zone.lookup(localSec).offset;
  const guess = localSec - offset;
  const offset2 = zone.lookup(guess).offset;
  if (offset2 !== offset) {
    // Go picks the offset in effect at the resulting instant.
    const alt = localSec - offset2;
    if (zone.lookup(alt).offset === offset2) offset = offset2;
  }
  return BigInt(localSec - offset) * NS_PER_SEC + nsec;
}
