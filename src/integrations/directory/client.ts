// The Directory administration API v1 as the adapter reads it (prefix /admin/directory/v1):
// list calls answered as `{kind, etag, <list field>: [...], nextPageToken}` and followed
// page by page with `pageToken` (a list field the API leaves out is an empty list); the
// users watch channel and channels/stop. Credentials are the service's (Authorization:
// Bearer through AdapterHttp).

import { AdapterHttpError, type AdapterHttp } from '../../plugins/adapters/http.js';
import type { JSONValue, PushChannel, WatchContext } from '../../plugins/adapters/types.js';
import { isObj } from '../../plugins/adapters/types.js';

export const API = '/admin/directory/v1';
/** Where channels/stop is, as the seed documents it (the Admin SDK has it at /admin/directory_v1/channels/stop). */
export const CHANNELS_STOP = `${API}/channels/stop`;

/** The users.watch events, one channel each. */
export const WATCH_EVENTS = ['add', 'delete', 'makeAdmin', 'undelete', 'update'] as const;
export type WatchEvent = (typeof WATCH_EVENTS)[number];

type Obj = Record<string, JSONValue>;
type Query = Record<string, string | number | boolean | undefined>;

const enc = encodeURIComponent;

/** Whom the lists are of: the customer (`my_customer` or an id), or a domain for users and groups. */
export interface Scope {
  customer: string;
  domain?: string;
}

/**
 * An org unit path as the `{orgUnitPath=**}` path value: without its leading slash, each
 * segment percent-encoded and the slashes between them kept (`/Eng/R&D Team` ->
 * `Eng/R%26D%20Team`). A segment `.` or `..` is encoded too, so no URL parser folds it away.
 */
export function orgUnitPathValue(path: string): string {
  const segs = path.split('/').filter((s) => s !== '');
  if (!segs.length) throw new Error(`org unit path ${JSON.stringify(path)} names no org unit below the root`);
  return segs.map((s) => (s === '.' ? '%2E' : s === '..' ? '%2E%2E' : enc(s))).join('/');
}

/** The users and groups lists take `domain` instead of `customer` when a domain is configured. */
const listScope = (s: Scope): Query => (s.domain !== undefined ? { domain: s.domain } : { customer: s.customer });
const customerPath = (s: Scope): string => `${API}/customer/${enc(s.customer)}`;

function listOf(body: JSONValue, field: string, what: string): { items: JSONValue[]; next?: string } {
  if (!isObj(body)) throw new AdapterHttpError(`${what}: expected an object with "${field}", got ${body === null ? 'null' : Array.isArray(body) ? 'a list' : typeof body}`);
  const items = body[field];
  if (items !== undefined && !Array.isArray(items)) throw new AdapterHttpError(`${what}: "${field}" is not a list`);
  const next = body['nextPageToken'];
  if (next !== undefined && typeof next !== 'string') throw new AdapterHttpError(`${what}: "nextPageToken" is not a string`);
  return { items: items ?? [], next: next || undefined };
}

/** Every item of a list call, across its pages. */
export async function listAll(http: AdapterHttp, path: string, field: string, query: Query = {}, maxResults?: number): Promise<JSONValue[]> {
  return http.pages(async (pageToken) => {
    const res = await http.json({ path, query: { ...query, maxResults, pageToken } });
    return listOf(res.json, field, `GET ${path}`);
  });
}

/** The largest page each list takes (maxResults). */
export const MAX_PAGE = {
  users: 500,
  groups: 200,
  members: 200,
  chromeos: 300,
  mobile: 100,
  roles: 100,
  roleAssignments: 200,
  privileges: 100,
} as const;

const page = (kind: keyof typeof MAX_PAGE, wanted?: number): number => Math.min(wanted ?? MAX_PAGE[kind], MAX_PAGE[kind]);

export const users = (http: AdapterHttp, s: Scope, deleted: boolean, max?: number): Promise<JSONValue[]> =>
  listAll(http, `${API}/users`, 'users', { ...listScope(s), showDeleted: deleted || undefined }, page('users', max));

