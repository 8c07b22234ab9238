// AWS Signature Version 4, as OPA's `s3_signing` credentials sign requests to S3 (and
// S3-compatible stores): a canonical request (method, URI-encoded path, sorted query,
// the signed headers, the payload's SHA-256), a string to sign scoped to date/region/service,
// and an HMAC chain from the secret key.

import { createHash, createHmac } from 'node:crypto';

export interface AWSCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 percent-encoding, as SigV4 requires (slashes kept for paths). */
function encode(s: string, keepSlash: boolean): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(keepSlash ? /%2F/g : /$^/, '/');
}

function canonicalQuery(search: URLSearchParams): string {
  return [...search]
    .map(([k, v]) => [encode(k, false), encode(v, false)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

export interface SignInput {
  method: string;
  url: URL;
  /** The headers to sign (host is added from the URL when missing). */
  headers: Record<string, string>;
  body?: string | Buffer;
  region: string;
  service: string;
  now: Date;
}

/** The headers to add to the request: x-amz-date, x-amz-content-sha256, the token, Authorization. */
export function signV4(r: SignInput, c: AWSCredentials): Record<string, string> {
  const amzDate = r.now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payload = r.headers['x-amz-content-sha256'] ?? sha256(r.body ?? '');
  const added: Record<string, string> = { 'x-amz-date': amzDate, 'x-amz-content-sha256': payload };
  if (c.sessionToken) added['x-amz-security-token'] = c.sessionToken;
  const all: Record<string, string> = { host: r.url.host };
  for (const [k, v] of Object.entries({ ...r.headers, ...added })) all[k.toLowerCase()] = v;
  const names = Object.keys(all).sort();
  const canonicalHeaders = names.map((n) => `${n}:${all[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  // S3 paths are encoded once, as they are sent
  const path = r.service === 's3' ? r.url.pathname || '/' : encode(decodeURIComponent(r.url.pathname || '/'), true);
  const canonical = [r.method.toUpperCase(), path, canonicalQuery(r.url.searchParams), canonicalHeaders, signedHeaders, payload].join('\n');
  const scope = `${day}/${r.region}/${r.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac('AWS4' + c.secretAccessKey, day), r.region), r.service), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  added['authorization'] = `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return added;
}

/** OPA's environment_credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN. */
export function environmentCredentials(env: NodeJS.ProcessEnv = process.env): AWSCredentials | undefined {
  const accessKeyId = env['AWS_ACCESS_KEY_ID'] ?? env['AWS_ACCESS_KEY'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'] ?? env['AWS_SECRET_KEY'];
  if (!accessKeyId || !secretAccessKey) return undefined;
  return { accessKeyId, secretAccessKey, ...(env['AWS_SESSION_TOKEN'] ? { sessionToken: env['AWS_SESSION_TOKEN'] } : {}) };
}
