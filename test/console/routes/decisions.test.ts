// GET /ui/api/decisions and /ui/api/decisions/stream with the decision log plugin behind a
// real server: events as logged (masked, dropped ones absent), oldest first; server-sent
// events as decisions are made; listeners gone when clients go; the "off" answers.

import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { DISABLED_HINT } from '../../../src/console/routes/decisions.js';
import type { ConsoleOptions } from '../../../src/console/index.js';
import { fakeBuild, get, startUi, type UiServer } from './helpers.js';

const MASK = `package system.log

mask contains "/input/password"

drop if input.input.user == "noisy"
`;

let build: ReturnType<typeof fakeBuild>;
let s: UiServer;
let manager: PluginManager;
const consoleLines: string[] = [];

beforeAll(async () => {
  build = fakeBuild();
  const engine = new RegolithEngine();
  await engine.putPolicy('authz.rego', 'package authz\n\nallow if input.user == "alice"\n');
  await engine.putPolicy('log.rego', MASK);
  const config = validateConfig({ decision_logs: { console: true } });
  const sink = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (consoleLines.push(String(c)), cb()) }));
  manager = new PluginManager({ config, engine, id: 'ui-test', version: '0', console: sink } as ConstructorParameters<typeof PluginManager>[0]);
  await manager.start();
  // the wiring run-server does: the plugin itself is what `decisions` needs
  s = await startUi({ assetsDir: build.dir, decisions: manager.decisionLogs }, { engine, config: config.raw, ...manager.serverOptions() });
});
afterAll(async () => {
  await s.close();
  await manager.stop();
  build.remove();
});

async function decide(path: string, input: unknown): Promise<string> {
  const r = await fetch(`${s.url}/v1/data/${path}`, { method: 'POST', body: JSON.stringify({ input }) });
  const j = (await r.json()) as { decision_id: string };
  return j.decision_id;
}

