// Cargo.lock: every `[[package]]` with a `source` came from a registry (or git); those
// without one are the workspace's own crates and are not looked up.

import { packageTables } from './toml-lite.js';
import { PackageListError, type VersionKey } from './types.js';

export function readCargoLock(text: string, file: string): VersionKey[] {
  const out: VersionKey[] = [];
  for (const p of packageTables(text, file)) {
    if (!p['name'] || !p['version']) throw new PackageListError(`${file}: a [[package]] without name or version`);
    if (p['source'] === undefined) continue;
    out.push({ system: 'CARGO', name: p['name'], version: p['version'] });
  }
  return out;
}
