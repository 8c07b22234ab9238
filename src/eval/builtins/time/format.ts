// Formatting with a Go layout, as Go's time.Format.

import { MONTHS, WEEKDAYS, toCivil, type Zone } from './calendar.js';
import { nextChunk, type Std } from './layout.js';

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

