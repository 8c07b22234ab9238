import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { req, start, type TestServer } from '../helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await start();
});
afterAll(() => s.close());

const putPolicy = (id: string, raw: string, q = '') => req(s, 'PUT', `/v1/policies/${id}${q}`, raw, { 'content-type': 'text/plain' });

describe('policy API (HTTP layer)', () => {
  it('PUT creates (200, {}), then replaces; GET and list return id, raw and ast', async () => {
    const r = await putPolicy('a/b.rego', 'package a\nx := 1\n');
    expect(r.status).toBe(200);
    expect(r.text).toBe('{}\n');
    expect((await putPolicy('a/b.rego', 'package a\nx := 2\n')).status).toBe(200);
    const g = await req(s, 'GET', '/v1/policies/a/b.rego');
    expect(g.status).toBe(200);
    expect(g.json).toEqual({ result: { id: 'a/b.rego', raw: 'package a\nx := 2\n', ast: { fake: 'a/b.rego' } } });
    const l = await req(s, 'GET', '/v1/policies');
    expect((l.json as { result: { id: string }[] }).result.map((p) => p.id)).toEqual(['a/b.rego']);
  });
  it('PUT with ?metrics returns metrics', async () => {
    const r = await putPolicy('m.rego', 'package m', '?metrics=true');
    expect(Object.keys((r.json as { metrics: object }).metrics)).toContain('timer_rego_module_compile_ns');
  });
  it('parse and compile failures are 400 with OPA errors and change nothing', async () => {
    const p = await putPolicy('bad.rego', 'PARSE_ERROR');
    expect(p.status).toBe(400);
    expect(p.json).toEqual({
      code: 'invalid_parameter',
      message: 'error(s) occurred while compiling module(s)',
      errors: [{ code: 'rego_parse_error', message: 'unexpected eof token', location: { file: 'bad.rego', row: 1, col: 1 } }],
    });
    const c = await putPolicy('bad.rego', 'COMPILE_ERROR');
    expect(c.status).toBe(400);
    expect((c.json as { errors: { code: string }[] }).errors[0]!.code).toBe('rego_unsafe_var_error');
    expect((await putPolicy('bad.rego', '')).json).toEqual({ code: 'invalid_parameter', message: 'empty module' });
    expect((await req(s, 'GET', '/v1/policies/bad.rego')).status).toBe(404);
  });
  it('GET and DELETE of a missing module are 404', async () => {
    const g = await req(s, 'GET', '/v1/policies/nope');
    expect(g.status).toBe(404);
    expect(g.json).toEqual({ code: 'resource_not_found', message: 'storage_not_found_error: policy id "nope"' });
    expect((await req(s, 'DELETE', '/v1/policies/nope')).status).toBe(404);
  });
  it('DELETE refuses (400) while other modules depend on the module, then succeeds', async () => {
    await putPolicy('lib.rego', 'package lib');
    s.engine.dependents.set('lib.rego', ['app.rego']);
    const r = await req(s, 'DELETE', '/v1/policies/lib.rego');
    expect(r.status).toBe(400);
    expect((r.json as { code: string }).code).toBe('invalid_operation');
    expect((await req(s, 'GET', '/v1/policies/lib.rego')).status).toBe(200);
    s.engine.dependents.delete('lib.rego');
    const ok = await req(s, 'DELETE', '/v1/policies/lib.rego');
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('{}\n');
    expect((await req(s, 'GET', '/v1/policies/lib.rego')).status).toBe(404);
  });
  it('pretty lists are indented', async () => {
    const r = await req(s, 'GET', '/v1/policies?pretty=true');
    expect(r.text.startsWith('{\n  "result": [\n')).toBe(true);
  });
});
