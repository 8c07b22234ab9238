// Decision endpoints against real policies through the library API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { req } from './helpers.js';

let s: RunningServer;
let engine: RegolithEngine;

const AUTHZ = `package authz

default allow := false

allow if input.user == "admin"

allow if {
  some role in data.roles[input.user]
  role == "writer"
}

reasons contains "admin" if input.user == "admin"
`;

beforeAll(async () => {
  engine = new RegolithEngine();
  s = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false });
});
afterAll(() => s.close());

const putPolicy = (id: string, raw: string) => req(s, 'PUT', `/v1/policies/${id}`, raw, { 'content-type': 'text/plain' });

describe('policies with the real engine', () => {
  it('installs a module and serves its raw text and OPA-shaped AST', async () => {
    const r = await putPolicy('authz.rego', AUTHZ);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({});
    const g = await req(s, 'GET', '/v1/policies/authz.rego');
    const result = (g.json as { result: { id: string; raw: string; ast: { package: { path: unknown[] }; rules: unknown[] } } }).result;
    expect(result.id).toBe('authz.rego');
    expect(result.raw).toBe(AUTHZ);
    expect(result.ast.package.path).toEqual([
      { type: 'var', value: 'data' },
      { type: 'string', value: 'authz' },
    ]);
    expect(result.ast.rules.length).toBeGreaterThan(0);
  });
  it('parse errors are 400 with rego_parse_error and a location', async () => {
    const r = await putPolicy('broken.rego', 'package broken\n\nallow if {');
    expect(r.status).toBe(400);
    const body = r.json as { code: string; message: string; errors: { code: string; location: { file: string } }[] };
    expect(body.code).toBe('invalid_parameter');
    expect(body.message).toBe('error(s) occurred while compiling module(s)');
    expect(body.errors[0]!.code).toBe('rego_parse_error');
    expect(body.errors[0]!.location.file).toBe('broken.rego');
    expect((await req(s, 'GET', '/v1/policies/broken.rego')).status).toBe(404);
  });
  it('compile errors are 400 and install nothing', async () => {
    const r = await putPolicy('unsafe.rego', 'package unsafe\n\np if { x > 1 }\n');
    expect(r.status).toBe(400);
    expect((r.json as { errors: { code: string }[] }).errors[0]!.code).toBe('rego_unsafe_var_error');
    expect((await req(s, 'GET', '/v1/policies/unsafe.rego')).status).toBe(404);
  });
  it('DELETE is refused while another module depends on the module', async () => {
    expect((await putPolicy('lib.rego', 'package lib\n\ndouble(x) := x * 2\n')).status).toBe(200);
    expect((await putPolicy('app.rego', 'package app\n\nv := data.lib.double(21)\n')).status).toBe(200);
    expect((await req(s, 'GET', '/v1/data/app/v')).json).toEqual({ result: 42 });
    const r = await req(s, 'DELETE', '/v1/policies/lib.rego');
    expect(r.status).toBe(400);
    expect((r.json as { code: string }).code).toBe('invalid_operation');
    expect((await req(s, 'DELETE', '/v1/policies/app.rego')).status).toBe(200);
    expect((await req(s, 'DELETE', '/v1/policies/lib.rego')).status).toBe(200);
    expect((await req(s, 'GET', '/v1/data/app/v')).json).toEqual({});
  });
});

