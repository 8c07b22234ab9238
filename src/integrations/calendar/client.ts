// The calendar API v3 as the adapter reads it: the user's calendar list, ACL rules of a
// calendar, user settings and the events of a calendar (each list followed through its page
// tokens), and free/busy queries. Calendar ids (e-mail addresses with "@", group ids with
// "#") are percent-encoded in paths.

import { AdapterHttpError, type AdapterHttp } from '../../plugins/adapters/http.js';
import type { JSONValue } from '../../plugins/adapters/types.js';
import { isObj } from '../../plugins/adapters/types.js';

export const API = '/calendar/v3';

/** The event types of seed 002 (and of the events list's `eventTypes` parameter). */
export const EVENT_TYPES = ['default', 'outOfOffice', 'focusTime', 'workingLocation', 'fromGmail'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Calendar ids a free/busy query may carry at once (the API's calendarExpansionMax). */
export const FREE_BUSY_MAX = 50;

/** The largest page each list accepts (maxResults). */
export const MAX_PAGE = { calendarList: 250, acl: 250, settings: 250, events: 2500 } as const;

export type Obj = Record<string, JSONValue>;

const enc = encodeURIComponent;
export const calendarPath = (id: string): string => `${API}/calendars/${enc(id)}`;

/** A query string with repeated parameters (AdapterHttp's query object has one value per key). */
function qs(params: [string, string | number | undefined][]): string {
  const parts = params.filter(([, v]) => v !== undefined).map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** One list through all its pages: `field` holds the items of each page. */
async function list(http: AdapterHttp, path: string, field: string, params: [string, string | number | undefined][]): Promise<Obj[]> {
  return http.pages(async (pageToken) => {
    const full = path + qs([...params, ['pageToken', pageToken]]);
    const j = (await http.json({ path: full })).json;
    if (!isObj(j) || (j[field] !== undefined && !Array.isArray(j[field]))) throw new AdapterHttpError(`GET ${full}: the answer has no ${field} list`);
    const items = ((j[field] ?? []) as JSONValue[]).filter(isObj);
    const next = typeof j['nextPageToken'] === 'string' && j['nextPageToken'] !== '' ? j['nextPageToken'] : undefined;
    return { items, next };
  });
}

export function calendarList(http: AdapterHttp, pageSize: number): Promise<Obj[]> {
  return list(http, `${API}/users/me/calendarList`, 'items', [['maxResults', Math.min(pageSize, MAX_PAGE.calendarList)]]);
}

export function aclRules(http: AdapterHttp, calendarId: string, pageSize: number): Promise<Obj[]> {
  return list(http, `${calendarPath(calendarId)}/acl`, 'items', [['maxResults', Math.min(pageSize, MAX_PAGE.acl)]]);
}

export function settings(http: AdapterHttp, pageSize: number): Promise<Obj[]> {
  return list(http, `${API}/users/me/settings`, 'items', [['maxResults', Math.min(pageSize, MAX_PAGE.settings)]]);
}

export interface Window {
  timeMin: string;
  timeMax: string;
}

/** Single (expanded) events of the given types that overlap the window, ordered by start. */
export function events(http: AdapterHttp, calendarId: string, w: Window, types: readonly EventType[], pageSize: number): Promise<Obj[]> {
  return list(http, `${calendarPath(calendarId)}/events`, 'items', [
    ['timeMin', w.timeMin],
    ['timeMax', w.timeMax],
    ['singleEvents', 'true'],
    ['orderBy', 'startTime'],
    ...types.map((t): [string, string] => ['eventTypes', t]),
    ['maxResults', Math.min(pageSize, MAX_PAGE.events)],
  ]);
}

/** Free/busy of the calendars over the window, in queries of at most FREE_BUSY_MAX ids. */
export async function freeBusy(http: AdapterHttp, ids: string[], w: Window): Promise<Record<string, Obj>> {
  const out: Record<string, Obj> = {};
  for (let i = 0; i < ids.length; i += FREE_BUSY_MAX) {
    const part = ids.slice(i, i + FREE_BUSY_MAX);
    const path = `${API}/freeBusy`;
    const j = (await http.json({ method: 'POST', path, body: { timeMin: w.timeMin, timeMax: w.timeMax, items: part.map((id) => ({ id })) } })).json;
    if (!isObj(j) || !isObj(j['calendars'])) throw new AdapterHttpError(`POST ${path}: the answer has no calendars object`);
    for (const [id, v] of Object.entries(j['calendars'])) if (isObj(v)) out[id] = v;
  }
  return out;
}

/** Whether an error says the calendar cannot be read by this user (not a failure of the read). */
export function isNoAccess(e: unknown): e is AdapterHttpError {
  return e instanceof AdapterHttpError && (e.httpCode === 403 || e.httpCode === 404);
}

/** What a channel watches: the calendar list, the settings, or a calendar's events or ACL. */
export type Watched = { kind: 'calendarList' } | { kind: 'settings' } | { kind: 'events'; calendarId: string; types: readonly EventType[] } | { kind: 'acl'; calendarId: string };

export function watchedPath(w: Watched): string {
  switch (w.kind) {
    case 'calendarList':
      return `${API}/users/me/calendarList/watch`;
    case 'settings':
      return `${API}/users/me/settings/watch`;
    case 'events':
      return `${calendarPath(w.calendarId)}/events/watch${qs([['singleEvents', 'true'], ...w.types.map((t): [string, string] => ['eventTypes', t])])}`;
    case 'acl':
      return `${calendarPath(w.calendarId)}/acl/watch`;
  }
}

/** POST .../watch: a web_hook channel; the API answers with the Channel (id, resourceId, expiration in epoch ms). */
export async function watch(http: AdapterHttp, w: Watched, channel: { id: string; address: string; token: string; ttlSeconds: number }): Promise<Obj> {
  const path = watchedPath(w);
  const body: Obj = { id: channel.id, type: 'web_hook', address: channel.address, token: channel.token, params: { ttl: String(channel.ttlSeconds) } };
  const j = (await http.json({ method: 'POST', path, body })).json;
  if (!isObj(j)) throw new AdapterHttpError(`POST ${path}: the answer is not a channel`);
  return j;
}

/** POST /channels/stop. */
export async function stopChannel(http: AdapterHttp, id: string, resourceId: string | undefined): Promise<void> {
  const body: Obj = { id };
  if (resourceId !== undefined) body['resourceId'] = resourceId;
  await http.json({ method: 'POST', path: `${API}/channels/stop`, body });
}
