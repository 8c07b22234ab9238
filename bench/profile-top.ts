// Summarises a V8 CPU profile (node --cpu-prof): functions with the most self time,
// project functions with the most total time (self + callees), and the hottest source
// lines. Positions in a bundle are mapped back to src/ through its source map
// (<bundle>.map), as bench/profile.ts writes it.
//   npx tsx bench/profile-top.ts <file.cpuprofile> [rows, default 25]

import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { relative, resolve, dirname } from 'node:path';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface Node {
  id: number;
  callFrame: Frame;
  hitCount: number;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
}

const file = process.argv[2];
if (!file) {
  console.error('usage: profile-top.ts <file.cpuprofile> [rows]');
  process.exit(2);
}
const rows = Number(process.argv[3] ?? 25);
const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const cwd = process.cwd();
const maps = new Map<string, { map: SourceMap; lines: string[]; dir: string } | null>();
function mapFor(url: string) {
  if (!maps.has(url)) {
    let v = null;
    if (url.startsWith('file://')) {
      const path = fileURLToPath(url);
      if (existsSync(path + '.map')) {
        v = { map: new SourceMap(JSON.parse(readFileSync(path + '.map', 'utf8'))), lines: readFileSync(path, 'utf8').split('\n'), dir: dirname(path) };
      }
    }
    maps.set(url, v);
  }
  return maps.get(url)!;
}

/** "file:line" (1-based) in the original source for a 0-based generated position. */
function original(url: string, line: number, col?: number): string {
  const m = mapFor(url);
  const short = (s: string) => {
    const r = relative(cwd, s.startsWith('file://') ? fileURLToPath(s) : s);
    return r.startsWith('..') ? s : r;
  };
  if (!m) return `${short(url)}:${line + 1}`;
  if (col === undefined) {
    const text = m.lines[line] ?? '';
    col = text.length - text.trimStart().length;
  }
  const e = m.map.findEntry(line, col) as { originalSource?: string; originalLine?: number };
  if (!e || e.originalSource === undefined || e.originalLine === undefined) return `${short(url)}:${line + 1}`;
  return `${short(resolve(m.dir, e.originalSource))}:${e.originalLine + 1}`;
}

const where = (n: Node) => {
  const f = n.callFrame;
  const name = f.functionName || '(anonymous)';
  if (!f.url) return name;
  return `${name} ${original(f.url, f.lineNumber, f.columnNumber)}`;
};

const self = new Map<string, number>();
const total = new Map<string, number>();
let all = 0;
for (const id of p.samples) {
  all++;
  const w0 = where(byId.get(id)!);
  self.set(w0, (self.get(w0) ?? 0) + 1);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const w = where(byId.get(cur)!);
    if (!seen.has(w)) {
      seen.add(w);
      total.set(w, (total.get(w) ?? 0) + 1);
    }
  }
}
const lines = new Map<string, number>();
for (const n of p.nodes) {
  if (!n.callFrame.url) continue;
  for (const t of n.positionTicks ?? []) {
    const k = `${original(n.callFrame.url, t.line - 1)}  (${n.callFrame.functionName || 'anonymous'})`;
    lines.set(k, (lines.get(k) ?? 0) + t.ticks);
  }
}

const pct = (x: number) => ((100 * x) / all).toFixed(1).padStart(5) + '%';
const top = (m: Map<string, number>, f: (k: string) => boolean = () => true) =>
  [...m.entries()].filter(([k]) => f(k)).sort((a, b) => b[1] - a[1]).slice(0, rows);
const project = (k: string) => /(^|\s)(src|bench)\//.test(k);
console.log(`${all} samples\n\nself time by function:`);
for (const [k, v] of top(self)) console.log(`${pct(v)}  ${k}`);
console.log(`\ntotal time by function (project code):`);
for (const [k, v] of top(total, project)) console.log(`${pct(v)}  ${k}`);
console.log(`\nself time by source line (project code):`);
for (const [k, v] of top(lines, (k) => /^(src|bench)\//.test(k))) console.log(`${pct(v)}  ${k}`);
