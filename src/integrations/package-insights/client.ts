// The package insights API (v3alpha) as the adapter uses it: version batches and purl
// batches of at most 5,000 requests, each followed through its page tokens with the very
// same request; requirements of one version (MAVEN, NPM, NUGET). Purls with qualifiers or
// subpaths are refused before anything is sent.

import { AdapterHttpError, type AdapterHttp } from '../../plugins/adapters/http.js';
import type { JSONValue } from '../../plugins/adapters/types.js';
import { encodeFull } from './encode.js';
import { checkBatchPurl, type VersionKey } from './packages/index.js';
import { isObj } from '../../plugins/adapters/types.js';

/** The API refuses larger batches (400). */
export const MAX_BATCH = 5000;

export interface VersionAnswer {
  /** The request as sent (uncanonicalized). */
  key: VersionKey;
  /** The Version object; undefined when not found. */
  version?: Record<string, JSONValue>;
}

export interface PurlAnswer {
  purl: string;
  /** The purl lookup result: `{version}`, `{package}`, or undefined when not found. */
  result?: Record<string, JSONValue>;
}

type Obj = Record<string, JSONValue>;
const nonEmpty = (v: JSONValue | undefined): Obj | undefined => (isObj(v) && Object.keys(v).length ? v : undefined);

function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** One batch request, through all its pages: the body is identical on every page but for pageToken. */
async function batch(http: AdapterHttp, path: string, requests: Obj[], onPage?: (answered: number) => void): Promise<Obj[]> {
  return http.pages(async (pageToken) => {
    const body: Obj = { requests };
    if (pageToken !== undefined) body['pageToken'] = pageToken;
    const res = await http.json({ method: 'POST', path, body });
    const j = res.json;
    if (!isObj(j) || (j['responses'] !== undefined && !Array.isArray(j['responses']))) throw new Error(`POST ${path}: the answer has no responses list`);
    const items = ((j['responses'] ?? []) as JSONValue[]).filter(isObj);
    const next = typeof j['nextPageToken'] === 'string' && j['nextPageToken'] !== '' ? j['nextPageToken'] : undefined;
    onPage?.(items.length);
    return { items, next };
  });
}

const keyText = (k: { system?: JSONValue; name?: JSONValue; version?: JSONValue }): string => `${String(k.system)}/${String(k.name)}@${String(k.version)}`;

export async function versionBatch(http: AdapterHttp, keys: VersionKey[], progress?: (done: number, total: number) => void): Promise<VersionAnswer[]> {
  const out: VersionAnswer[] = [];
  const bySent = new Map(keys.map((k) => [keyText(k), k]));
  let answered = 0;
  const onPage = (n: number): void => progress?.((answered = Math.min(keys.length, answered + n)), keys.length);
  for (const part of chunks(keys, MAX_BATCH)) {
    const responses = await batch(
      http,
      '/v3alpha/versionbatch',
      part.map((k) => ({ versionKey: { system: k.system, name: k.name, version: k.version } })),
      onPage,
    );
    for (const r of responses) {
      const req = isObj(r['request']) && isObj(r['request']['versionKey']) ? r['request']['versionKey'] : undefined;
      const key = req ? bySent.get(keyText(req)) : undefined;
      if (!key) continue;
      out.push({ key, version: nonEmpty(r['version']) });
    }
  }
  return out;
}

export async function purlBatch(http: AdapterHttp, purls: string[]): Promise<PurlAnswer[]> {
  for (const p of purls) checkBatchPurl(p);
  const out: PurlAnswer[] = [];
  for (const part of chunks(purls, MAX_BATCH)) {
    const responses = await batch(http, '/v3alpha/purlbatch', part.map((purl) => ({ purl })));
    for (const r of responses) {
      const purl = isObj(r['request']) && typeof r['request']['purl'] === 'string' ? r['request']['purl'] : undefined;
      if (purl !== undefined) out.push({ purl, result: nonEmpty(r['result']) });
    }
  }
  return out;
}

/** Ecosystems whose versions have a requirements document. */
export const HAS_REQUIREMENTS = new Set(['MAVEN', 'NPM', 'NUGET']);

export function versionPath(k: VersionKey): string {
  return `/v3alpha/systems/${encodeFull(k.system)}/packages/${encodeFull(k.name)}/versions/${encodeFull(k.version)}`;
}

/** The requirements document of a version; undefined when the service has none for it (404). */
export async function requirements(http: AdapterHttp, k: VersionKey): Promise<JSONValue | undefined> {
  try {
    return (await http.json({ path: versionPath(k) + ':requirements' })).json;
  } catch (e) {
    if (e instanceof AdapterHttpError && e.httpCode === 404) return undefined;
    throw e;
  }
}

export async function purlLookup(http: AdapterHttp, purl: string): Promise<JSONValue> {
  return (await http.json({ path: `/v3alpha/purl/${encodeFull(purl)}` })).json;
}
