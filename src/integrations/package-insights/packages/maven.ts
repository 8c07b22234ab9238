// Maven coordinates, one per line, as `mvn dependency:list` prints them (with or without
// its `[INFO]` prefix): group:artifact:version, group:artifact:type:version,
// group:artifact:type:classifier:version, each optionally followed by :scope.

import { PackageListError, type VersionKey } from './types.js';

const SCOPES = new Set(['compile', 'provided', 'runtime', 'test', 'system', 'import']);

const HEADER = /The following files have been resolved/;

export function readMavenList(text: string, file: string): VersionKey[] {
  const out: VersionKey[] = [];
  const lines = text.split(/\r?\n/);
  // a whole build log (mvn dependency:list > file): only the block under the header holds
  // coordinates; it ends at the first empty line
  const header = lines.findIndex((l) => HEADER.test(l));
  let inBlock = header < 0;
  lines.forEach((line, i) => {
    let t = line.replace(/^\[INFO\]/, '').trim();
    if (header >= 0) {
      if (i === header) return void (inBlock = true);
      if (inBlock && !t) inBlock = false;
      if (!inBlock || i < header) return;
    }
    if (!t || t.startsWith('#') || !t.includes(':') || HEADER.test(t)) return;
    t = t.replace(/\s+--.*$/, '').replace(/\s*\(optional\)\s*$/, '');
    const f = t.split(':');
    if (f.length > 3 && SCOPES.has(f[f.length - 1]!)) f.pop();
    if (f.length < 3 || f.length > 5 || f.some((x) => x === '' || /\s/.test(x))) {
      throw new PackageListError(`${file}:${i + 1}: ${JSON.stringify(t)} is not group:artifact[:type[:classifier]]:version`);
    }
    out.push({ system: 'MAVEN', name: `${f[0]}:${f[1]}`, version: f[f.length - 1]! });
  });
  return out;
}
