// The package lists of a project, chosen by file name, as version keys (first appearance
// kept, duplicates dropped); and purls.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { readCargoLock } from './cargo-lock.js';
import { readGoSum } from './go-sum.js';
import { readMavenList } from './maven.js';
import { readNpmLock } from './npm-lock.js';
import { readPoetryLock } from './poetry-lock.js';
import { checkBatchPurl, versionKeyOfPurl } from './purl.js';
import { readRequirements } from './requirements.js';
import { PackageListError, type VersionKey } from './types.js';

export { PackageListError, type System, type VersionKey } from './types.js';
export { parsePurl, purlOf, versionKeyOfPurl, checkBatchPurl, type Purl } from './purl.js';

function readPurls(text: string, file: string): VersionKey[] {
  const out: VersionKey[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (!t || t.startsWith('#')) return;
    try {
      checkBatchPurl(t);
      out.push(versionKeyOfPurl(t));
    } catch (e) {
      throw new PackageListError(`${file}:${i + 1}: ${(e as Error).message}`);
    }
  });
  return out;
}

const FORMATS: [RegExp, (text: string, file: string) => VersionKey[]][] = [
  [/^(package-lock|npm-shrinkwrap)\.json$/, readNpmLock],
  [/^go\.sum$/, readGoSum],
  [/^Cargo\.lock$/, readCargoLock],
  [/^requirements.*\.txt$/, readRequirements],
  [/^poetry\.lock$/, readPoetryLock],
  [/(^purls\.txt|\.purls)$/, readPurls],
  [/(^maven.*\.txt|\.mvn\.txt|^dependencies\.txt)$/, readMavenList],
];

export const SUPPORTED = 'package-lock.json, npm-shrinkwrap.json, go.sum, Cargo.lock, requirements*.txt, poetry.lock, purls.txt or *.purls, maven*.txt, *.mvn.txt or dependencies.txt';

function formatOf(file: string): (text: string, file: string) => VersionKey[] {
  const name = basename(file);
  const f = FORMATS.find(([re]) => re.test(name));
  if (!f) throw new PackageListError(`${file}: unknown package list (supported: ${SUPPORTED})`);
  return f[1];
}

/** Reads a package list from disk (its name is checked first: an unknown kind is not read). */
export function readPackageListFile(file: string): VersionKey[] {
  formatOf(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PackageListError(`${file}: cannot read the package list: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return readPackageList(file, text);
}

export function readPackageList(file: string, text: string): VersionKey[] {
  const read = formatOf(file);
  const seen = new Set<string>();
  return read(text, file).filter((k) => {
    const key = `${k.system}/${k.name}@${k.version}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
