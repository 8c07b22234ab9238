// GET /ui/api/status (bundles, plugins, decisions per path, latency, memory, uptime) and
// POST /ui/api/impact (the given function's answer, or 501 without one).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { DurationHistogram } from '../../../src/server/duration-histogram.js';
import { DEFAULT_BUCKETS } from '../../../src/server/metrics.js';
import { latency, PathCounter } from '../../../src/console/routes/status.js';
import { NO_IMPACT } from '../../../src/console/routes/api.js';
import { HttpError } from '../../../src/server/errors.js';
import type { ConsoleOptions } from '../../../src/console/index.js';
import { fakeBuild, get, post, startUi, type UiServer } from './helpers.js';

let build: ReturnType<typeof fakeBuild>;
beforeAll(() => {
  build = fakeBuild();
});
afterAll(() => build.remove());

function feed(initial: string[] = []) {
  const events = [...initial];
  const listeners = new Set<(e: string) => void>();
  const f: NonNullable<ConsoleOptions['decisions']> & { emit(e: string): void; listeners: Set<(e: string) => void> } = {
    listeners,
    recent: (n) => events.slice(-n),
    subscribe(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    emit(e) {
      events.push(e);
      listeners.forEach((fn) => fn(e));
    },
  };
  return f;
}

describe('GET /ui/api/status', () => {
  let s: UiServer;
  const f = feed([
    JSON.stringify({ decision_id: 'old', path: 'a/b', timestamp: new Date(Date.now() - 120_000).toISOString() }),
    JSON.stringify({ decision_id: 'recent', path: 'a/b', timestamp: new Date(Date.now() - 5_000).toISOString() }),
    JSON.stringify({ decision_id: 'q', query: 'x = 1', timestamp: new Date().toISOString() }),
  ]);
  beforeAll(async () => {
    s = await startUi(
      { assetsDir: build.dir, decisions: f },
      {
        pluginStatus: () => ({ bundle: { state: 'OK' }, decision_logs: { state: 'OK' }, status: { state: 'NOT_READY', message: 'waiting' } }),
        status: () => ({ labels: { id: 'x' }, bundles: { main: { name: 'main', active_revision: 'r1' } } }),
      },
    );
  });
  afterAll(() => s.close());

  it('reports bundles, plugins, decisions per path, latency, memory and uptime', async () => {
    for (let i = 0; i < 5; i++) await fetch(`${s.url}/health`);
    const r = await get(s, '/ui/api/status');
    expect(r.status).toBe(200);
    expect(r.json.bundles).toEqual({ main: { name: 'main', active_revision: 'r1' } });
    expect(r.json.plugins).toEqual({ bundle: { state: 'OK' }, decision_logs: { state: 'OK' }, status: { state: 'NOT_READY', message: 'waiting' } });
    // seeded from the feed: the event of 2 minutes ago is outside the window, the query has no path
    expect(r.json.decisions).toEqual({ per_path: { 'a/b': 1 } });
    for (const k of ['p50', 'p90', 'p99']) expect(r.json.latency[k]).toBeGreaterThan(0);
    expect(r.json.latency.p50).toBeLessThanOrEqual(r.json.latency.p99);
    expect(r.json.memory.heapUsed).toBeGreaterThan(0);
    expect(r.json.memory.rss).toBeGreaterThan(0);
    expect(r.json.uptime_s).toBeGreaterThan(0);
  });

  it('counts decisions as they are logged, subscribed once', async () => {
    await get(s, '/ui/api/status');
    f.emit(JSON.stringify({ decision_id: 'n1', path: 'c/d', timestamp: new Date().toISOString() }));
    f.emit(JSON.stringify({ decision_id: 'n2', path: 'c/d', timestamp: new Date().toISOString() }));
    f.emit(JSON.stringify({ decision_id: 'n3', path: 'a/b', timestamp: new Date().toISOString() }));
    const r = await get(s, '/ui/api/status');
    expect(r.json.decisions.per_path).toEqual({ 'a/b': 2, 'c/d': 2 });
    expect(f.listeners.size).toBe(1);
  });

  it('shows every bundle, adapter and discovery bundle without the status plugin (no status document)', async () => {
    const main = { name: 'main', active_revision: 'r9', last_successful_activation: '2026-01-02T03:04:05Z', message: 'last attempt failed', errors: ['boom'] };
    const t = await startUi(
      { assetsDir: build.dir },
      {
        pluginStatus: () => ({ bundle: { state: 'OK' }, decision_logs: { state: 'OK' } }),
        status: () => undefined,
        bundleStatus: () => ({ bundles: { main }, adapters: { users: { name: 'users', active_revision: 'a1' } }, discovery: { name: 'disco', active_revision: 'd1' } }),
      },
    );
    try {
      const r = await get(t, '/ui/api/status');
      expect(r.json.bundles).toEqual({ main });
      expect(r.json.adapters).toEqual({ users: { name: 'users', active_revision: 'a1' } });
      expect(r.json.discovery).toEqual({ name: 'disco', active_revision: 'd1' });
    } finally {
      await t.close();
    }
  });

  it('falls back to bundle plugin states without a status document', async () => {
    const t = await startUi({ assetsDir: build.dir }, { pluginStatus: () => ({ bundle: { state: 'NOT_READY' }, 'adapter/x': { state: 'OK' }, decision_logs: { state: 'OK' } }) });
    try {
      const r = await get(t, '/ui/api/status');
      expect(r.json.bundles).toEqual({ bundle: { state: 'NOT_READY' }, 'adapter/x': { state: 'OK' } });
      expect(r.json.decisions).toEqual({ per_path: {} });
      // no request other than the console's own yet
      expect(r.json.latency).toEqual({ p50: null, p90: null, p99: null });
    } finally {
      await t.close();
    }
  });
});

describe('PathCounter', () => {
  it('counts the last 60 seconds only', () => {
    const c = new PathCounter();
    const t = 1_700_000_000_000;
    c.add('a', t);
    c.add('a', t + 30_000);
    c.add('b', t + 59_000);
    expect(c.counts(t + 59_500)).toEqual({ a: 2, b: 1 });
    expect(c.counts(t + 61_000)).toEqual({ a: 1, b: 1 });
    // a slot reused 60 s later starts afresh
    c.add('a', t + 60_000);
    expect(c.counts(t + 60_500)).toEqual({ a: 2, b: 1 });
  });
});

describe('latency', () => {
  it('interpolates percentiles within buckets, leaving the console out', () => {
    const h = DurationHistogram.in(new Registry(), DEFAULT_BUCKETS);
    for (let i = 0; i < 100; i++) h.observe(200, 'v1/data', 'POST', 0.0002);
    for (let i = 0; i < 1000; i++) h.observe(200, 'ui/api/status', 'GET', 0.5);
    const l = latency(h);
    // all in (1e-4, 5e-4]: the median is half way through the bucket
    expect(l.p50).toBeCloseTo(1e-4 + 0.5 * 4e-4, 10);
    expect(l.p99).toBeCloseTo(1e-4 + 0.99 * 4e-4, 10);
    h.observe(500, 'v1/data', 'POST', 5);
    expect(latency(h).p99).toBeLessThanOrEqual(1);
  });
});

describe('POST /ui/api/impact', () => {
  it('answers 501 when impact analysis is not configured', async () => {
    const s = await startUi({ assetsDir: build.dir });
    try {
      const r = await post(s, '/ui/api/impact', { modules: {} });
      expect(r.status).toBe(501);
      expect(r.json).toEqual({ code: 'invalid_operation', message: NO_IMPACT });
    } finally {
      await s.close();
    }
  });

  it('passes the request body to the function and answers as it says', async () => {
    const seen: unknown[] = [];
    const s = await startUi({
      assetsDir: build.dir,
      impact: async (req) => {
        seen.push(req);
        if ((req as { fail?: boolean }).fail) throw new HttpError(400, 'invalid_parameter', 'no such thing');
        return { status: 202, body: { changed: 3, big: 1 } };
      },
    });
    try {
      const r = await post(s, '/ui/api/impact', { modules: { 'a.rego': 'package a' }, limit: 10 });
      expect(r.status).toBe(202);
      expect(r.json).toEqual({ changed: 3, big: 1 });
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(seen[0]).toEqual({ modules: { 'a.rego': 'package a' }, limit: 10 });
      const e = await post(s, '/ui/api/impact', { fail: true });
      expect(e.status).toBe(400);
      expect(e.json).toEqual({ code: 'invalid_parameter', message: 'no such thing' });
      const bad = await post(s, '/ui/api/impact', '{');
      expect(bad.status).toBe(400);
      const empty = await post(s, '/ui/api/impact', '');
      expect(empty.status).toBe(400);
      expect(seen).toHaveLength(2);
    } finally {
      await s.close();
    }
  });
});
