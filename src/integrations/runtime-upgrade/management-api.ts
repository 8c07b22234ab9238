// The management API's organization (GET {mgmt_base_url}/v1/organizations/<org>, bearer
// token), read by `regolith upgrade-check` for the properties the connect step needs
// (features.hybrid.enabled, features.mart.connect.enabled). Every failure is an
// ManagementApiError with a message that says what to do.

export interface Organization {
  name?: string;
  properties?: { property?: { name: string; value: string }[] };
  [k: string]: unknown;
}

export class ManagementApiError extends Error {}

const TIMEOUT_MS = 30_000;

/** The organization URL: {base}/v1/organizations/<org>. */
export function organizationUrl(base: string, org: string): string {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new ManagementApiError(`--mgmt-url: invalid URL ${JSON.stringify(base)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ManagementApiError(`--mgmt-url: not an http(s) URL: ${base}`);
  return `${base.replace(/\/+$/, '')}/v1/organizations/${encodeURIComponent(org)}`;
}

export async function fetchOrganization(base: string, org: string, token: string): Promise<Organization> {
  const url = organizationUrl(base, org);
  let res: Response;
  try {
    res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code === 'ECONNREFUSED' ? 'connection refused' : (cause?.message ?? (e as Error).message);
    throw new ManagementApiError(`management API ${url}: ${why}`);
  }
  const body = await res.text();
  if (res.status === 401 || res.status === 403) {
    throw new ManagementApiError(`management API ${url}: ${res.status} ${res.statusText}: the token was refused (give a valid access token with --token-file or MGMT_TOKEN)`);
  }
  if (res.status === 404) throw new ManagementApiError(`management API ${url}: 404: organization ${JSON.stringify(org)} not found`);
  if (!res.ok) throw new ManagementApiError(`management API ${url}: ${res.status} ${res.statusText}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ManagementApiError(`management API ${url}: the response is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ManagementApiError(`management API ${url}: the response is not an organization`);
  return parsed as Organization;
}
