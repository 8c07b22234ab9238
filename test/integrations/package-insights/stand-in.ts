// A stand-in for the package insights API (v3alpha) as the seed documents it: versionbatch
// and purlbatch with at most 5,000 requests (400 beyond), pages of `pageSize` responses
// continued with `pageToken` only when the rest of the request is identical (400
// otherwise), requests echoed uncanonicalized while the Version carries the canonical
// name, purls with qualifiers or a subpath failing the whole request, requirements for
// MAVEN/NPM/NUGET, and paths whose values must be percent-encoded in full.

import { httpServer, type Recorded, type TestHTTPServer } from '../../loopback.js';
import { applyFault, type Fault } from '../../plugins/adapters/stand-ins/faults.js';

type Obj = Record<string, any>;

export interface InsightsStandIn extends TestHTTPServer {
  /** Versions by "SYSTEM/canonical-name@version". */
  versions: Map<string, Obj>;
  requirements: Map<string, Obj>;
  faults: Fault[];
  pageSize: number;
  /** Batch calls received (pages included), with how many requests each carried. */
  batches: { path: string; size: number; pageToken?: string }[];
}

const SYSTEMS = ['GO', 'NPM', 'CARGO', 'MAVEN', 'PYPI', 'NUGET'];
const PURL_TYPES: Record<string, string> = { golang: 'GO', npm: 'NPM', cargo: 'CARGO', maven: 'MAVEN', pypi: 'PYPI', nuget: 'NUGET' };

/** The registry's canonical spelling: PyPI names are normalized (PEP 503), others kept. */
export function canonicalName(system: string, name: string): string {
  return system === 'PYPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;
}

/** A Version object with every documented field, for `SYSTEM/name@version`. */
export function versionObject(system: string, name: string, version: string, o: Partial<{ licenses: string[]; advisories: string[]; deprecated: boolean; provenance: boolean; upstreamName: string }> = {}): Obj {
  const licenses = o.licenses ?? ['MIT'];
  return {
    versionKey: { system, name, version },
    purl: `pkg:${Object.keys(PURL_TYPES).find((t) => PURL_TYPES[t] === system)}/${encodeURIComponent(name)}@${encodeURIComponent(version)}`,
    publishedAt: '2024-03-01T10:00:00Z',
    isDefault: false,
    isDeprecated: o.deprecated ?? false,
    licenses,
    licenseDetails: licenses.map((l) => ({ license: l === 'non-standard' ? 'Custom licence, see LICENSE' : l, spdx: l })),
    advisoryKeys: (o.advisories ?? []).map((id) => ({ id })),
    links: [{ label: 'SOURCE_REPO', url: `https://github.example/${name}` }],
    slsaProvenances: o.provenance ? [{ sourceRepository: `https://github.example/${name}`, commit: 'abc123', url: `https://provenance.example/${name}`, verified: true }] : [],
    registries: system === 'GO' ? [] : [`https://registry.example/${system.toLowerCase()}`],
    relatedProjects: [{ projectKey: { id: `github.example/org/${name}` }, relationProvenance: 'UNVERIFIED_METADATA', relationType: 'SOURCE_REPO' }],
    upstreamIdentifiers: o.upstreamName ? [{ packageName: o.upstreamName, versionString: version, source: 'registry' }] : [],
  };
}

function badRequest(res: import('node:http').ServerResponse, message: string): void {
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code: 3, message }));
}

/** Splits a purl the way the service does, enough to refuse extra parts and look versions up. */
function lookupPurl(s: InsightsStandIn, purl: string): Obj | 'bad' {
  if (purl.includes('?') || purl.includes('#')) return 'bad';
  const m = /^pkg:([a-z]+)\/(.+)@([^@/]+)$/.exec(purl);
  if (!m) return 'bad';
  const system = PURL_TYPES[m[1]!];
  if (!system) return {};
  const parts = m[2]!.split('/').map(decodeURIComponent);
  const name = system === 'MAVEN' && parts.length === 2 ? `${parts[0]}:${parts[1]}` : parts.join('/');
  const v = s.versions.get(`${system}/${canonicalName(system, name)}@${decodeURIComponent(m[3]!)}`);
  return v ? { version: v } : {};
}

