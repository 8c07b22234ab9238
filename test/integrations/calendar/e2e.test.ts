// The calendar adapter end to end: a real server reading a stand-in calendar API v3 over
// loopback into data.calendar (calendar list, ACL rules, events by type over a window,
// settings, free/busy), through several pages, with calendar ids that must be
// percent-encoded in paths; a wrong token, throttling, server errors and malformed bodies,
// keeping the last good data; push channels (watch) and their notifications; and
// configuration errors that name their key.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../loopback.js';
import { serve, type Served } from '../../plugins/adapters/harness.js';
import { aclRule, calendarStandIn, entry, event, notification, type CalendarStandIn } from './stand-in.js';

let api: CalendarStandIn;
let running: Served[] = [];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number): string => new Date(ms).toISOString();
const date = (ms: number): string => iso(ms).slice(0, 10);
const ALICE = 'alice@example.com';
const HOLIDAYS = 'en.usa#holiday@group.v.calendar.google.com';
const TEAM = 'team-ops@group.calendar.google.com';

beforeEach(async () => {
  api = await calendarStandIn('cal-secret');
  const now = Date.now();
  api.calendars.set(ALICE, {
    entry: entry(ALICE, 'owner', { primary: true }),
    acl: [aclRule('user', ALICE, 'owner'), aclRule('domain', 'example.com', 'freeBusyReader'), aclRule('group', 'ops@example.com', 'writer'), aclRule('default', undefined, 'none')],
    events: [
      event('ooo-now', 'outOfOffice', iso(now - HOUR), iso(now + 2 * HOUR), ALICE, { summary: 'Dentist' }),
      event('focus', 'focusTime', iso(now + 3 * HOUR), iso(now + 4 * HOUR), ALICE),
      event('standup', 'default', iso(now + DAY), iso(now + DAY + HOUR / 4), ALICE),
      event('office', 'workingLocation', date(now + 2 * DAY), date(now + 3 * DAY), ALICE, { workingLocationProperties: { type: 'officeLocation' } }),
      event('flight', 'fromGmail', iso(now + 5 * DAY), iso(now + 5 * DAY + 3 * HOUR), ALICE),
      event('holiday', 'outOfOffice', date(now + 7 * DAY), date(now + 9 * DAY), ALICE),
      event('far-away', 'default', iso(now + 60 * DAY), iso(now + 60 * DAY + HOUR), ALICE),
      event('called-off', 'default', iso(now + 2 * HOUR), iso(now + 3 * HOUR), ALICE, { status: 'cancelled' }),
    ],
  });
  api.calendars.set(HOLIDAYS, { entry: entry(HOLIDAYS, 'reader', { summary: 'Holidays in United States' }), acl: [], events: [event('thanksgiving', 'default', date(now + DAY), date(now + 2 * DAY), HOLIDAYS)] });
  api.calendars.set(TEAM, {
    entry: entry(TEAM, 'owner'),
    acl: [aclRule('user', 'bob@example.com', 'writer')],
    events: [event('retro', 'default', iso(now + 4 * HOUR), iso(now + 5 * HOUR), 'bob@example.com'), event('planning', 'default', iso(now - 2 * HOUR), iso(now - HOUR), 'bob@example.com')],
  });
  api.settings = [
    { kind: 'calendar#setting', id: 'timezone', value: 'Europe/Zurich' },
    { kind: 'calendar#setting', id: 'weekStart', value: '1' },
    { kind: 'calendar#setting', id: 'format24HourTime', value: 'true' },
    { kind: 'calendar#setting', id: 'locale', value: 'en' },
    { kind: 'calendar#setting', id: 'defaultEventLength', value: '30' },
  ];
});
afterEach(async () => {
  for (const s of running) await s.stop();
  running = [];
  await api.close();
});

function config(adapter: Record<string, unknown> = {}, token = 'cal-secret'): Record<string, unknown> {
  return {
    // no header deadline (0, as Go's): at 20 ms a configured second any deadline is one a loaded machine misses (a read retried, or failed with no document)
    services: { gcal: { url: api.url, credentials: { bearer: { token } }, response_header_timeout_seconds: 0 } },
    adapters: { cal: { type: 'calendar', service: 'gcal', trigger: 'manual', retry: { max_retries: 2 }, ...adapter } },
  };
}

async function start(cfg: Record<string, unknown>): Promise<Served> {
  const s = await serve(cfg);
  running.push(s);
  return s;
}

const ids = (xs: { id: string }[]): string[] => xs.map((x) => x.id);

