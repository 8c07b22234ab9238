// poetry.lock: `[[package]]` tables with name and version.

import { normalizePypiName } from './requirements.js';
import { packageTables } from './toml-lite.js';
import { PackageListError, type VersionKey } from './types.js';

export function readPoetryLock(text: string, file: string): VersionKey[] {
  return packageTables(text, file).map((p) => {
    if (!p['name'] || !p['version']) throw new PackageListError(`${file}: a [[package]] without name or version`);
    return { system: 'PYPI', name: normalizePypiName(p['name']), version: p['version'] };
  });
}
