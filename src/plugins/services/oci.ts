// An OCI distribution client, as much as bundles need: resolve a reference to its manifest,
// fetch blobs (verified against their digest), and push blobs and a manifest. Requests go
// through the service's client (URL, TLS, configured credentials); a registry that answers
// 401 with a Bearer challenge gets the token dance of the distribution spec (the token is
// asked for with the configured credentials, kept per scope), and blob redirects to
// another host are followed without the credentials.

import { createHash } from 'node:crypto';
import { ServiceRequestError, type ServiceClient, type ServiceResponse } from './client.js';

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';
/** The layer media type OPA takes as the bundle archive. */
export const BUNDLE_LAYER = 'application/vnd.oci.image.layer.v1.tar+gzip';

export class OciError extends Error {
  constructor(
    message: string,
    readonly httpCode?: number,
  ) {
    super(message);
    this.name = 'OciError';
  }
}

export interface Reference {
  /** host[:port] when the reference names one. */
  registry?: string;
  repository: string;
  tag?: string;
  digest?: string;
}

/** host/repo[:tag][@sha256:...]; the first component is a registry when it has a dot, a colon or is localhost. */
export function parseReference(ref: string): Reference {
  let rest = ref.replace(/^oci:\/\//, '');
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new OciError(`reference ${JSON.stringify(ref)}: digest must be sha256:<64 hex digits>`);
  }
  const parts = rest.split('/');
  let registry: string | undefined;
  if (parts.length > 1 && (/[.:]/.test(parts[0]!) || parts[0] === 'localhost')) registry = parts.shift();
  let last = parts[parts.length - 1]!;
  let tag: string | undefined;
  const colon = last.lastIndexOf(':');
  if (colon >= 0) {
    tag = last.slice(colon + 1);
    last = last.slice(0, colon);
    parts[parts.length - 1] = last;
  }
  const repository = parts.join('/');
  if (!/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(repository)) {
    throw new OciError(`reference ${JSON.stringify(ref)}: ${JSON.stringify(repository)} is not a repository name (lower-case letters, digits, separators)`);
  }
  if (tag !== undefined && !/^[\w][\w.-]{0,127}$/.test(tag)) throw new OciError(`reference ${JSON.stringify(ref)}: ${JSON.stringify(tag)} is not a tag`);
  if (tag === undefined && digest === undefined) tag = 'latest';
  return { registry, repository, tag, digest };
}

export const sha256 = (b: Buffer): string => 'sha256:' + createHash('sha256').update(b).digest('hex');

interface Challenge {
  realm: string;
  service?: string;
  scope?: string;
}

function parseChallenge(h: string | string[] | undefined): Challenge | undefined {
  const v = Array.isArray(h) ? h.join(', ') : h;
  if (!v || !/^Bearer\s/i.test(v)) return undefined;
  const params: Record<string, string> = {};
  for (const m of v.slice(7).matchAll(/(\w+)="([^"]*)"/g)) params[m[1]!.toLowerCase()] = m[2]!;
  return params['realm'] ? { realm: params['realm'], service: params['service'], scope: params['scope'] } : undefined;
}