describe('calendar adapter', () => {
  it('serves the calendar list, ACL rules, events of every type, settings and free/busy, across pages', async () => {
    const s = await start(config());
    await s.manager.trigger();
    const doc = (await s.get('/v1/data/calendar')).body.result;
    expect(Object.keys(doc.calendars)).toEqual([ALICE, TEAM, HOLIDAYS].sort());
    expect(doc.primary).toBe(ALICE);
    expect(doc.event_types).toEqual(['default', 'outOfOffice', 'focusTime', 'workingLocation', 'fromGmail']);
    // the window: UTC midnight a day ago to UTC midnight after 14 days
    const today = Math.floor(Date.now() / DAY) * DAY;
    expect(doc.window).toEqual({ time_min: iso(today - DAY).replace('.000Z', 'Z'), time_max: iso(today + 15 * DAY).replace('.000Z', 'Z') });

    const alice = doc.calendars[ALICE];
    expect(alice.entry).toMatchObject({ id: ALICE, accessRole: 'owner', primary: true });
    // four rules over two pages, sorted by id
    expect(ids(alice.acl)).toEqual(['default', 'domain:example.com', 'group:ops@example.com', 'user:alice@example.com']);
    expect(alice.acl.find((r: any) => r.id === 'default').scope).toEqual({ type: 'default' });
    // in the window, not cancelled, by start; six events over three pages
    expect(ids(alice.events)).toEqual(['ooo-now', 'focus', 'standup', 'office', 'flight', 'holiday']);
    expect(alice.events.map((e: any) => e.eventType)).toEqual(['outOfOffice', 'focusTime', 'default', 'workingLocation', 'fromGmail', 'outOfOffice']);
    expect(alice.events[0]).toMatchObject({ summary: 'Dentist', organizer: { email: ALICE }, status: 'confirmed' });
    expect(alice.events[3].start).toEqual({ date: date(Date.now() + 2 * DAY) });
    // a reader gets no ACL (the API refuses it to all but owners), and is not asked for it
    expect(doc.calendars[HOLIDAYS].acl).toBeUndefined();
    expect(ids(doc.calendars[HOLIDAYS].events)).toEqual(['thanksgiving']);
    expect(ids(doc.calendars[TEAM].events)).toEqual(['planning', 'retro']);
    expect(doc.settings).toEqual({ defaultEventLength: '30', format24HourTime: 'true', locale: 'en', timezone: 'Europe/Zurich', weekStart: '1' });
    // free/busy: busy blocks sorted by start (the stand-in sends them reversed); no transparent working location
    expect(Object.keys(doc.free_busy)).toEqual([ALICE, TEAM, HOLIDAYS].sort());
    const busy = doc.free_busy[ALICE].busy as { start: string; end: string }[];
    expect(busy).toHaveLength(5);
    expect(busy.map((b) => b.start)).toEqual([...busy.map((b) => b.start)].sort());
    expect(doc.errors).toEqual([]);

    // calendar ids percent-encoded in paths: "@" as %40, "#" as %23 (a raw "#" would cut the path)
    const urls = api.requests.map((r) => r.url);
    expect(urls.some((u) => u.startsWith('/calendar/v3/calendars/en.usa%23holiday%40group.v.calendar.google.com/events?'))).toBe(true);
    expect(urls.some((u) => u.startsWith('/calendar/v3/calendars/alice%40example.com/acl?'))).toBe(true);
    expect(urls.every((u) => !u.includes('#') && !/calendars\/[^/?]*@/.test(u))).toBe(true);
    expect(new Set(api.pathIds)).toEqual(new Set([ALICE, TEAM, HOLIDAYS]));
    expect(urls.some((u) => u.startsWith(`/calendar/v3/calendars/${encodeURIComponent(HOLIDAYS)}/acl`))).toBe(false);
    // the events query: the window, single events by start time, each type as its own parameter, paged
    const aliceEvents = urls.filter((u) => u.startsWith('/calendar/v3/calendars/alice%40example.com/events?')).map((u) => new URL(u, 'http://x').searchParams);
    expect(aliceEvents).toHaveLength(3);
    expect(aliceEvents[0]!.getAll('eventTypes')).toEqual(['default', 'outOfOffice', 'focusTime', 'workingLocation', 'fromGmail']);
    expect(aliceEvents[0]!.get('singleEvents')).toBe('true');
    expect(aliceEvents[0]!.get('orderBy')).toBe('startTime');
    expect(aliceEvents[0]!.get('timeMin')).toBe(doc.window.time_min);
    expect(aliceEvents.map((p) => p.get('pageToken'))).toEqual([null, 'pg-2', 'pg-4']);
    expect(aliceEvents[0]!.get('maxResults')).toBe('250');
    // free/busy: one POST naming every calendar, over the window
    const fb = api.requests.filter((r) => r.method === 'POST');
    expect(fb).toHaveLength(1);
    expect(JSON.parse(fb[0]!.body.toString())).toEqual({ timeMin: doc.window.time_min, timeMax: doc.window.time_max, items: [ALICE, TEAM, HOLIDAYS].sort().map((id) => ({ id })) });
    expect(fb[0]!.url).toBe('/calendar/v3/freeBusy');

    const st = (await s.get('/v1/status')).body.result.adapters.cal;
    expect(st.active_revision).toMatch(/^[0-9a-f]{16}$/);
    expect(st.code).toBeUndefined();
    expect((await s.get('/health?bundles')).status).toBe(200);
    // the same calendars read again: the same document and revision
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.adapters.cal.active_revision).toBe(st.active_revision);
  });

  it('reads only the configured calendars and event types, over the configured window', async () => {
    const s = await start(config({ calendars: [ALICE, HOLIDAYS, 'nobody@example.com'], event_types: ['outOfOffice', 'focusTime'], days_ahead: 3, days_behind: 0, free_busy: false, user_settings: false, page_size: 10 }));
    await s.manager.trigger();
    const doc = (await s.get('/v1/data/calendar')).body.result;
    expect(Object.keys(doc.calendars)).toEqual([ALICE, HOLIDAYS, 'nobody@example.com']);
    expect(ids(doc.calendars[ALICE].events)).toEqual(['ooo-now', 'focus']);
    expect(doc.calendars[HOLIDAYS].events).toEqual([]);
    expect(doc.event_types).toEqual(['outOfOffice', 'focusTime']);
    const today = Math.floor(Date.now() / DAY) * DAY;
    expect(Date.parse(doc.window.time_min)).toBe(today);
    expect(Date.parse(doc.window.time_max)).toBe(today + 4 * DAY);
    expect(doc.free_busy).toBeUndefined();
    expect(doc.settings).toBeUndefined();
    // a calendar the user cannot read is an error entry, not a failed read
    expect(doc.calendars['nobody@example.com'].error).toMatch(/server answered 404: Not Found/);
    expect(doc.errors.map((e: any) => [e.calendar, e.what])).toEqual([
      ['nobody@example.com', 'acl'],
      ['nobody@example.com', 'events'],
    ]);
    const events = api.requests.filter((r) => r.url.includes('/events?')).map((r) => new URL(r.url, 'http://x').searchParams);
    expect(events.every((p) => p.getAll('eventTypes').join(',') === 'outOfOffice,focusTime' && p.get('maxResults') === '10')).toBe(true);
    expect(api.requests.some((r) => r.method === 'POST' || r.url.startsWith('/calendar/v3/users/me/settings'))).toBe(false);
    expect((await s.get('/v1/status')).body.result.adapters.cal.code).toBeUndefined();
  });

  it('a wrong token is an error naming the 401, not retried; the last good data stays', async () => {
    const s = await start(config());
    await s.manager.trigger();
    const good = (await s.get('/v1/data/calendar')).body.result;
    api.token = 'rotated';
    const before = api.requests.length;
    await s.manager.trigger();
    const st = (await s.get('/v1/status')).body.result.adapters.cal;
    expect(st).toMatchObject({ code: 'adapter_error', http_code: '401' });
    expect(st.message).toMatch(/Request had invalid authentication credentials/);
    expect(api.requests.length - before).toBe(1);
    expect((await s.get('/v1/data/calendar')).body.result).toEqual(good);
    expect((await s.get('/health?bundles')).status).toBe(200);
  });

  it('retries throttling and server errors; a malformed body fails the read and keeps the last good data', async () => {
    const s = await start(config({ retry: { max_retries: 3 } }));
    await s.manager.trigger();
    const good = (await s.get('/v1/data/calendar')).body.result;
    api.faults.push({ malformed: true });
    await s.manager.trigger();
    const st = (await s.get('/v1/status')).body.result.adapters.cal;
    expect(st.code).toBe('adapter_error');
    expect(st.message).toMatch(/a body that is not JSON/);
    expect((await s.get('/v1/data/calendar')).body.result).toEqual(good);
    // more faults than retries: the read fails, the data stays
    api.faults.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.adapters.cal.message).toMatch(/server answered 503/);
    expect((await s.get('/v1/data/calendar')).body.result).toEqual(good);
    // within the retries: a new event arrives
    api.faults.push({ status: 429, retryAfter: '1' }, { status: 502 }, { reset: true });
    api.calendars.get(TEAM)!.events.push(event('new-one', 'focusTime', iso(Date.now() + 6 * HOUR), iso(Date.now() + 7 * HOUR), 'bob@example.com'));
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.adapters.cal.code).toBeUndefined();
    expect(ids((await s.get('/v1/data/calendar')).body.result.calendars[TEAM].events)).toEqual(['planning', 'retro', 'new-one']);
  });

  it('opens push channels on what it read, reads at once on a notification, and stops them on stop', async () => {
    const s = await start(config({ push: { address: 'https://regolith.example/v1/events/cal', token: 'chan-secret', ttl_seconds: 3600 } }));
    await s.manager.trigger();
    await waitFor('the channels', () => api.channels.size === 7);
    const watched = [...api.channels.values()];
    expect(watched.map((c) => c.resource).sort()).toEqual(
      [
        '/calendar/v3/users/me/calendarList',
        '/calendar/v3/users/me/settings',
        ...[ALICE, TEAM, HOLIDAYS].map((id) => `/calendar/v3/calendars/${encodeURIComponent(id)}/events`),
        ...[ALICE, TEAM].map((id) => `/calendar/v3/calendars/${encodeURIComponent(id)}/acl`),
      ].sort(),
    );
    expect(watched.every((c) => c.body['type'] === 'web_hook' && c.body['address'] === 'https://regolith.example/v1/events/cal' && c.body['token'] === 'chan-secret' && c.body['params'].ttl === '3600')).toBe(true);
    // events channels watch the types read
    const evq = new URLSearchParams(watched.find((c) => c.resource.endsWith('/events'))!.query);
    expect(evq.getAll('eventTypes')).toEqual(['default', 'outOfOffice', 'focusTime', 'workingLocation', 'fromGmail']);
    const open = s.manager.adapters!.data.get('cal')!.openChannels();
    expect(open).toHaveLength(7);
    expect(open.every((c) => api.channels.get(c.id)?.resourceId === c.resourceId && c.expiration! > Date.now())).toBe(true);

    // a change on alice's calendar: the API notifies, the adapter reads at once
    api.calendars.get(ALICE)!.events.push(event('new-ooo', 'outOfOffice', iso(Date.now() + 10 * HOUR), iso(Date.now() + 11 * HOUR), ALICE));
    const channel = open.find((c) => c.resource === `events:${ALICE}`)!;
    const hook = (headers: Record<string, string>) => fetch(`${s.server.url}/v1/events/cal`, { method: 'POST', headers, body: '' });
    expect((await hook({ ...notification(api, channel.id), 'x-goog-channel-token': 'wrong' })).status).toBe(401);
    expect((await hook(notification(api, channel.id))).status).toBe(200);
    await waitFor('the early read', async () => ids((await s.get('/v1/data/calendar')).body.result.calendars[ALICE].events).includes('new-ooo'));
    // on stop, every channel is stopped with its resource id
    await s.stop();
    expect(api.channels.size).toBe(0);
    expect(api.stopped.map((c) => c['id']).sort()).toEqual(open.map((c) => c.id).sort());
  });

  it('names the key of each configuration mistake', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ event_types: ['default', 'vacation'] }, /adapters\.cal\.event_types\[1\]: "vacation" is not an event type \(one of default, outOfOffice, focusTime, workingLocation, fromGmail\)/],
      [{ event_types: [] }, /adapters\.cal\.event_types: name at least one event type/],
      [{ calendars: 'alice@example.com' }, /adapters\.cal\.calendars: expected a list of strings/],
      [{ calendars: [''] }, /adapters\.cal\.calendars\[0\]: an empty calendar id/],
      [{ days_ahead: -1 }, /adapters\.cal\.days_ahead: expected a non-negative integer/],
      [{ days_ahead: 400 }, /adapters\.cal\.days_ahead: the window/],
      [{ free_busy: 'yes' }, /adapters\.cal\.free_busy: expected a boolean/],
      [{ page_size: 0 }, /adapters\.cal\.page_size: must be at least 1/],
      [{ colour: 'blue' }, /adapters\.cal\.colour: unknown configuration key/],
      [{ push: { address: 'https://regolith.example/v1/events/cal' } }, /adapters\.cal\.push: push needs token or token_path/],
    ];
    for (const [a, message] of cases) await expect(serve(config(a)), JSON.stringify(a)).rejects.toThrow(message);
  });
});
