// Rows of the HTTP API seed that the per-family contract tests leave out, exercised over a
// real listening server with the real engine: query parameters on every endpoint that
// lists them, the 500s of evaluation errors, strict-builtin-errors, the dependency rule of
// policy DELETE with real modules, array-index conversion on writes, and the compile API's
// gzip headers and parameters.

import pino from 'pino';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { req } from './helpers.js';

let s: RunningServer;
const logged: string[] = [];

const POLICY = `package app

conflict := 1 if input.x
conflict := 2 if input.x

num := to_number(input.s)

echo := input

main := {"who": input.user}
`;

beforeAll(async () => {
  const engine = new RegolithEngine();
  s = await startServer({
    addr: '127.0.0.1:0',
    engine,
    config: { default_decision: '/app/main' },
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    status: () => ({ labels: { id: 'x', version: 'v' } }),
    decisionLogger: (e) => void logged.push(e.decision_id),
  });
  const r = await req(s, 'PUT', '/v1/policies/app.rego', POLICY, { 'content-type': 'text/plain' });
  expect(r.status, r.text).toBe(200);
});
afterAll(() => s.close());

const json = (r: { json: unknown }) => r.json as Record<string, any>;
const PRETTY = /^\{\n {2}"/;

describe('policy API rows', () => {
  it('PUT with pretty and metrics; replacing an existing module is 200 {}', async () => {
    const r = await req(s, 'PUT', '/v1/policies/p.rego?pretty=true&metrics=true', 'package p\n\nx := 1\n', { 'content-type': 'text/plain' });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^\{\n {2}"metrics": \{\n/);
    const again = await req(s, 'PUT', '/v1/policies/p.rego', 'package p\n\nx := 2\n', { 'content-type': 'text/plain' });
    expect([again.status, again.text]).toEqual([200, '{}\n']);
    expect(json(await req(s, 'GET', '/v1/data/p/x')).result).toBe(2);
  });

  it('DELETE is refused (400) while another module in the package uses its rules; metrics and pretty once allowed', async () => {
    await req(s, 'PUT', '/v1/policies/lib.rego', 'package shared\n\nbase := 10\n', { 'content-type': 'text/plain' });
    await req(s, 'PUT', '/v1/policies/use.rego', 'package shared\n\ntwice := base * 2\n', { 'content-type': 'text/plain' });
    const refused = await req(s, 'DELETE', '/v1/policies/lib.rego');
    expect(refused.status).toBe(400);
    expect(json(refused).errors[0].code).toBe('rego_unsafe_var_error');
    expect(json(await req(s, 'GET', '/v1/data/shared/twice')).result).toBe(20);
    expect((await req(s, 'DELETE', '/v1/policies/use.rego?pretty=true')).text).toBe('{}\n');
    const ok = await req(s, 'DELETE', '/v1/policies/lib.rego?metrics=true&pretty=true');
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/^\{\n {2}"metrics": \{\n {4}"timer_rego_module_compile_ns"/);
    expect((await req(s, 'DELETE', '/v1/policies/lib.rego')).status).toBe(404);
  });
});

describe('data API rows', () => {
  it('an evaluation error is 500 on GET, POST, v0 and POST /', async () => {
    for (const [method, path, body] of [
      ['GET', `/v1/data/app/conflict?input=${encodeURIComponent('{"x":true}')}`, undefined],
      ['POST', '/v1/data/app/conflict', '{"input":{"x":true}}'],
      ['POST', '/v0/data/app/conflict', '{"x":true}'],
    ] as const) {
      const r = await req(s, method, path, body);
      expect(r.status, path).toBe(500);
      expect(json(r).code).toBe('internal_error');
      expect(json(r).errors[0].code).toBe('eval_conflict_error');
    }
  });

  it('strict-builtin-errors makes a built-in error fatal (500); without it the document is undefined', async () => {
    const lax = await req(s, 'POST', '/v1/data/app/num', '{"input":{"s":"abc"}}');
    expect(lax.status).toBe(200);
    expect(json(lax)).not.toHaveProperty('result');
    for (const [method, path, body] of [
      ['POST', '/v1/data/app/num?strict-builtin-errors=true', '{"input":{"s":"abc"}}'],
      ['GET', `/v1/data/app/num?strict-builtin-errors=true&input=${encodeURIComponent('{"s":"abc"}')}`, undefined],
    ] as const) {
      const r = await req(s, method, path, body);
      expect(r.status, r.text).toBe(500);
      expect(json(r).errors[0].code).toBe('eval_builtin_error');
      expect(json(r).errors[0].message).toContain('to_number');
    }
  });

  it('PUT stores any JSON value; metrics on DELETE answer 200 with metrics', async () => {
    for (const v of ['"text"', '42', '[1,2]', 'true', '{}']) {
      expect((await req(s, 'PUT', '/v1/data/vals/v', v, { 'content-type': 'application/json' })).status).toBe(204);
      expect(json(await req(s, 'GET', '/v1/data/vals/v')).result).toEqual(JSON.parse(v));
    }
    const d = await req(s, 'DELETE', '/v1/data/vals/v?metrics=true');
    expect(d.status).toBe(200);
    expect(Object.keys(json(d).metrics)).toContain('timer_server_handler_ns');
  });

  it('a stored null reads back as null', async () => {
    expect((await req(s, 'PUT', '/v1/data/vals/n', 'null', { 'content-type': 'application/json' })).status).toBe(204);
    expect(JSON.parse((await req(s, 'GET', '/v1/data/vals/n')).text)).toMatchObject({ result: null });
  });

  it('a path element that indexes an array and is not an integer is 404 on PUT, PATCH and DELETE', async () => {
    await req(s, 'PUT', '/v1/data/arr', '{"list":[{"a":1}]}', { 'content-type': 'application/json' });
    expect((await req(s, 'PUT', '/v1/data/arr/list/x/a', '2', { 'content-type': 'application/json' })).status).toBe(404);
    expect((await req(s, 'DELETE', '/v1/data/arr/list/x')).status).toBe(404);
    expect((await req(s, 'DELETE', '/v1/data/arr/list/5')).status).toBe(404);
    const patch = await req(s, 'PATCH', '/v1/data/arr/list', '[{"op":"replace","path":"/first/a","value":3}]', {
      'content-type': 'application/json-patch+json',
    });
    expect(patch.status).toBe(404);
    // Integer segments are converted.
    expect((await req(s, 'PUT', '/v1/data/arr/list/0/a', '5', { 'content-type': 'application/json' })).status).toBe(204);
    expect(json(await req(s, 'GET', '/v1/data/arr/list/0')).result).toEqual({ a: 5 });
  });

  it('PUT on a virtual document is 404', async () => {
    const r = await req(s, 'PUT', '/v1/data/app/echo', '1', { 'content-type': 'application/json' });
    expect(r.status).toBe(404);
  });
});

describe('v0 and default decision rows', () => {
  it('pretty on POST /v0/data and POST /', async () => {
    const v0 = await req(s, 'POST', '/v0/data/app/echo?pretty=true', '{"a":1}');
    expect(v0.text).toBe('{\n  "a": 1\n}\n');
    const main = await req(s, 'POST', '/?pretty=true', '{"user":"ann"}');
    expect(main.text).toBe('{\n  "who": "ann"\n}\n');
  });

  it('POST / with malformed JSON or YAML is 400; YAML bodies are read', async () => {
    expect((await req(s, 'POST', '/', '{"user":')).status).toBe(400);
    expect((await req(s, 'POST', '/', 'user: [', { 'content-type': 'application/x-yaml' })).status).toBe(400);
    const y = await req(s, 'POST', '/', 'user: bo', { 'content-type': 'application/x-yaml' });
    expect(json(y)).toEqual({ who: 'bo' });
  });

  it('POST / gives 404 with an error object when the default decision is undefined', async () => {
    const r = await req(s, 'POST', '/', '{}');
    expect(r.status).toBe(404);
    expect(json(r).code).toBe('undefined_document');
  });
});

describe('query API rows', () => {
  it('GET /v1/query with pretty, metrics and explain', async () => {
    const r = await req(s, 'GET', `/v1/query?q=${encodeURIComponent('x := 1')}&pretty=true&metrics=true&explain=notes`);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(PRETTY);
    expect(json(r).result).toEqual([{ x: 1 }]);
    expect(Object.keys(json(r).metrics)).toContain('timer_rego_query_eval_ns');
    expect(json(r)).toHaveProperty('explanation');
  });

  it('POST /v1/query takes {query, input} and ignores q', async () => {
    const r = await req(s, 'POST', `/v1/query?q=${encodeURIComponent('y := 2')}`, '{"query":"x := input.v","input":{"v":7}}');
    expect(json(r).result).toEqual([{ x: 7 }]);
  });

  it('an evaluation error is 500; a query that does not compile is 400', async () => {
    const r = await req(s, 'POST', '/v1/query', '{"query":"x := data.app.conflict","input":{"x":true}}');
    expect(r.status).toBe(500);
    expect(json(r).errors[0].code).toBe('eval_conflict_error');
    const bad = await req(s, 'GET', `/v1/query?q=${encodeURIComponent('x := y')}`);
    expect(bad.status).toBe(400);
    expect(json(bad).errors[0].code).toBe('rego_unsafe_var_error');
  });
});

describe('compile API rows', () => {
  it('reads gzip bodies (Content-Encoding: gzip); broken gzip is 400', async () => {
    const gz = gzipSync(Buffer.from('{"unknowns":["input"]}'));
    const r = await req(s, 'POST', '/v1/compile', gz, { 'content-encoding': 'gzip' });
    // The decoded body reached validation: it has no query.
    expect(r.status).toBe(400);
    expect(json(r).message).toBe("missing required 'query' value");
    const broken = await req(s, 'POST', '/v1/compile', Buffer.from('not gzip'), { 'content-encoding': 'gzip' });
    expect(broken.status).toBe(400);
  });

  it('accepts pretty, explain, metrics, instrument, options and unknowns with a gzip body', async () => {
    const body = gzipSync(Buffer.from(JSON.stringify({ query: 'data.app.echo.x == 1', input: {}, options: { disableInlining: [] }, unknowns: ['input'] })));
    const r = await req(s, 'POST', '/v1/compile?pretty=true&explain=notes&metrics=true&instrument=true', body, {
      'content-encoding': 'gzip',
      'accept-encoding': 'gzip',
    });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(PRETTY);
    expect(json(r).result).toEqual({ queries: [[expect.objectContaining({ terms: expect.any(Array) })]] });
    expect(json(r).metrics.timer_rego_partial_eval_ns).toBeGreaterThan(0);
  });
});

describe('status and config rows', () => {
  it('GET /v1/status and /v1/config with pretty', async () => {
    const st = await req(s, 'GET', '/v1/status?pretty=true');
    expect(st.status).toBe(200);
    expect(st.text).toMatch(PRETTY);
    expect(json(st).result).toEqual({ labels: { id: 'x', version: 'v' } });
    const cf = await req(s, 'GET', '/v1/config?pretty=true');
    expect(cf.text).toMatch(PRETTY);
    expect(json(cf).result).toMatchObject({ default_decision: '/app/main' });
  });
});

describe('decision ids', () => {
  it('every decision response carries the decision_id handed to the decision log', async () => {
    const r = await req(s, 'POST', '/v1/data/app/echo', '{"input":1}');
    expect(logged).toContain(json(r).decision_id);
    const g = await req(s, 'GET', '/v1/data/app/echo');
    expect(logged).toContain(json(g).decision_id);
  });
});
