// The calendar adapter (type: calendar) serves at data.calendar:
//   window              {time_min, time_max}: the span events and free/busy were read for
//   event_types         the event types read
//   primary             the id of the user's primary calendar (when the list has one)
//   calendars[id]       {entry, acl:[AclRule], events:[Event], error?} per calendar read
//   settings{id:value}  the user's settings
//   free_busy[id]       {busy:[{start,end}], errors?} (free_busy: true)
//   errors[]            {calendar, what, message}: parts the user may not read (403/404)
// Calendars are the configured ones, or every entry of the user's calendar list. The window
// runs from UTC midnight `days_behind` days ago to UTC midnight after `days_ahead` days, so
// the document (and its revision) changes only when the calendars do or a day passes. Lists
// are sorted (events by start then id, rules by id, busy blocks by start).
// With `push:` configured, channels are opened after each read on what it read (the calendar
// list when no calendars are configured, the settings, each calendar's events and ACL) so
// that a change is read at once; they are stopped (channels/stop) when the adapter stops.

import { fail, type Section } from '../../plugins/config/section.js';
import type { AdapterHttp } from '../../plugins/adapters/http.js';
import type { AdapterType, DataSource, JSONValue, PushChannel } from '../../plugins/adapters/types.js';
import { aclRules, calendarList, EVENT_TYPES, events, freeBusy, isNoAccess, settings as userSettings, stopChannel, watch, type EventType, type Obj, type Watched, type Window } from './client.js';
import { pool } from '../../plugins/adapters/pool.js';
import { isObj } from '../../plugins/adapters/types.js';

export interface CalendarSettings {
  /** Calendar ids; undefined: every entry of the calendar list. */
  calendars?: string[];
  event_types: EventType[];
  days_ahead: number;
  days_behind: number;
  free_busy: boolean;
  /** Read ACL rules (of the calendars the user owns, and of configured calendars not in the list). */
  acl: boolean;
  /** Read the user's settings. */
  user_settings: boolean;
  /** maxResults of each list request (capped at each list's maximum). */
  page_size: number;
}

const DAY_MS = 86_400_000;

/** Calendars read at the same time. */
const CONCURRENCY = 4;


/** The read window around `now`, on UTC day boundaries. */
export function windowOf(now: number, s: Pick<CalendarSettings, 'days_ahead' | 'days_behind'>): Window {
  const day = Math.floor(now / DAY_MS) * DAY_MS;
  const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
  return { timeMin: iso(day - s.days_behind * DAY_MS), timeMax: iso(day + (s.days_ahead + 1) * DAY_MS) };
}

/** Epoch ms of an event time ({dateTime} or all-day {date}, taken as UTC midnight). */
function startMs(t: JSONValue | undefined): number {
  if (!isObj(t)) return Number.POSITIVE_INFINITY;
  const v = typeof t['dateTime'] === 'string' ? t['dateTime'] : typeof t['date'] === 'string' ? t['date'] : undefined;
  const ms = v === undefined ? Number.NaN : Date.parse(v);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

const str = (v: JSONValue | undefined): string => (typeof v === 'string' ? v : '');
const byId = (a: Obj, b: Obj): number => (str(a['id']) < str(b['id']) ? -1 : str(a['id']) > str(b['id']) ? 1 : 0);
const byStart = (a: Obj, b: Obj): number => startMs(a['start']) - startMs(b['start']) || byId(a, b);

function sortedKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]!]));
}

export async function readCalendar(http: AdapterHttp, s: CalendarSettings, now = Date.now()): Promise<JSONValue> {
  const w = windowOf(now, s);
  const list = await calendarList(http, s.page_size);
  const entries = new Map<string, Obj>();
  for (const e of list) if (typeof e['id'] === 'string') entries.set(e['id'], e);
  const ids = [...new Set(s.calendars ?? [...entries.keys()])].sort();
  const errors: Obj[] = [];
  const noAccess = (calendar: string, what: string, e: Error): void => void errors.push({ calendar, what, message: e.message });

  const read = new Map<string, Obj>();
  await pool(ids, CONCURRENCY, async (id) => {
    const c: Obj = {};
    const entry = entries.get(id);
    if (entry) c['entry'] = entry;
    // ACL rules are readable by a calendar's owners only; a configured calendar the list does not show is tried
    if (s.acl && (entry === undefined || entry['accessRole'] === 'owner')) {
      try {
        c['acl'] = (await aclRules(http, id, s.page_size)).sort(byId);
      } catch (e) {
        if (!isNoAccess(e)) throw e;
        noAccess(id, 'acl', e);
      }
    }
    try {
      c['events'] = (await events(http, id, w, s.event_types, s.page_size)).sort(byStart);
    } catch (e) {
      if (!isNoAccess(e)) throw e;
      noAccess(id, 'events', e);
      c['error'] = e.message;
    }
    read.set(id, c);
  });
  const calendars: Record<string, JSONValue> = Object.fromEntries(ids.map((id) => [id, read.get(id)!]));

  const doc: Obj = { window: { time_min: w.timeMin, time_max: w.timeMax }, event_types: [...s.event_types] };
  const primary = list.find((e) => e['primary'] === true && typeof e['id'] === 'string');
  if (primary) doc['primary'] = primary['id']!;
  doc['calendars'] = calendars;
  if (s.user_settings) {
    const out: Record<string, JSONValue> = {};
    for (const x of await userSettings(http, s.page_size)) if (typeof x['id'] === 'string') out[x['id']] = x['value'] ?? null;
    doc['settings'] = sortedKeys(out);
  }
  if (s.free_busy && ids.length) {
    const fb = await freeBusy(http, ids, w);
    const out: Record<string, JSONValue> = {};
    for (const [id, v] of Object.entries(fb)) {
      const busy = Array.isArray(v['busy']) ? v['busy'].filter(isObj).sort((a, b) => startMs({ dateTime: a['start'] ?? null }) - startMs({ dateTime: b['start'] ?? null })) : [];
      out[id] = { ...v, busy };
    }
    doc['free_busy'] = sortedKeys(out);
  } else if (s.free_busy) doc['free_busy'] = {};
  doc['errors'] = errors.sort((a, b) => (str(a['calendar']) + '\0' + str(a['what']) < str(b['calendar']) + '\0' + str(b['what']) ? -1 : 1));
  return doc;
}

