// The file storage API v2 (`{drive_base_url}/drive/v2`) as the adapter reads it: files
// (paged), their permissions and revisions (metadata only), shared drives, permission ids
// of e-mail addresses, and the change feed (changes/startPageToken, then changes pages up
// to newStartPageToken), plus the watch calls (changes/watch, channels/stop).
// Shared-drive items need supportsAllDrives=true on every call that may touch one.

import { AdapterHttpError, type AdapterHttp } from '../../plugins/adapters/http.js';
import type { JSONValue } from '../../plugins/adapters/types.js';
import { isObj } from '../../plugins/adapters/types.js';

export const API = '/drive/v2';
/** The documented maximum of files.list and changes.list maxResults. */
export const MAX_RESULTS = 1000;

type Obj = Record<string, JSONValue>;
type Query = Record<string, string | number | boolean | undefined>;

/**
 * One corpus the adapter follows, with its own change feed: the user's files and every
 * shared drive (allDrives), the user's files only (user), or one shared drive (drive).
 */
export interface Feed {
  /** The key of its page token in the document: "allDrives", "user" or the drive id. */
  key: string;
  corpora: 'allDrives' | 'user' | 'drive';
  driveId?: string;
}

const enc = encodeURIComponent;

async function get(http: AdapterHttp, path: string, query?: Query): Promise<JSONValue> {
  return (await http.json({ path: API + path, query })).json;
}

function obj(v: JSONValue, what: string): Obj {
  if (!isObj(v)) throw new Error(`${what}: expected an object, got ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v}`);
  return v;
}

/** A page of a v2 list: its items and the token of the next page. */
function page(v: JSONValue, what: string): { items: Obj[]; next?: string; body: Obj } {
  const o = obj(v, what);
  const items = o['items'] ?? [];
  if (!Array.isArray(items)) throw new Error(`${what}: "items" is not a list`);
  const next = o['nextPageToken'];
  return { items: items.filter(isObj), next: typeof next === 'string' && next !== '' ? next : undefined, body: o };
}

/** Whether an error is the API's answer `code` (e.g. 404: the file is gone). */
export const answered = (e: unknown, ...codes: number[]): boolean => e instanceof AdapterHttpError && e.httpCode !== undefined && codes.includes(e.httpCode);

function feedQuery(f: Feed): Query {
  return f.corpora === 'user' ? { supportsAllDrives: true } : { supportsAllDrives: true, includeItemsFromAllDrives: true, driveId: f.driveId };
}

export async function startPageToken(http: AdapterHttp, f: Feed): Promise<string> {
  const o = obj(await get(http, '/changes/startPageToken', { supportsAllDrives: true, driveId: f.driveId }), 'GET /changes/startPageToken');
  const t = o['startPageToken'];
  if (typeof t !== 'string' || t === '') throw new Error('GET /changes/startPageToken: the answer has no startPageToken');
  return t;
}

/**
 * Every file of the corpus the query matches (the API lists trashed files too unless q
 * excludes them); `incomplete` when the API said it did not search the whole corpus
 * (incompleteSearch: corpora too large, narrow them with drive_ids).
 */
export async function listFiles(http: AdapterHttp, f: Feed, q: string | undefined, maxResults: number): Promise<{ items: Obj[]; incomplete: boolean }> {
  const corpora = f.corpora === 'user' ? 'default' : f.corpora;
  let incomplete = false;
  const items = await http.pages(async (pageToken) => {
    const p = page(await get(http, '/files', { corpora, ...feedQuery(f), q, maxResults, pageToken }), 'GET /files');
    if (p.body['incompleteSearch'] === true) incomplete = true;
    return p;
  });
  return { items, incomplete };
}

/** A file's metadata; undefined when it is gone (404). */
export async function getFile(http: AdapterHttp, id: string): Promise<Obj | undefined> {
  try {
    return obj(await get(http, `/files/${enc(id)}`, { supportsAllDrives: true }), `GET /files/${id}`);
  } catch (e) {
    if (answered(e, 404)) return undefined;
    throw e;
  }
}

