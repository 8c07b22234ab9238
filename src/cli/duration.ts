// Go-style durations, because `opa` flags take them ("5s", "1m30s", "250ms") and `opa test`
// prints test times with Go's Duration.String() ("1.234567ms", "850µs", "2.5s").

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration into milliseconds; undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    pos = re.lastIndex;
  }
  if (pos === 0 || pos !== s.length) return undefined;
  return total;
}

function trimFraction(n: number, digits: number): string {
  return n.toFixed(digits).replace(/\.?0+$/, '');
}

/** Go's time.Duration.String() for a number of nanoseconds. */
export function formatDuration(ns: number): string {
  const n = Math.round(ns);
  if (n === 0) return '0s';
  if (n < 1000) return `${n}ns`;
  if (n < 1e6) return `${trimFraction(n / 1e3, 3)}µs`;
  if (n < 1e9) return `${trimFraction(n / 1e6, 6)}ms`;
  let secs = n / 1e9;
  const h = Math.floor(secs / 3600);
  secs -= h * 3600;
  const m = Math.floor(secs / 60);
  secs -= m * 60;
  const s = `${trimFraction(secs, 9)}s`;
  if (h > 0) return `${h}h${m}m${s}`;
  if (m > 0) return `${m}m${s}`;
  return s;
}
