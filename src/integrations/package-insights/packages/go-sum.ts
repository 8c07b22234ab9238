// go.sum: `module version hash` lines. A module that appears only with a `/go.mod` hash was
// consulted for its requirements but is not built, so it is not listed.

import { PackageListError, type VersionKey } from './types.js';

export function readGoSum(text: string, file: string): VersionKey[] {
  const out: VersionKey[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (!t) return;
    const f = t.split(/\s+/);
    if (f.length !== 3 || !f[2]!.startsWith('h1:')) throw new PackageListError(`${file}:${i + 1}: not a go.sum line: ${JSON.stringify(t)}`);
    if (f[1]!.endsWith('/go.mod')) return;
    out.push({ system: 'GO', name: f[0]!, version: f[1]! });
  });
  return out;
}
