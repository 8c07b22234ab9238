// Non-deterministic built-ins: one answer per query for equal arguments, and the answers
// recorded in OPA's nd_builtin_cache shape ({"<name>": {"<args as JSON array>": result}}).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Regolith, ndBuiltinCacheValue, toJSONText, type Value } from '../../../src/index.js';

let server: http.Server;
let base = '';
let hits = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ hit: hits }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => void server.close());

const policy = `package p
a := rand.intn("seed", 1000)
b := rand.intn("seed", 1000)
u1 := uuid.rfc4122("k")
u2 := uuid.rfc4122("k")
t1 := time.now_ns()
t2 := time.now_ns()
same if { a == b; u1 == u2; t1 == t2 }
`;

describe('nd_builtin_cache', () => {
  it('gives one answer per query and records it keyed by the arguments as a JSON array', async () => {
    const r = new Regolith().addModule('p.rego', policy);
    const cache = new Map<string, Map<string, Value>>();
    const [res] = await r.prepare('data.p').evaluateAsync({ ndBuiltinCache: cache, now: 1700000000000000000n });
    const doc = res!.expressions[0]!.value as Record<string, unknown>;
    expect(doc.same).toBe(true);
    const nd = ndBuiltinCacheValue(cache)!;
    expect(Object.keys(nd)).toEqual(['rand.intn', 'time.now_ns', 'uuid.rfc4122']);
    expect(toJSONText(nd['time.now_ns']!)).toBe('{"[]":1700000000000000000}');
    expect(toJSONText(nd['rand.intn']!)).toBe(`{"[\\"seed\\",1000]":${doc.a}}`);
    expect(toJSONText(nd['uuid.rfc4122']!)).toBe(`{"[\\"k\\"]":"${doc.u1}"}`);
  });

  it('leaves the field out when no non-deterministic built-in ran', () => {
    const cache = new Map<string, Map<string, Value>>();
    new Regolith().addModule('p.rego', 'package p\nx := 1').prepare('data.p.x').evaluate({ ndBuiltinCache: cache });
    expect(ndBuiltinCacheValue(cache)).toBeUndefined();
  });

  it('records http.send responses under the request object, one request per query', async () => {
    hits = 0;
    const r = new Regolith().addModule('p.rego', `package p
x := http.send({"method": "get", "url": input.url}).body.hit
y := http.send({"url": input.url, "method": "get"}).body.hit
`);
    const cache = new Map<string, Map<string, Value>>();
    const [res] = await r.prepare('data.p').evaluateAsync({ input: { url: base }, ndBuiltinCache: cache });
    expect(res!.expressions[0]!.value).toEqual({ x: 1, y: 1 });
    expect(hits).toBe(1);
    const entries = ndBuiltinCacheValue(cache)!['http.send'] as Record<string, Record<string, unknown>>;
    const key = `[{"method":"get","url":"${base}"}]`;
    expect(Object.keys(entries)).toEqual([key]);
    expect(entries[key]!.status_code).toBe(200);
    expect(toJS(entries[key]!.body)).toEqual({ hit: 1 });
    // A new query asks again.
    await r.prepare('data.p.x').evaluateAsync({ input: { url: base } });
    expect(hits).toBe(2);
  });

  it('does not record a call that failed', () => {
    const cache = new Map<string, Map<string, Value>>();
    const r = new Regolith().addModule('p.rego', 'package p\nx := rand.intn("s", input.n)');
    expect(r.prepare('data.p.x').evaluate({ input: { n: 1.5 }, ndBuiltinCache: cache })).toEqual([]);
    expect(ndBuiltinCacheValue(cache)).toBeUndefined();
  });

  it('marks the same built-ins non-deterministic as OPA, so all are recorded', async () => {
    const r = new Regolith().addModule('p.rego', `package p
t := io.jwt.encode_sign({"alg": "HS256"}, {"sub": "me"}, {"kty": "oct", "k": "c2VjcmV0"})
`);
    const cache = new Map<string, Map<string, Value>>();
    const [res] = await r.prepare('data.p.t').evaluateAsync({ ndBuiltinCache: cache });
    const rec = ndBuiltinCacheValue(cache)!['io.jwt.encode_sign'] as Record<string, unknown>;
    expect(Object.values(rec)).toEqual([res!.expressions[0]!.value]);
    expect(Object.keys(rec)).toEqual(['[{"alg":"HS256"},{"sub":"me"},{"k":"c2VjcmV0","kty":"oct"}]']);
  });
});

function toJS(v: unknown): unknown {
  return JSON.parse(toJSONText(v as Value));
}
