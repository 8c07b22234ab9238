// What the insights adapter serves at its root (data.insights by default):
//   versions["<SYSTEM>/<name>@<version>"]  the Version object exactly as the API gave it
//   missing[]                              keys the API knows nothing about
//   purls["<purl>"]                        the versions key each requested purl resolved to
//   requirements["<key>"]                  the requirements document (when enabled)
//   packages[]                             every key that was asked for
// Keys use the names as requested (the lockfile's spelling), so a policy can look up what
// the lockfile says; the API's canonical names are inside each Version.

import type { JSONValue } from '../../plugins/adapters/types.js';
import type { PurlAnswer, VersionAnswer } from './client.js';
import { versionKeyOfPurl, type VersionKey } from './packages/index.js';

export const keyOf = (k: VersionKey): string => `${k.system}/${k.name}@${k.version}`;

export interface InsightsDocument {
  versions: Record<string, JSONValue>;
  missing: string[];
  purls: Record<string, string>;
  requirements?: Record<string, JSONValue>;
  packages: string[];
}

export function buildDocument(asked: VersionKey[], versions: VersionAnswer[], purls: PurlAnswer[], reqs?: Map<string, JSONValue>): InsightsDocument {
  const doc: InsightsDocument = { versions: {}, missing: [], purls: {}, packages: [] };
  const packages = new Set<string>();
  for (const k of asked) packages.add(keyOf(k));
  for (const a of versions) {
    const key = keyOf(a.key);
    if (a.version) doc.versions[key] = a.version;
    else doc.missing.push(key);
  }
  for (const p of purls) {
    const key = keyOf(versionKeyOfPurl(p.purl));
    packages.add(key);
    doc.purls[p.purl] = key;
    const v = p.result?.['version'];
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) doc.versions[key] = v;
    else if (!doc.versions[key]) doc.missing.push(key);
  }
  // an asked version the service did not answer for is missing too: never silently passed
  for (const k of asked) if (!doc.versions[keyOf(k)]) doc.missing.push(keyOf(k));
  doc.missing = [...new Set(doc.missing)].filter((k) => !doc.versions[k]).sort();
  doc.packages = [...packages].sort();
  if (reqs) doc.requirements = Object.fromEntries([...reqs].sort(([a], [b]) => (a < b ? -1 : 1)));
  return doc;
}