describe('decisions with the real engine', () => {
  it('evaluates rules with input and base data', async () => {
    expect((await req(s, 'PUT', '/v1/data/roles', JSON.stringify({ bob: ['writer'], eve: ['reader'] }))).status).toBe(204);
    const post = (input: unknown) => req(s, 'POST', '/v1/data/authz/allow', JSON.stringify({ input }));
    expect((await post({ user: 'admin' })).json).toEqual({ result: true });
    expect((await post({ user: 'bob' })).json).toEqual({ result: true });
    const g = await req(s, 'GET', '/v1/data/authz/allow?input=' + encodeURIComponent('{"user":"admin"}'));
    expect(g.json).toEqual({ result: true });
    const whole = await req(s, 'POST', '/v1/data/authz', JSON.stringify({ input: { user: 'admin' } }));
    expect(whole.json).toEqual({ result: { allow: true, reasons: ['admin'] } });
  });
  it('default rules give the value when no other rule applies', async () => {
    const r = await req(s, 'POST', '/v1/data/authz/allow', JSON.stringify({ input: { user: 'nobody' } }));
    expect(r.json).toEqual({ result: false });
  });
  it('data written later is seen by the next decision', async () => {
    await req(s, 'PATCH', '/v1/data/roles', JSON.stringify([{ op: 'add', path: '/eve/-', value: 'writer' }]));
    expect((await req(s, 'POST', '/v1/data/authz/allow', JSON.stringify({ input: { user: 'eve' } }))).json).toEqual({ result: true });
  });
  it('writing a virtual document is 404', async () => {
    const r = await req(s, 'PUT', '/v1/data/authz/allow', 'true');
    expect(r.status).toBe(404);
    expect((r.json as { code: string }).code).toBe('resource_conflict');
  });
  it('v0 distinguishes "document undefined" from "document missing"', async () => {
    await putPolicy('maybe.rego', 'package maybe\n\np if input.x == 1\n');
    const u = await req(s, 'POST', '/v0/data/maybe/p', '{"x":2}');
    expect(u.status).toBe(404);
    expect(u.json).toEqual({ code: 'undefined_document', message: 'document undefined: data.maybe.p' });
    const m = await req(s, 'POST', '/v0/data/maybe/q', '{}');
    expect(m.json).toEqual({ code: 'undefined_document', message: 'document missing: data.maybe.q' });
    expect((await req(s, 'POST', '/v0/data/maybe/p', '{"x":1}')).text).toBe('true\n');
  });
  it('POST / serves data.system.main', async () => {
    expect((await req(s, 'POST', '/', '{}')).status).toBe(404);
    await putPolicy('main.rego', 'package system\n\nmain := {"hello": input.name}\n');
    expect((await req(s, 'POST', '/', '{"name":"world"}')).json).toEqual({ hello: 'world' });
  });
  it('evaluation errors are 500 with the evaluator\'s error', async () => {
    await putPolicy('conflict.rego', 'package conflict\n\nv := 1 if input.a\nv := 2 if input.b\n');
    const r = await req(s, 'POST', '/v1/data/conflict/v', JSON.stringify({ input: { a: true, b: true } }));
    expect(r.status).toBe(500);
    const body = r.json as { code: string; message: string; errors: { code: string }[] };
    expect(body.code).toBe('internal_error');
    expect(body.message).toBe('error(s) occurred while evaluating query');
    expect(body.errors[0]!.code).toBe('eval_conflict_error');
  });
  it('metrics and explain come from the engine', async () => {
    const r = await req(s, 'POST', '/v1/data/authz/allow?metrics=true&explain=full&pretty=true', JSON.stringify({ input: { user: 'admin' } }));
    const body = r.json as { metrics: Record<string, number>; explanation: unknown };
    expect(body.metrics['timer_rego_query_eval_ns']).toBeTypeOf('number');
    expect(Array.isArray(body.explanation)).toBe(true);
  });
  it('keeps big numbers exact from input to result', async () => {
    await putPolicy('echo.rego', 'package echo\n\nv := input.n\n');
    const r = await req(s, 'POST', '/v1/data/echo/v', '{"input":{"n":123456789012345678901234567890}}');
    expect(r.text).toBe('{"result":123456789012345678901234567890}\n');
  });
});

describe('query, batch and health with the real engine', () => {
  it('ad-hoc queries return bindings per solution', async () => {
    const r = await req(s, 'GET', '/v1/query?q=' + encodeURIComponent('x := [1, 2][_]'));
    expect(r.json).toEqual({ result: [{ x: 1 }, { x: 2 }] });
    const p = await req(s, 'POST', '/v1/query', JSON.stringify({ query: 'data.authz.allow == true', input: { user: 'admin' } }));
    expect(p.json).toEqual({ result: [{}] });
    // a lone comparison answers with its value (false), so there is one solution, as in OPA
    const no = await req(s, 'POST', '/v1/query', JSON.stringify({ query: 'data.authz.allow == true', input: { user: 'x' } }));
    expect(no.json).toEqual({ result: [{}] });
    const none = await req(s, 'POST', '/v1/query', JSON.stringify({ query: 'data.authz.allow == true; true', input: { user: 'x' } }));
    expect(none.json).toEqual({});
    const bad = await req(s, 'GET', '/v1/query?q=' + encodeURIComponent('x := '));
    expect(bad.status).toBe(400);
    expect((bad.json as { errors: { code: string }[] }).errors[0]!.code).toBe('rego_parse_error');
  });
  it('batch evaluates every input', async () => {
    const r = await req(s, 'POST', '/v1/batch/data/authz/reasons', JSON.stringify({ inputs: { a: { user: 'admin' }, b: { user: 'nobody' } } }));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ responses: { a: { result: ['admin'] }, b: { result: [] } } });
    const mixed = await req(
      s,
      'POST',
      '/v1/batch/data/conflict/v',
      JSON.stringify({ inputs: { ok: { a: true }, bad: { a: true, b: true } } }),
    );
    expect(mixed.status).toBe(207);
    const body = mixed.json as { responses: Record<string, Record<string, unknown>> };
    expect(body.responses['ok']).toEqual({ http_status_code: '200', result: 1 });
    expect(body.responses['bad']!['http_status_code']).toBe('500');
  });
  it('health policies under system.health', async () => {
    expect((await req(s, 'GET', '/health')).status).toBe(200);
    await putPolicy('health.rego', 'package system.health\n\nlive := true\n\nready if input.plugins_ready\n');
    expect((await req(s, 'GET', '/health/live')).status).toBe(200);
    expect((await req(s, 'GET', '/health/ready')).status).toBe(200);
    expect((await req(s, 'GET', '/health/other')).json).toEqual({ error: 'health policy was undefined at data.system.health.other' });
  });
});