/** Reads server-sent events from a stream until `until` holds for them. */
async function readEvents(res: Response, until: (events: { event?: string; data?: string; comment?: string }[]) => boolean, timeoutMs = 5000) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const events: { event?: string; data?: string; comment?: string }[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!until(events)) {
    if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(events)}`);
    const { done, value } = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), deadline - Date.now())),
    ]);
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const e: { event?: string; data?: string; comment?: string } = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) e.comment = line.slice(1).trim();
        else if (line.startsWith('event: ')) e.event = line.slice(7);
        else if (line.startsWith('data: ')) e.data = line.slice(6);
      }
      events.push(e);
    }
  }
  return { events, reader };
}

describe('GET /ui/api/decisions', () => {
  it('lists the logged events oldest first, masked as logged, dropped ones absent', async () => {
    const a = await decide('authz/allow', { user: 'alice', password: 'secret' });
    await decide('authz/allow', { user: 'noisy' });
    const b = await decide('authz/allow', { user: 'bob' });
    const r = await get(s, '/ui/api/decisions');
    expect(r.status).toBe(200);
    expect(r.json.enabled).toBe(true);
    const ids = (r.json.events as any[]).map((e) => e.decision_id);
    expect(ids.indexOf(a)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(a)).toBeLessThan(ids.indexOf(b));
    const ev = (r.json.events as any[]).find((e) => e.decision_id === a);
    expect(ev).toMatchObject({ path: 'authz/allow', input: { user: 'alice' }, result: true, erased: ['/input/password'], labels: { id: 'ui-test' } });
    expect(ev.input).not.toHaveProperty('password');
    expect(JSON.stringify(r.json.events)).not.toContain('noisy');
    // the same events the console log wrote
    expect(consoleLines.some((l) => l.includes(a))).toBe(true);
  });

  it('honours limit (default 100, at most 1000)', async () => {
    for (let i = 0; i < 5; i++) await decide('authz/allow', { user: `u${i}` });
    const two = await get(s, '/ui/api/decisions?limit=2');
    expect((two.json.events as any[]).map((e) => e.input.user)).toEqual(['u3', 'u4']);
    expect((await get(s, '/ui/api/decisions?limit=0')).json.events).toEqual([]);
    expect((await get(s, '/ui/api/decisions?limit=5000')).status).toBe(200);
    const bad = await get(s, '/ui/api/decisions?limit=x');
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_parameter');
    expect((await get(s, '/ui/api/decisions?limit=-1')).status).toBe(400);
  });

  it('keeps at most 1000 events and answers at most 1000', async () => {
    const logs = manager.decisionLogs!;
    for (let i = 0; i < 1100; i++) await logs.logDecision({ decision_id: `bulk-${i}`, path: 'data.bulk', input: { i } });
    const r = await get(s, '/ui/api/decisions?limit=5000');
    expect(r.json.events).toHaveLength(1000);
    expect(r.json.events[0].decision_id).toBe('bulk-100');
    expect(r.json.events[999].decision_id).toBe('bulk-1099');
    expect((await get(s, '/ui/api/decisions')).json.events).toHaveLength(100);
  });
});

describe('GET /ui/api/decisions/stream', () => {
  it('streams each logged event as it is logged, masked, dropped ones never', async () => {
    const ac = new AbortController();
    const res = await fetch(`${s.url}/ui/api/decisions/stream`, { signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    // the first comment arrives at once: the stream is not buffered
    const first = await readEvents(res, (ev) => ev.length >= 1);
    expect(first.events[0]!.comment).toBe('connected');
    first.reader.releaseLock();
    await decide('authz/allow', { user: 'noisy' });
    const id = await decide('authz/allow', { user: 'carol', password: 'p' });
    const { events } = await readEvents(res, (ev) => ev.some((e) => e.event === 'decision'));
    const decisions = events.filter((e) => e.event === 'decision').map((e) => JSON.parse(e.data!));
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ decision_id: id, input: { user: 'carol' }, erased: ['/input/password'] });
    ac.abort();
  });
});

/** A feed whose listeners are counted. */
function countingFeed() {
  const listeners = new Set<(e: string) => void>();
  const feed: NonNullable<ConsoleOptions['decisions']> & { listeners: Set<(e: string) => void>; emit(e: string): void } = {
    listeners,
    recent: () => [],
    subscribe(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    emit: (e) => listeners.forEach((fn) => fn(e)),
  };
  return feed;
}

async function until(what: string, fn: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('stream clients that go away', () => {
  let other: UiServer | undefined;
  afterEach(async () => {
    await other?.close();
    other = undefined;
  });

  it('unsubscribes when the client disconnects: no listener leaks', async () => {
    const feed = countingFeed();
    other = await startUi({ assetsDir: build.dir, decisions: feed });
    for (let round = 0; round < 3; round++) {
      const clients = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const ac = new AbortController();
          const res = await fetch(`${other!.url}/ui/api/decisions/stream`, { signal: ac.signal });
          await readEvents(res, (ev) => ev.length >= 1);
          return { ac, res };
        }),
      );
      expect(feed.listeners.size).toBe(5);
      feed.emit('{"decision_id":"x"}');
      for (const c of clients) c.ac.abort();
      await until('no listeners', () => feed.listeners.size === 0);
    }
  });

  it('sends a ping comment on the interval', async () => {
    const { registerUiDecisions } = await import('../../../src/console/routes/decisions.js');
    const { Hono } = await import('hono');
    const app = new Hono();
    const feed = countingFeed();
    registerUiDecisions(app as never, { assetsDir: build.dir, decisions: feed }, 30);
    const res = await app.request('/ui/api/decisions/stream');
    const { events, reader } = await readEvents(res, (ev) => ev.filter((e) => e.comment === 'ping').length >= 2);
    expect(events[0]!.comment).toBe('connected');
    await reader.cancel();
    expect(feed.listeners.size).toBe(0);
  });
});

describe('a client that does not read', () => {
  it('is dropped once its backlog passes the bound, and unsubscribed', async () => {
    const { registerUiDecisions, STREAM_BACKLOG_BYTES } = await import('../../../src/console/routes/decisions.js');
    const { Hono } = await import('hono');
    const app = new Hono();
    const feed = countingFeed();
    registerUiDecisions(app as never, { assetsDir: build.dir, decisions: feed });
    const res = await app.request('/ui/api/decisions/stream');
    expect(feed.listeners.size).toBe(1);
    const big = JSON.stringify({ decision_id: 'x', input: 'y'.repeat(1024 * 1024) });
    for (let i = 0; i * big.length <= STREAM_BACKLOG_BYTES + 2 * big.length && feed.listeners.size; i++) feed.emit(big);
    expect(feed.listeners.size).toBe(0);
    // what was queued is still delivered, then the stream ends (EventSource reconnects)
    const text = await res.text();
    expect(text.startsWith(': connected')).toBe(true);
    expect(text.length).toBeGreaterThan(STREAM_BACKLOG_BYTES);
  });
});

describe('decision logging off', () => {
  let off: UiServer;
  beforeAll(async () => {
    off = await startUi({ assetsDir: build.dir });
  });
  afterAll(() => off.close());

  it('answers enabled: false with a hint', async () => {
    const r = await get(off, '/ui/api/decisions');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ enabled: false, hint: DISABLED_HINT });
    expect(DISABLED_HINT).toContain('decision_logs: {console: true}');
  });

  it('streams one disabled event, then closes', async () => {
    const res = await fetch(`${off.url}/ui/api/decisions/stream`);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await res.text();
    expect(text).toBe(`event: disabled\ndata: ${JSON.stringify({ hint: DISABLED_HINT })}\n\n`);
  });
});