export async function insightsStandIn(port = 0): Promise<InsightsStandIn> {
  const s = (await httpServer(() => {}, port)) as InsightsStandIn;
  Object.assign(s, { versions: new Map(), requirements: new Map(), faults: [], pageSize: 1000, batches: [] });
  // the request each issued page token continues (body without pageToken)
  const tokens = new Map<string, { request: string; offset: number }>();
  let tokenSeq = 0;

  const batch = (req: Recorded, res: import('node:http').ServerResponse, answer: (r: Obj) => Obj | 'bad'): void => {
    let body: Obj;
    try {
      body = JSON.parse(req.body.toString('utf8')) as Obj;
    } catch {
      return badRequest(res, 'invalid JSON body');
    }
    const requests = body['requests'];
    if (!Array.isArray(requests)) return badRequest(res, 'requests is required');
    s.batches.push({ path: req.url, size: requests.length, pageToken: body['pageToken'] });
    if (requests.length > 5000) return badRequest(res, `at most 5000 requests per batch, got ${requests.length}`);
    const { pageToken, ...rest } = body;
    let offset = 0;
    if (pageToken !== undefined) {
      const t = tokens.get(String(pageToken));
      if (!t) return badRequest(res, 'invalid page token');
      if (t.request !== JSON.stringify(rest)) return badRequest(res, 'page token does not match the request: every other field must equal the initial request');
      offset = t.offset;
    }
    const responses: Obj[] = [];
    for (const r of requests.slice(offset, offset + s.pageSize)) {
      const a = answer(r as Obj);
      if (a === 'bad') return badRequest(res, `invalid request ${JSON.stringify(r)}`);
      responses.push(a);
    }
    // a purl batch fails as a whole when any purl has extra parts, whichever page it is on
    for (const r of requests) if (answer(r as Obj) === 'bad') return badRequest(res, `invalid request ${JSON.stringify(r)}: purls must be pkg:type/[namespace/]name@version`);
    const out: Obj = { responses };
    if (offset + s.pageSize < requests.length) {
      const token = `page-${++tokenSeq}`;
      tokens.set(token, { request: JSON.stringify(rest), offset: offset + s.pageSize });
      out['nextPageToken'] = token;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(out));
  };

  s.handler = (req, res) => {
    if (applyFault(s.faults, res)) return;
    const path = req.url.split('?')[0]!;
    if (req.method === 'POST' && path === '/v3alpha/versionbatch') {
      return batch(req, res, (r) => {
        const k = r['versionKey'] as Obj | undefined;
        if (!k || !SYSTEMS.includes(k['system'])) return 'bad';
        const v = s.versions.get(`${k['system']}/${canonicalName(k['system'], k['name'])}@${k['version']}`);
        return { request: { versionKey: k }, version: v ?? {} };
      });
    }
    if (req.method === 'POST' && path === '/v3alpha/purlbatch') {
      return batch(req, res, (r) => {
        const a = lookupPurl(s, String(r['purl']));
        return a === 'bad' ? 'bad' : { request: { purl: r['purl'] }, result: a };
      });
    }
    // path values are percent-encoded in full: a raw "/" inside a name would add a segment
    const m = /^\/v3alpha\/systems\/([^/]+)\/packages\/([^/]+)\/versions\/([^/:]+):requirements$/.exec(path);
    if (req.method === 'GET' && m) {
      const [system, name, version] = [m[1]!, m[2]!, m[3]!].map(decodeURIComponent) as [string, string, string];
      const r = s.requirements.get(`${system}/${canonicalName(system, name)}@${version}`);
      if (!r) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ code: 5, message: 'not found' }));
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' });
      return void res.end(JSON.stringify(r));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 5, message: `no route ${req.method} ${path}` }));
  };
  return s;
}

/** Adds a version (keyed by its canonical name) and returns its key as a lockfile would spell it. */
export function addVersion(s: InsightsStandIn, system: string, name: string, version: string, o?: Parameters<typeof versionObject>[3]): string {
  const canon = canonicalName(system, name);
  s.versions.set(`${system}/${canon}@${version}`, versionObject(system, canon, version, o));
  return `${system}/${name}@${version}`;
}
