// /v1/query captures expression values as OPA's rego package does (see
// test/engine/query-capture.test.ts); the Data API reads a document and is unaffected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { req } from './helpers.js';

let s: RunningServer;

beforeAll(async () => {
  s = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false });
  await req(s, 'PUT', '/v1/policies/p.rego', 'package p\n\nflag := false\nxs := [true, false, true]\n', { 'content-type': 'text/plain' });
});
afterAll(() => s.close());

const get = (q: string) => req(s, 'GET', '/v1/query?q=' + encodeURIComponent(q));
const post = (query: string, input?: unknown) => req(s, 'POST', '/v1/query', JSON.stringify({ query, input }));

describe('/v1/query value capture', () => {
  it('drops solutions where a captured value is false, in GET and POST', async () => {
    expect((await post('input.enabled; true', { enabled: false })).json).toEqual({});
    expect((await post('input.enabled; true', { enabled: true })).json).toEqual({ result: [{}] });
    expect((await get('false; true')).json).toEqual({});
    expect((await get('x := false; x')).json).toEqual({});
    expect((await get('x := [true, false, true][_]; x')).json).toEqual({ result: [{ x: true }, { x: true }] });
    expect((await get('x := data.p.xs[i]; x')).json).toEqual({ result: [{ i: 0, x: true }, { i: 2, x: true }] });
  });

  it('a lone false expression is still one solution', async () => {
    expect((await get('false')).json).toEqual({ result: [{}] });
    expect((await get('1 == 2')).json).toEqual({ result: [{}] });
    expect((await get('data.p.flag')).json).toEqual({ result: [{}] });
  });

  it('the Data API is unaffected', async () => {
    expect((await req(s, 'GET', '/v1/data/p/flag')).json).toEqual({ result: false });
    expect((await req(s, 'GET', '/v1/data/p/xs')).json).toEqual({ result: [true, false, true] });
  });
});
