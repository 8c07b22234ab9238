// A stand-in for the calendar API v3 as the adapter uses it: a bearer token (401 without
// it), the user's calendar list, ACL rules (403 unless the user owns the calendar), user
// settings, events of a calendar filtered by window and repeated `eventTypes`, and POST
// /freeBusy. Every list pages with maxResults / pageToken / nextPageToken, in pages of at
// most `pageSize` items whatever maxResults says; faults come first (stand-ins/faults.ts).

import { httpServer, type TestHTTPServer } from '../../loopback.js';
import { applyFault, type Fault } from '../../plugins/adapters/stand-ins/faults.js';

type Obj = Record<string, any>;

export const EVENT_TYPES = ['default', 'outOfOffice', 'focusTime', 'workingLocation', 'fromGmail'];

export interface StandInCalendar {
  /** The CalendarListEntry; undefined: the calendar exists but is not in the user's list. */
  entry?: Obj;
  acl: Obj[];
  events: Obj[];
}

export interface CalendarStandIn extends TestHTTPServer {
  token: string;
  /** Calendars by id. */
  calendars: Map<string, StandInCalendar>;
  settings: Obj[];
  pageSize: number;
  faults: Fault[];
  /** Calendar ids as the paths carried them, decoded (a "#" sent raw never arrives). */
  pathIds: string[];
  /** Open channels by id: what they watch (the path before /watch, and its query), and the request body. */
  channels: Map<string, { resource: string; query: string; body: Obj; resourceId: string; expiration: number }>;
  /** Channels stopped: {id, resourceId}. */
  stopped: Obj[];
}

/** The headers of a change notification on a channel, as the API sends it to the channel's address. */
export function notification(s: CalendarStandIn, channelId: string, state = 'exists'): Record<string, string> {
  const c = s.channels.get(channelId)!;
  return {
    'x-goog-channel-id': channelId,
    'x-goog-channel-token': String(c.body['token']),
    'x-goog-channel-expiration': new Date(c.expiration).toUTCString(),
    'x-goog-resource-id': c.resourceId,
    'x-goog-resource-uri': `https://calendar.example${c.resource}`,
    'x-goog-resource-state': state,
    'x-goog-message-number': '1',
  };
}

/** A list entry with the documented fields. */
export function entry(id: string, accessRole: string, o: Obj = {}): Obj {
  return { kind: 'calendar#calendarListEntry', etag: `"e-${id}"`, id, summary: o['summary'] ?? id, timeZone: 'UTC', accessRole, ...o };
}

export function aclRule(scopeType: string, value: string | undefined, role: string): Obj {
  const id = value === undefined ? scopeType : `${scopeType}:${value}`;
  return { kind: 'calendar#aclRule', etag: `"a-${id}"`, id, role, scope: value === undefined ? { type: scopeType } : { type: scopeType, value } };
}

/** An event; start and end are RFC 3339 date-times, or dates (YYYY-MM-DD) for all-day events. */
export function event(id: string, eventType: string, start: string, end: string, organizer: string, o: Obj = {}): Obj {
  const t = (v: string): Obj => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? { date: v } : { dateTime: v, timeZone: 'UTC' });
  return {
    kind: 'calendar#event',
    etag: `"ev-${id}"`,
    id,
    status: 'confirmed',
    summary: o['summary'] ?? `${eventType} ${id}`,
    eventType,
    start: t(start),
    end: t(end),
    organizer: { email: organizer, self: true },
    creator: { email: organizer, self: true },
    transparency: eventType === 'workingLocation' ? 'transparent' : 'opaque',
    ...o,
  };
}

const ms = (t: Obj): number => Date.parse(t['dateTime'] ?? t['date']);

function page(items: Obj[], url: URL, pageSize: number, max: number): { items: Obj[]; nextPageToken?: string } {
  const asked = Number(url.searchParams.get('maxResults') ?? max);
  const size = Math.min(asked, pageSize);
  const token = url.searchParams.get('pageToken');
  const offset = token === null ? 0 : Number(/^pg-(\d+)$/.exec(token)?.[1] ?? NaN);
  if (!Number.isInteger(offset)) throw Object.assign(new Error('bad page token'), { status: 400 });
  const slice = items.slice(offset, offset + size);
  return offset + size < items.length ? { items: slice, nextPageToken: `pg-${offset + size}` } : { items: slice };
}

function send(res: import('node:http').ServerResponse, status: number, v: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(v));
}

const error = (code: number, message: string, reason: string): Obj => ({ error: { code, message, errors: [{ domain: 'global', reason, message }] } });