/** A file's permissions; 'forbidden' when the user may not see them (403), undefined when the file is gone (404). */
export async function listPermissions(http: AdapterHttp, id: string): Promise<Obj[] | 'forbidden' | undefined> {
  try {
    return await http.pages(async (pageToken) => page(await get(http, `/files/${enc(id)}/permissions`, { supportsAllDrives: true, pageToken }), `GET /files/${id}/permissions`));
  } catch (e) {
    if (answered(e, 404)) return undefined;
    if (answered(e, 403)) return 'forbidden';
    throw e;
  }
}

/** A file's revisions (metadata); [] when it has none to show (400, 403: folders, some types), undefined when the file is gone (404). */
export async function listRevisions(http: AdapterHttp, id: string): Promise<Obj[] | undefined> {
  try {
    return await http.pages(async (pageToken) => page(await get(http, `/files/${enc(id)}/revisions`, { pageToken }), `GET /files/${id}/revisions`));
  } catch (e) {
    if (answered(e, 404)) return undefined;
    if (answered(e, 400, 403)) return [];
    throw e;
  }
}

export async function listDrives(http: AdapterHttp): Promise<Obj[]> {
  return http.pages(async (pageToken) => page(await get(http, '/drives', { maxResults: 100, pageToken }), 'GET /drives'));
}

/** A shared drive; undefined when it is gone or no longer visible (404). */
export async function getDrive(http: AdapterHttp, id: string): Promise<Obj | undefined> {
  try {
    return obj(await get(http, `/drives/${enc(id)}`), `GET /drives/${id}`);
  } catch (e) {
    if (answered(e, 404)) return undefined;
    throw e;
  }
}

export async function permissionId(http: AdapterHttp, email: string): Promise<string> {
  const o = obj(await get(http, `/permissionIds/${enc(email)}`), `GET /permissionIds/${email}`);
  if (typeof o['id'] !== 'string') throw new Error(`GET /permissionIds/${email}: the answer has no id`);
  return o['id'];
}

/**
 * The changes since `token`, every page, and the token to start from next time (the last
 * page's newStartPageToken). A feed that has forgotten the token answers 400/404/410.
 */
export async function listChanges(http: AdapterHttp, f: Feed, token: string, maxResults: number): Promise<{ changes: Obj[]; newStartPageToken: string }> {
  let newStart: string | undefined;
  const changes = await http.pages(async (pageToken) => {
    const p = page(await get(http, '/changes', { ...feedQuery(f), maxResults, pageToken: pageToken ?? token }), 'GET /changes');
    const n = p.body['newStartPageToken'];
    if (!p.next) {
      if (typeof n !== 'string' || n === '') throw new Error('GET /changes: the last page has neither nextPageToken nor newStartPageToken');
      newStart = n;
    }
    return p;
  });
  return { changes, newStartPageToken: newStart! };
}

/** POST /changes/watch: a web_hook channel on the feed from `token`. */
export async function watchChanges(http: AdapterHttp, f: Feed, token: string, channel: { id: string; address: string; token: string; expiration?: number }): Promise<Obj> {
  const body: Obj = { id: channel.id, type: 'web_hook', address: channel.address, token: channel.token };
  if (channel.expiration !== undefined) body['expiration'] = String(channel.expiration);
  const res = await http.json({ method: 'POST', path: `${API}/changes/watch`, query: { ...feedQuery(f), pageToken: token }, body });
  return obj(res.json, 'POST /changes/watch');
}

/** POST /channels/stop. */
export async function stopChannel(http: AdapterHttp, id: string, resourceId: string | undefined): Promise<void> {
  const body: Obj = { id };
  if (resourceId !== undefined) body['resourceId'] = resourceId;
  await http.json({ method: 'POST', path: `${API}/channels/stop`, body });
}
