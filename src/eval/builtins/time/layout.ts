// Go reference-time layouts ("2006-01-02T15:04:05Z07:00"): the elements a layout is made
// of, found as Go's nextStdChunk finds them. format.ts writes them, parse.ts reads them.

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

export type Std =
  | 'LongMonth' | 'Month' | 'NumMonth' | 'ZeroMonth'
  | 'LongWeekDay' | 'WeekDay'
  | 'Day' | 'UnderDay' | 'ZeroDay' | 'UnderYearDay' | 'ZeroYearDay'
  | 'Hour' | 'Hour12' | 'ZeroHour12' | 'Minute' | 'ZeroMinute' | 'Second' | 'ZeroSecond'
  | 'LongYear' | 'Year' | 'PM' | 'pm' | 'TZ'
  | 'ISO8601TZ' | 'ISO8601SecondsTZ' | 'ISO8601ShortTZ' | 'ISO8601ColonTZ' | 'ISO8601ColonSecondsTZ'
  | 'NumTZ' | 'NumSecondsTz' | 'NumShortTZ' | 'NumColonTZ' | 'NumColonSecondsTZ'
  | 'Frac0' | 'Frac9';

export interface Chunk {
  prefix: string;
  std?: Std;
  /** The layout text of the std element. */
  stdStr: string;
  /** Fractional seconds: digit count and separator. */
  digits?: number;
  sep?: string;
  suffix: string;
}

export const isDigitAt = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;
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
export function nextChunk(layout: string): Chunk {
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