export const groups = (http: AdapterHttp, s: Scope, max?: number): Promise<JSONValue[]> => listAll(http, `${API}/groups`, 'groups', listScope(s), page('groups', max));

/** Members of a group by its key (id or email). */
export const members = (http: AdapterHttp, groupKey: string, max?: number): Promise<JSONValue[]> =>
  listAll(http, `${API}/groups/${enc(groupKey)}/members`, 'members', {}, page('members', max));

/** All org units below `under` (the root when undefined). */
export const orgUnits = (http: AdapterHttp, s: Scope, under?: string): Promise<JSONValue[]> =>
  listAll(http, `${customerPath(s)}/orgunits`, 'organizationUnits', { type: 'all', orgUnitPath: under });

/** One org unit by its path (`/Eng/Backend`). */
export async function orgUnit(http: AdapterHttp, s: Scope, path: string): Promise<JSONValue> {
  const p = `${customerPath(s)}/orgunits/${orgUnitPathValue(path)}`;
  const v = (await http.json({ path: p })).json;
  if (!isObj(v)) throw new AdapterHttpError(`GET ${p}: expected an org unit object`);
  return v;
}

export const roles = (http: AdapterHttp, s: Scope, max?: number): Promise<JSONValue[]> => listAll(http, `${customerPath(s)}/roles`, 'items', {}, page('roles', max));
export const roleAssignments = (http: AdapterHttp, s: Scope, max?: number): Promise<JSONValue[]> =>
  listAll(http, `${customerPath(s)}/roleassignments`, 'items', {}, page('roleAssignments', max));
export const privileges = (http: AdapterHttp, s: Scope, max?: number): Promise<JSONValue[]> =>
  listAll(http, `${customerPath(s)}/roles/ALL/privileges`, 'items', {}, page('privileges', max));
export const domains = (http: AdapterHttp, s: Scope): Promise<JSONValue[]> => listAll(http, `${customerPath(s)}/domains`, 'domains');
export const domainAliases = (http: AdapterHttp, s: Scope): Promise<JSONValue[]> => listAll(http, `${customerPath(s)}/domainaliases`, 'domainAliases');
export const chromeosDevices = (http: AdapterHttp, s: Scope, max?: number): Promise<JSONValue[]> =>
  listAll(http, `${customerPath(s)}/devices/chromeos`, 'chromeosdevices', {}, page('chromeos', max));
export const mobileDevices = (http: AdapterHttp, s: Scope, max?: number): Promise<JSONValue[]> =>
  listAll(http, `${customerPath(s)}/devices/mobile`, 'mobiledevices', {}, page('mobile', max));

/** The channel's expiration: the API's epoch milliseconds, a string (int64) or a number. */
export function expirationOf(v: JSONValue | undefined): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

/** Opens a users/watch channel for one event; the answer is the channel (api#channel). */
export async function watchUsers(http: AdapterHttp, s: Scope, event: WatchEvent, ctx: WatchContext): Promise<PushChannel> {
  const id = ctx.newId();
  const body: Obj = { id, type: 'web_hook', address: ctx.address, token: ctx.token };
  if (ctx.ttlSeconds > 0) body['expiration'] = String(Date.now() + ctx.ttlSeconds * 1000);
  const path = `${API}/users/watch`;
  const res = (await http.json({ method: 'POST', path, query: { ...listScope(s), event }, body })).json;
  if (!isObj(res)) throw new AdapterHttpError(`POST ${path} (event ${event}): expected the channel, got ${res === null ? 'nothing' : typeof res}`);
  return {
    id: typeof res['id'] === 'string' ? res['id'] : id,
    resourceId: typeof res['resourceId'] === 'string' ? res['resourceId'] : undefined,
    expiration: expirationOf(res['expiration']),
    resource: `users/${event}`,
  };
}

/** Stops one channel. */
export async function stopChannel(http: AdapterHttp, c: PushChannel, path = CHANNELS_STOP): Promise<void> {
  const body: Obj = { id: c.id };
  if (c.resourceId !== undefined) body['resourceId'] = c.resourceId;
  await http.json({ method: 'POST', path, body });
}