/** The resources a document was read from (those read without error). */
function watchedBy(doc: JSONValue, s: CalendarSettings): Watched[] {
  const out: Watched[] = [];
  if (s.calendars === undefined) out.push({ kind: 'calendarList' });
  if (s.user_settings) out.push({ kind: 'settings' });
  const calendars = isObj(doc) && isObj(doc['calendars']) ? doc['calendars'] : {};
  for (const [id, c] of Object.entries(calendars)) {
    if (!isObj(c)) continue;
    if (Array.isArray(c['events'])) out.push({ kind: 'events', calendarId: id, types: s.event_types });
    if (Array.isArray(c['acl'])) out.push({ kind: 'acl', calendarId: id });
  }
  return out;
}

export const calendar: AdapterType<CalendarSettings> = {
  kind: 'data',
  defaultRoot: 'calendar',
  settings(s: Section): CalendarSettings {
    const calendars = s.strList('calendars');
    calendars?.forEach((c, i) => c === '' && fail(`${s.key}.calendars[${i}]`, 'an empty calendar id'));
    const types = s.strList('event_types') ?? [...EVENT_TYPES];
    types.forEach((t, i) => {
      if (!(EVENT_TYPES as readonly string[]).includes(t)) fail(`${s.key}.event_types[${i}]`, `"${t}" is not an event type (one of ${EVENT_TYPES.join(', ')})`);
    });
    if (!types.length) fail(`${s.key}.event_types`, 'name at least one event type');
    const days_ahead = s.int('days_ahead') ?? 14;
    const days_behind = s.int('days_behind') ?? 1;
    if (days_ahead + days_behind > 366) fail(`${s.key}.days_ahead`, 'the window (days_behind + days_ahead) is at most 366 days');
    const page_size = s.int('page_size') ?? 250;
    if (page_size < 1) fail(`${s.key}.page_size`, 'must be at least 1');
    return {
      calendars,
      event_types: [...new Set(types)] as EventType[],
      days_ahead,
      days_behind,
      free_busy: s.bool('free_busy', true),
      acl: s.bool('acl', true),
      user_settings: s.bool('user_settings', true),
      page_size,
    };
  },
  pushTokenHeader: 'x-goog-channel-token',
  data(settings: CalendarSettings): DataSource {
    // what the last read read, and so what channels watch
    let watched: Watched[] = [];
    return {
      async read(ctx) {
        const doc = await readCalendar(ctx.http, settings);
        watched = watchedBy(doc, settings);
        return doc;
      },
      async watch(ctx) {
        const out: PushChannel[] = [];
        try {
          for (const w of watched) {
            const id = ctx.newId();
            const ch = await watch(ctx.http, w, { id, address: ctx.address, token: ctx.token, ttlSeconds: ctx.ttlSeconds });
            const exp = Number(ch['expiration']);
            out.push({
              id: typeof ch['id'] === 'string' ? ch['id'] : id,
              resourceId: typeof ch['resourceId'] === 'string' ? ch['resourceId'] : undefined,
              expiration: Number.isFinite(exp) && exp > 0 ? exp : undefined,
              resource: 'calendarId' in w ? `${w.kind}:${w.calendarId}` : w.kind,
            });
          }
        } catch (e) {
          // no half-open set: close what opened (they would lapse anyway)
          for (const c of out) await stopChannel(ctx.http, c.id, c.resourceId).catch(() => undefined);
          throw e;
        }
        return out;
      },
      async unwatch(ctx, channels) {
        for (const c of channels) await stopChannel(ctx.http, c.id, c.resourceId);
      },
    };
  },
};