export interface Manifest {
  schemaVersion: number;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export class OciRegistry {
  /** Bearer tokens by scope, from the registry's token service. */
  private readonly tokens = new Map<string, string>();

  constructor(
    private readonly client: ServiceClient,
    private readonly signal?: AbortSignal,
  ) {}

  /** One request about `repository`, through token challenges (one renewal) and redirects. */
  private async send(repository: string, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer, maxResponseBytes?: number): Promise<ServiceResponse> {
    const scope = `${repository}|${method === 'GET' || method === 'HEAD' ? 'pull' : 'push'}`;
    const home = new URL(this.client.url('/')).host;
    let url = path;
    let renewed = false;
    for (let hop = 0; hop < 6; hop++) {
      const sameHost = !/^https?:\/\//.test(url) || new URL(url).host === home;
      const token = this.tokens.get(scope);
      const authorization = !sameHost ? null : token ? `Bearer ${token}` : undefined;
      const res = await this.client.request({ method, path: url, headers, body, signal: this.signal, maxResponseBytes, authorization });
      if (res.status === 401 && sameHost) {
        const ch = parseChallenge(res.headers['www-authenticate']);
        if (!ch || (token && renewed)) throw new OciError(`${method} ${this.client.url(url)}: the registry refused the credentials (401)`, 401);
        if (token) renewed = true; // an expired token: one new one
        this.tokens.set(scope, await this.fetchToken(ch));
        continue;
      }
      if ([301, 302, 303, 307, 308].includes(res.status) && typeof res.headers['location'] === 'string') {
        url = new URL(res.headers['location'], this.client.url(url)).toString();
        continue;
      }
      return res;
    }
    throw new OciError(`${method} ${this.client.url(path)}: too many redirects or authentication rounds`);
  }

  /** The token service of a Bearer challenge, asked with the configured credentials. */
  private async fetchToken(ch: Challenge): Promise<string> {
    const u = new URL(ch.realm);
    if (ch.service) u.searchParams.set('service', ch.service);
    if (ch.scope) u.searchParams.set('scope', ch.scope);
    const res = await this.client.request({ method: 'GET', path: u.toString(), signal: this.signal, maxResponseBytes: 1 << 20 });
    if (res.status !== 200) throw new OciError(`the registry's token service ${ch.realm} answered ${res.status}`, res.status);
    let j: { token?: string; access_token?: string };
    try {
      j = JSON.parse(res.body.toString('utf8')) as typeof j;
    } catch {
      throw new OciError(`the registry's token service ${ch.realm} did not answer JSON`);
    }
    const t = j.token ?? j.access_token;
    if (!t) throw new OciError(`the registry's token service ${ch.realm} gave no token`);
    return t;
  }

  private fail(what: string, res: ServiceResponse): never {
    let detail = '';
    try {
      const j = JSON.parse(res.body.toString('utf8')) as { errors?: { code?: string; message?: string }[] };
      if (j.errors?.length) detail = ': ' + j.errors.map((e) => [e.code, e.message].filter(Boolean).join(' ')).join('; ');
    } catch {
      /* not the registry's error shape */
    }
    throw new OciError(`${what}: the registry answered ${res.status}${detail}`, res.status);
  }

  /** The manifest a tag or digest names, checked against its digest when the reference has one. */
  async manifest(ref: Reference): Promise<{ digest: string; manifest: Manifest }> {
    const reference = ref.digest ?? ref.tag!;
    const path = `/v2/${ref.repository}/manifests/${reference}`;
    const res = await this.send(ref.repository, 'GET', path, { accept: `${OCI_MANIFEST}, ${DOCKER_MANIFEST}` }, undefined, 4 << 20);
    if (res.status !== 200) this.fail(`manifest ${ref.repository}:${reference}`, res);
    const digest = sha256(res.body);
    if (ref.digest && digest !== ref.digest) throw new OciError(`manifest ${ref.repository}@${ref.digest}: the registry sent content with digest ${digest}`);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(res.body.toString('utf8')) as Manifest;
    } catch {
      throw new OciError(`manifest ${ref.repository}:${reference} is not JSON`);
    }
    if (!Array.isArray(manifest.layers)) throw new OciError(`manifest ${ref.repository}:${reference} has no layers (an index or another kind of manifest?)`);
    return { digest, manifest };
  }

  /** A blob, verified against its digest; larger than maxBytes is an error. */
  async blob(repository: string, d: Descriptor, maxBytes?: number): Promise<Buffer> {
    if (maxBytes !== undefined && d.size > maxBytes) throw new OciError(`bundle layer of ${d.size} bytes exceeds the size limit of ${maxBytes} bytes`);
    let res: ServiceResponse;
    try {
      res = await this.send(repository, 'GET', `/v2/${repository}/blobs/${d.digest}`, {}, undefined, maxBytes);
    } catch (e) {
      if (e instanceof ServiceRequestError && /larger than/.test(e.message)) throw new OciError(`bundle layer exceeds the size limit of ${maxBytes} bytes`);
      throw e;
    }
    if (res.status !== 200) this.fail(`blob ${repository}@${d.digest}`, res);
    const got = sha256(res.body);
    if (got !== d.digest) throw new OciError(`blob ${repository}@${d.digest}: the registry sent content with digest ${got}`);
    return res.body;
  }

  /** Uploads a blob unless the registry has it; returns its descriptor. */
  async pushBlob(repository: string, data: Buffer, mediaType: string, annotations?: Record<string, string>): Promise<Descriptor> {
    const digest = sha256(data);
    const desc: Descriptor = { mediaType, digest, size: data.length, ...(annotations ? { annotations } : {}) };
    const head = await this.send(repository, 'HEAD', `/v2/${repository}/blobs/${digest}`);
    if (head.status === 200) return desc;
    const start = await this.send(repository, 'POST', `/v2/${repository}/blobs/uploads/`, { 'content-length': '0' }, Buffer.alloc(0));
    if (start.status !== 202 || typeof start.headers['location'] !== 'string') this.fail(`upload to ${repository}`, start);
    const loc = new URL(start.headers['location'], this.client.url('/'));
    loc.searchParams.set('digest', digest);
    const put = await this.send(repository, 'PUT', loc.toString(), { 'content-type': 'application/octet-stream', 'content-length': String(data.length) }, data);
    if (put.status !== 201) this.fail(`upload of ${digest} to ${repository}`, put);
    return desc;
  }

  async pushManifest(repository: string, reference: string, manifest: Manifest): Promise<string> {
    const body = Buffer.from(JSON.stringify(manifest));
    const res = await this.send(repository, 'PUT', `/v2/${repository}/manifests/${reference}`, { 'content-type': manifest.mediaType ?? OCI_MANIFEST }, body);
    if (res.status !== 201) this.fail(`manifest ${repository}:${reference}`, res);
    return sha256(body);
  }
}
