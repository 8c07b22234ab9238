// Just enough TOML for lockfiles: `[[package]]` tables of `key = "string"` pairs (arrays
// and inline tables are skipped). Cargo.lock and poetry.lock need no more.

import { PackageListError } from './types.js';

export function packageTables(text: string, file: string): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  let cur: Record<string, string> | undefined;
  let depth = 0; // inside a multi-line array
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (depth > 0) {
      depth += (t.match(/\[/g) ?? []).length - (t.match(/\]/g) ?? []).length;
      return;
    }
    if (!t || t.startsWith('#')) return;
    if (t.startsWith('[')) {
      cur = t === '[[package]]' ? {} : undefined;
      if (cur) out.push(cur);
      return;
    }
    // bare, "basic" or 'literal' keys, dotted or not (Cargo.lock v1 and poetry.lock 1.1
    // quote the keys of their [metadata] tables)
    const m = /^((?:[A-Za-z0-9_.-]|"(?:[^"\\]|\\.)*"|'[^']*')+)\s*=\s*(.*)$/.exec(t);
    if (!m) throw new PackageListError(`${file}:${i + 1}: cannot read ${JSON.stringify(t)}`);
    const v = m[2]!;
    if (v.startsWith('[')) {
      depth = (v.match(/\[/g) ?? []).length - (v.match(/\]/g) ?? []).length;
      return;
    }
    const s = /^"((?:[^"\\]|\\.)*)"/.exec(v);
    if (cur && s) cur[m[1]!] = JSON.parse(`"${s[1]!}"`) as string;
  });
  return out;
}
