// The package insights adapter (type: package_insights): the packages a project uses —
// from lockfiles read on every poll, `SYSTEM/name@version` keys, or purls — looked up in
// version and purl batches, optionally with their requirements, served as one document.

import { fail, type Section } from '../../plugins/config/section.js';
import type { AdapterHttp } from '../../plugins/adapters/http.js';
import type { AdapterType, DataSource, JSONValue } from '../../plugins/adapters/types.js';
import { HAS_REQUIREMENTS, purlBatch, requirements, versionBatch } from './client.js';
import { buildDocument, keyOf, type InsightsDocument } from './document.js';
import { readPackageListFile, type System, type VersionKey } from './packages/index.js';
import { pool } from '../../plugins/adapters/pool.js';

export interface InsightsSettings {
  lockfiles: string[];
  packages: VersionKey[];
  purls: string[];
  requirements: boolean;
}

const SYSTEMS = new Set(['GO', 'NPM', 'CARGO', 'MAVEN', 'PYPI', 'NUGET']);

/** `SYSTEM/name@version` (the name may hold `/` and `@`: the version follows the last `@`). */
export function parseKey(s: string): VersionKey | undefined {
  const slash = s.indexOf('/');
  const at = s.lastIndexOf('@');
  if (slash < 0 || at <= slash + 1 || at === s.length - 1) return undefined;
  const system = s.slice(0, slash).toUpperCase();
  if (!SYSTEMS.has(system)) return undefined;
  return { system: system as System, name: s.slice(slash + 1, at), version: s.slice(at + 1) };
}

function dedupe(keys: VersionKey[]): VersionKey[] {
  const seen = new Map<string, VersionKey>();
  for (const k of keys) if (!seen.has(keyOf(k))) seen.set(keyOf(k), k);
  return [...seen.values()];
}


/** Reads what the settings name, from the API, into the adapter's document. */
export async function readInsights(http: AdapterHttp, s: InsightsSettings, progress?: (done: number, total: number) => void): Promise<InsightsDocument> {
  const keys: VersionKey[] = [...s.packages];
  for (const f of s.lockfiles) keys.push(...readPackageListFile(f));
  const asked = dedupe(keys);
  const versions = await versionBatch(http, asked, progress);
  const purls = s.purls.length ? await purlBatch(http, s.purls) : [];
  let reqs: Map<string, JSONValue> | undefined;
  if (s.requirements) {
    reqs = new Map();
    const wanted = versions.filter((v) => v.version && HAS_REQUIREMENTS.has(v.key.system)).map((v) => v.key);
    await pool(wanted, 8, async (k) => {
      const r = await requirements(http, k);
      if (r !== undefined) reqs!.set(keyOf(k), r);
    });
  }
  return buildDocument(asked, versions, purls, reqs);
}

export const packageInsights: AdapterType<InsightsSettings> = {
  kind: 'data',
  defaultRoot: 'insights',
  settings(s: Section): InsightsSettings {
    const packages = (s.strList('packages') ?? []).map((p, i) => parseKey(p) ?? fail(`${s.key}.packages[${i}]`, `"${p}" is not SYSTEM/name@version (SYSTEM one of ${[...SYSTEMS].join(', ')})`));
    const out: InsightsSettings = { lockfiles: s.strList('lockfiles') ?? [], packages, purls: s.strList('purls') ?? [], requirements: s.bool('requirements', false) };
    if (!out.lockfiles.length && !out.packages.length && !out.purls.length) fail(s.key, 'name what to look up: lockfiles, packages or purls');
    return out;
  },
  data(settings: InsightsSettings): DataSource {
    return { read: async (ctx) => (await readInsights(ctx.http, settings, ctx.progress)) as unknown as JSONValue };
  },
};
