// poetry.lock: `[[package]]` tables with name and version (the name as the lock writes it).

import { packageTables } from './toml-lite.js';
import { PackageListError, type VersionKey } from './types.js';

export function readPoetryLock(text: string, file: string): VersionKey[] {
  return packageTables(text, file).map((p) => {
    if (!p['name'] || !p['version']) throw new PackageListError(`${file}: a [[package]] without name or version`);
    return { system: 'PYPI', name: p['name'], version: p['version'] };
  });
}
