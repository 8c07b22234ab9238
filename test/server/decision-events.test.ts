// Every decision endpoint hands one event per decision to the decision logger, with the
// response's decision_id and the client's "ip:port" in requested_by (as OPA does).

import * as http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type TestServer } from './helpers.js';
import type { DecisionEvent } from '../../src/server/index.js';

let s: TestServer;
const events: DecisionEvent[] = [];
beforeAll(async () => {
  s = await start({ decisionLogger: (e) => void events.push(e) });
  s.engine.virtual.set('rules/echo', (input) => input);
  s.engine.virtual.set('rules/boom', (input) => {
    if (input === 'boom') throw new Error('kaboom');
    return input;
  });
  s.engine.virtual.set('system/main', () => 'main');
});
afterAll(() => s.close());

/** One request on a fresh connection; resolves with the body and the client's own "ip:port". */
function call(method: string, path: string, body?: string): Promise<{ status: number; json: any; client: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request(s.url + path, { method, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined, client: `${r.socket!.localAddress}:${r.socket!.localPort}` });
      });
    });
    r.on('error', reject);
    r.end(body);
  });
}

const eventFor = (id: string) => events.filter((e) => e.decision_id === id);

describe('decision events', () => {
  it('POST and GET /v1/data log the decision with requested_by = client ip:port', async () => {
    const p = await call('POST', '/v1/data/rules/echo', '{"input":{"a":1}}');
    expect(p.client).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(eventFor(p.json.decision_id)).toEqual([
      expect.objectContaining({ decision_id: p.json.decision_id, path: expect.stringContaining('rules'), input: { a: 1 }, result: { a: 1 }, requested_by: p.client }),
    ]);
    const g = await call('GET', '/v1/data/rules/echo?input=2');
    expect(g.client).not.toBe(p.client);
    expect(eventFor(g.json.decision_id)).toEqual([expect.objectContaining({ result: 2, requested_by: g.client })]);
  });

  it('v0, the default decision and the query API log requested_by too', async () => {
    const before = events.length;
    const v0 = await call('POST', '/v0/data/rules/echo', '"x"');
    expect(v0.json).toBe('x');
    const main = await call('POST', '/', '{}');
    expect(main.json).toBe('main');
    const q = await call('POST', '/v1/query', '{"query":"x = 1"}');
    expect(q.status).toBe(200);
    const logged = events.slice(before);
    expect(logged.map((e) => e.requested_by)).toEqual([v0.client, main.client, q.client]);
    expect(logged[2]).toMatchObject({ query: 'x = 1' });
  });

  it('a failed decision is logged with its error and requested_by', async () => {
    const r = await call('POST', '/v1/data/rules/boom', '{"input":"boom"}');
    expect(r.status).toBe(500);
    const ev = events.at(-1)!;
    expect(ev.error?.code).toBe('internal_error');
    expect(ev.requested_by).toBe(r.client);
  });

  it('the batch API logs one event per input, with the ids of the batch response', async () => {
    const before = events.length;
    const r = await call('POST', '/v1/batch/data/rules/boom', JSON.stringify({ inputs: { a: 'one', b: 'two', c: 'boom' } }));
    expect(r.status).toBe(207);
    const responses = r.json.responses as Record<string, { decision_id: string; result?: unknown }>;
    const logged = events.slice(before);
    expect(logged).toHaveLength(3);
    const ids = Object.values(responses).map((x) => x.decision_id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain(r.json.batch_decision_id);
    for (const [key, resp] of Object.entries(responses)) {
      const [ev] = eventFor(resp.decision_id);
      expect(ev, key).toBeDefined();
      expect(ev!.requested_by).toBe(r.client);
      if (key === 'c') expect(ev!.error?.code).toBe('internal_error');
      else expect(ev).toMatchObject({ input: key === 'a' ? 'one' : 'two', result: key === 'a' ? 'one' : 'two' });
    }
  });
});
