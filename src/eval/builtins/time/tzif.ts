// Time zone abbreviations as Go prints them (layout "MST"): Go reads them from the
// system's TZif files (CET, BST, IST, JST, ...), where Intl's en-US names only know
// the US ones and write "GMT+1" elsewhere. Offsets still come from Intl; this file
// only supplies the abbreviation the zone's tzdata gives for an offset at an instant.

import fs from 'node:fs';
import path from 'node:path';

interface TZif {
  /** Transition instants (Unix seconds), ascending, with the local time type index after each. */
  times: number[];
  idx: number[];
  types: { utoff: number; abbr: string }[];
}

// Go's search order for zoneinfo on Unix (after $ZONEINFO).
const DIRS = ['/usr/share/zoneinfo/', '/usr/share/lib/zoneinfo/', '/usr/lib/locale/TZ/', '/etc/zoneinfo/'];

const cache = new Map<string, TZif | null>();

function parse(buf: Buffer): TZif | null {
  if (buf.length < 44 || buf.toString('latin1', 0, 4) !== 'TZif') return null;
  const counts = (at: number) => [0, 1, 2, 3, 4, 5].map((i) => buf.readUInt32BE(at + 20 + 4 * i)) as [number, number, number, number, number, number];
  let at = 0;
  let [isut, isstd, leap, timecnt, typecnt, charcnt] = counts(0);
  let wide = false;
  if (buf[4]! >= 0x32) {
    // Version 2+: skip the 32-bit block and read the 64-bit one.
    at = 44 + timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isut;
    if (buf.length < at + 44) return null;
    [isut, isstd, leap, timecnt, typecnt, charcnt] = counts(at);
    wide = true;
  }
  let p = at + 44;
  const times: number[] = [];
  for (let i = 0; i < timecnt; i++, p += wide ? 8 : 4) times.push(wide ? Number(buf.readBigInt64BE(p)) : buf.readInt32BE(p));
  const idx: number[] = [];
  for (let i = 0; i < timecnt; i++) idx.push(buf[p++]!);
  const raw: { utoff: number; ai: number }[] = [];
  for (let i = 0; i < typecnt; i++, p += 6) raw.push({ utoff: buf.readInt32BE(p), ai: buf[p + 5]! });
  const chars = buf.toString('latin1', p, p + charcnt);
  const types = raw.map((t) => ({ utoff: t.utoff, abbr: chars.slice(t.ai, chars.indexOf('\0', t.ai) >>> 0 || undefined) }));
  return { times, idx, types };
}

function load(name: string): TZif | null {
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  let out: TZif | null = null;
  if (!name.split('/').includes('..')) {
    const dirs = process.env.ZONEINFO ? [process.env.ZONEINFO, ...DIRS] : DIRS;
    for (const d of dirs) {
      try {
        out = parse(fs.readFileSync(path.join(d, name)));
      } catch {
        continue;
      }
      if (out) break;
    }
  }
  cache.set(name, out);
  return out;
}

/**
 * The zone's abbreviation for `offset` (seconds east of UTC) at instant `sec`: that of the
 * latest transition at or before `sec` with this offset, else of any type with it.
 */
export function tzAbbreviation(name: string, sec: number, offset: number): string | undefined {
  const z = load(name);
  if (!z) return undefined;
  let best: string | undefined;
  for (let i = 0; i < z.times.length && z.times[i]! <= sec; i++) {
    const t = z.types[z.idx[i]!];
    if (t && t.utoff === offset) best = t.abbr;
  }
  if (best !== undefined) return best;
  for (let i = z.types.length - 1; i >= 0; i--) if (z.types[i]!.utoff === offset) return z.types[i]!.abbr;
  return undefined;
}