export async function calendarStandIn(token = 'cal-secret'): Promise<CalendarStandIn> {
  const s = (await httpServer(() => {})) as CalendarStandIn;
  Object.assign(s, { token, calendars: new Map(), settings: [], pageSize: 2, faults: [], pathIds: [], channels: new Map(), stopped: [] });
  let resources = 0;
  s.handler = (req, res) => {
    if (req.headers['authorization'] !== `Bearer ${s.token}`) return send(res, 401, error(401, 'Request had invalid authentication credentials.', 'authError'));
    if (applyFault(s.faults, res)) return;
    const url = new URL(req.url, 'http://x');
    const path = url.pathname;
    try {
      if (req.method === 'GET' && path === '/calendar/v3/users/me/calendarList') {
        const entries = [...s.calendars.values()].flatMap((c) => (c.entry ? [c.entry] : []));
        return send(res, 200, { kind: 'calendar#calendarList', etag: '"list"', ...page(entries, url, s.pageSize, 250) });
      }
      if (req.method === 'GET' && path === '/calendar/v3/users/me/settings') {
        return send(res, 200, { kind: 'calendar#settings', etag: '"settings"', ...page(s.settings, url, s.pageSize, 250) });
      }
      if (req.method === 'POST' && path === '/calendar/v3/channels/stop') {
        const body = JSON.parse(req.body.toString()) as Obj;
        const c = s.channels.get(body['id']);
        if (!c || c.resourceId !== body['resourceId']) return send(res, 404, error(404, `Channel '${body['id']}' not found for project`, 'notFound'));
        s.channels.delete(body['id']);
        s.stopped.push(body);
        res.writeHead(204);
        return void res.end();
      }
      const w = /^(\/calendar\/v3\/(?:users\/me\/(?:calendarList|settings)|calendars\/[^/]+\/(?:events|acl)))\/watch$/.exec(path);
      if (req.method === 'POST' && w) {
        const body = JSON.parse(req.body.toString()) as Obj;
        if (body['type'] !== 'web_hook' || typeof body['id'] !== 'string' || typeof body['address'] !== 'string') return send(res, 400, error(400, 'id, type web_hook and address are required', 'required'));
        if (!String(body['address']).startsWith('https://')) return send(res, 400, error(400, `WebHook callback must be HTTPS: ${body['address']}`, 'push.webhookUrlNotHttps'));
        const m = /^\/calendar\/v3\/calendars\/([^/]+)\//.exec(path);
        if (m && !s.calendars.has(decodeURIComponent(m[1]!))) return send(res, 404, error(404, 'Not Found', 'notFound'));
        const ttl = Number(body['params']?.['ttl'] ?? 604800);
        const resourceId = `res-${++resources}`;
        const expiration = Date.now() + ttl * 1000;
        s.channels.set(body['id'], { resource: w[1]!, query: url.search, body, resourceId, expiration });
        return send(res, 200, { kind: 'api#channel', id: body['id'], resourceId, resourceUri: `https://calendar.example${w[1]}`, token: body['token'], expiration: String(expiration) });
      }
      if (req.method === 'POST' && path === '/calendar/v3/freeBusy') {
        const body = JSON.parse(req.body.toString()) as Obj;
        const min = Date.parse(body['timeMin']);
        const max = Date.parse(body['timeMax']);
        if (Number.isNaN(min) || Number.isNaN(max) || !Array.isArray(body['items'])) return send(res, 400, error(400, 'timeMin, timeMax and items are required', 'required'));
        if (body['items'].length > 50) return send(res, 400, error(400, 'Too many calendars requested', 'tooManyCalendarsRequested'));
        const calendars: Obj = {};
        for (const { id } of body['items'] as Obj[]) {
          const c = s.calendars.get(id);
          if (!c) {
            calendars[id] = { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
            continue;
          }
          const busy = c.events
            .filter((e) => e['status'] !== 'cancelled' && e['transparency'] !== 'transparent' && ms(e['start']) < max && ms(e['end']) > min)
            .map((e) => ({ start: new Date(Math.max(ms(e['start']), min)).toISOString(), end: new Date(Math.min(ms(e['end']), max)).toISOString() }))
            .reverse(); // not in order: the adapter sorts
          calendars[id] = { busy };
        }
        return send(res, 200, { kind: 'calendar#freeBusy', timeMin: body['timeMin'], timeMax: body['timeMax'], calendars });
      }
      const m = /^\/calendar\/v3\/calendars\/([^/]+)\/(acl|events)$/.exec(path);
      if (req.method === 'GET' && m) {
        const id = decodeURIComponent(m[1]!);
        s.pathIds.push(id);
        const c = s.calendars.get(id);
        if (!c) return send(res, 404, error(404, 'Not Found', 'notFound'));
        if (m[2] === 'acl') {
          if (c.entry && c.entry['accessRole'] !== 'owner') return send(res, 403, error(403, 'Forbidden', 'forbidden'));
          return send(res, 200, { kind: 'calendar#acl', etag: '"acl"', ...page(c.acl, url, s.pageSize, 250) });
        }
        const min = Date.parse(url.searchParams.get('timeMin') ?? '');
        const max = Date.parse(url.searchParams.get('timeMax') ?? '');
        if (Number.isNaN(min) || Number.isNaN(max) || min >= max) return send(res, 400, error(400, 'Bad Request: timeMin/timeMax', 'badRequest'));
        if (url.searchParams.get('orderBy') === 'startTime' && url.searchParams.get('singleEvents') !== 'true') return send(res, 400, error(400, 'The requested ordering is not available for the particular query.', 'badRequest'));
        const types = url.searchParams.getAll('eventTypes');
        for (const t of types) if (!EVENT_TYPES.includes(t)) return send(res, 400, error(400, `Invalid event type: ${t}`, 'invalid'));
        const items = c.events
          .filter((e) => e['status'] !== 'cancelled' && (!types.length || types.includes(e['eventType'])) && ms(e['start']) < max && ms(e['end']) > min)
          .sort((a, b) => ms(a['start']) - ms(b['start']));
        return send(res, 200, { kind: 'calendar#events', summary: id, timeZone: 'UTC', ...page(items, url, s.pageSize, 2500) });
      }
    } catch (e) {
      return send(res, (e as Obj)['status'] ?? 500, error((e as Obj)['status'] ?? 500, (e as Error).message, 'badRequest'));
    }
    send(res, 404, error(404, 'Not Found', 'notFound'));
  };
  return s;
}
