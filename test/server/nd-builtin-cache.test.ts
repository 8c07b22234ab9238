// nd_builtin_cache in decision events: with OPA's top-level `nd_builtin_cache: true` and
// decision logging on, every decision route hands the logger the answers of the
// non-deterministic built-ins the decision used (time.now_ns, rand.intn, http.send to a
// loopback server), exactly the values in the response; without the option, no field.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type DecisionEvent, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { toJSONText } from '../../src/value/index.js';

const POLICY = `package nd

d := {"t": time.now_ns(), "r": rand.intn("x", 100), "h": http.send({"method": "get", "url": input.url}).body}

plain := input.n + 1

fails if {
  _ := time.now_ns()
  _ := 1 / input.zero
}
`;

let upstream: http.Server;
let upstreamURL = '';
let hits = 0;

async function serve(config: Record<string, unknown>): Promise<{ server: RunningServer; events: DecisionEvent[] }> {
  const engine = new RegolithEngine();
  await engine.putPolicy('nd.rego', POLICY);
  const events: DecisionEvent[] = [];
  const server = await startServer({
    addr: '127.0.0.1:0',
    engine,
    config,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    decisionLogger: (e) => void events.push(e),
  });
  return { server, events };
}

let on: { server: RunningServer; events: DecisionEvent[] };
let off: { server: RunningServer; events: DecisionEvent[] };

beforeAll(async () => {
  // Answers a different body each time, so a logged value can only match the one used.
  upstream = http.createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ hit: hits }));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamURL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v`;
  on = await serve({ nd_builtin_cache: true, default_decision: '/nd/d' });
  off = await serve({ default_decision: '/nd/d' });
});
afterAll(async () => {
  await on.server.close();
  await off.server.close();
  upstream.closeAllConnections();
  await new Promise<void>((r) => upstream.close(() => r()));
});

/** The decision's own values, read from the response text (time.now_ns exceeds 2^53). */
interface Used {
  t: string;
  r: number;
  h: unknown;
}

function usedFrom(text: string): Used {
  const t = /"t":\s*(\d+)/.exec(text)?.[1];
  expect(t, text).toBeDefined();
  const doc = JSON.parse(text) as Record<string, any>;
  const d = (doc['result']?.['d'] ?? doc['result']?.[0]?.['x'] ?? doc['result'] ?? doc) as { r: number; h: unknown };
  return { t: t!, r: d.r, h: d.h };
}

/** Asserts that the event's cache holds exactly the answers the decision used. */
function expectCache(ev: DecisionEvent | undefined, used: Used): void {
  expect(ev?.nd_builtin_cache).toBeDefined();
  const text = toJSONText(ev!.nd_builtin_cache!);
  const nd = JSON.parse(text) as Record<string, Record<string, any>>;
  expect(Object.keys(nd)).toEqual(['http.send', 'rand.intn', 'time.now_ns']);
  expect(nd['rand.intn']).toEqual({ '["x",100]': used.r });
  expect(Object.keys(nd['time.now_ns']!)).toEqual(['[]']);
  expect(text).toContain(`"time.now_ns":{"[]":${used.t}}`);
  const sends = Object.entries(nd['http.send']!);
  expect(sends).toHaveLength(1);
  const [key, response] = sends[0]!;
  expect(JSON.parse(key)).toEqual([{ method: 'get', url: upstreamURL }]);
  expect(response).toMatchObject({ status_code: 200, body: used.h });
}

async function call(s: RunningServer, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(s.url + path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

const last = (events: DecisionEvent[]) => events.at(-1);

describe('nd_builtin_cache in decision events', () => {
  it('POST /v1/data (the fast path and the Hono route) and GET /v1/data', async () => {
    for (const path of ['/v1/data/nd/d', '/v1/data/nd/d?pretty=true', `/v1/data/nd/d?input=${encodeURIComponent(JSON.stringify({ url: upstreamURL }))}`]) {
      const method = path.includes('input=') ? 'GET' : 'POST';
      const r = await call(on.server, method, path, method === 'POST' ? { input: { url: upstreamURL } } : undefined);
      expect(r.status, r.text).toBe(200);
      const id = (JSON.parse(r.text) as { decision_id: string }).decision_id;
      const ev = last(on.events);
      expect(ev?.decision_id).toBe(id);
      expectCache(ev, usedFrom(r.text));
    }
  });

  it('POST /v0/data and POST / (the default decision)', async () => {
    for (const path of ['/v0/data/nd/d', '/']) {
      const r = await call(on.server, 'POST', path, { url: upstreamURL });
      expect(r.status, r.text).toBe(200);
      expectCache(last(on.events), usedFrom(r.text));
    }
  });

  it('the batch API: one cache per input', async () => {
    const before = on.events.length;
    const r = await call(on.server, 'POST', '/v1/batch/data/nd/d', { inputs: { a: { url: upstreamURL }, b: { url: upstreamURL } } });
    expect(r.status, r.text).toBe(200);
    const responses = (JSON.parse(r.text) as { responses: Record<string, { decision_id: string }> }).responses;
    const logged = on.events.slice(before);
    expect(logged).toHaveLength(2);
    for (const id of ['a', 'b']) {
      const ev = logged.find((e) => e.decision_id === responses[id]!.decision_id);
      // The response text of one entry: its own "t" digits and values.
      const entry = new RegExp(`"${id}":\\{[^]*?"t":(\\d+)[^}]*\\}\\}`).exec(r.text)![0];
      const own = JSON.parse(`{${entry}}`)[id] as { result: { r: number; h: unknown } };
      expectCache(ev, { t: /"t":(\d+)/.exec(entry)![1]!, r: own.result.r, h: own.result.h });
    }
  });

  it('the query API', async () => {
    const r = await call(on.server, 'POST', '/v1/query', { query: 'x := data.nd.d', input: { url: upstreamURL } });
    expect(r.status, r.text).toBe(200);
    expectCache(last(on.events), usedFrom(r.text));
  });

  it('a failed decision carries the answers used before the error', async () => {
    const r = await call(on.server, 'POST', '/v1/data/nd/fails?strict-builtin-errors=true', { input: { zero: 0 } });
    expect(r.status, r.text).toBe(500);
    const ev = last(on.events)!;
    expect(ev.error).toBeDefined();
    const nd = JSON.parse(toJSONText(ev.nd_builtin_cache!)) as Record<string, unknown>;
    expect(Object.keys(nd)).toEqual(['time.now_ns']);
  });

  it('is {} when no non-deterministic built-in ran (as OPA), absent when the option is off', async () => {
    const r = await call(on.server, 'POST', '/v1/data/nd/plain', { input: { n: 1 } });
    expect(r.text).toContain('"result":2');
    expect(last(on.events)?.nd_builtin_cache).toEqual({});

    for (const [method, path, body] of [
      ['POST', '/v1/data/nd/d', { input: { url: upstreamURL } }],
      ['POST', '/v0/data/nd/d', { url: upstreamURL }],
      ['POST', '/', { url: upstreamURL }],
      ['POST', '/v1/query', { query: 'x := data.nd.d', input: { url: upstreamURL } }],
      ['POST', '/v1/batch/data/nd/d', { inputs: { a: { url: upstreamURL } } }],
    ] as const) {
      const before = off.events.length;
      const res = await call(off.server, method, path, body);
      expect(res.status, res.text).toBe(200);
      const ev = off.events.at(-1)!;
      expect(off.events.length).toBe(before + 1);
      expect(ev).not.toHaveProperty('nd_builtin_cache');
    }
  });
});
