import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { req, start, type TestServer } from '../helpers.js';
import { EngineError } from '../../../src/server/index.js';

let s: TestServer;
beforeAll(async () => {
  s = await start({ decisionLogger: () => {} });
  s.engine.virtual.set('authz/allow', (input) => {
    const i = input as { user?: string } | undefined;
    if (i?.user === 'boom') throw new EngineError('eval', 'conflict', [{ code: 'eval_conflict_error', message: 'complete rules must not produce multiple outputs' }]);
    return i?.user === 'admin';
  });
});
afterAll(() => s.close());

describe('query API', () => {
  it('GET /v1/query requires q', async () => {
    const r = await req(s, 'GET', '/v1/query');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ code: 'invalid_parameter', message: "missing parameter 'q'" });
  });
  it('GET and POST return one binding object per solution', async () => {
    const g = await req(s, 'GET', '/v1/query?q=' + encodeURIComponent('x = 1'));
    expect(g.json).toEqual({ result: [{ x: 1 }] });
    const p = await req(s, 'POST', '/v1/query', JSON.stringify({ query: 'x = 1', input: {} }));
    expect(p.json).toEqual({ result: [{ x: 1 }] });
  });
  it('parse errors are 400 with the parse message', async () => {
    const r = await req(s, 'GET', '/v1/query?q=' + encodeURIComponent('x = '));
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toBe('error(s) occurred while parsing query');
  });
  it('malformed POST bodies are 400', async () => {
    const r = await req(s, 'POST', '/v1/query', '{"query":');
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toMatch(/^error\(s\) occurred while decoding request/);
  });
  it('streaming (watch) is 501', async () => {
    const r = await req(s, 'GET', '/v1/query?watch&q=x%20%3D%201');
    expect(r.status).toBe(501);
  });
});

describe('compile API', () => {
  it('validates the request body', async () => {
    expect((await req(s, 'POST', '/v1/compile', '{')).status).toBe(400);
    const noQuery = await req(s, 'POST', '/v1/compile', '{"unknowns":["input"]}');
    expect(noQuery.json).toEqual({ code: 'invalid_parameter', message: "missing required 'query' value" });
    expect((await req(s, 'POST', '/v1/compile', '{"query":"x = 1","unknowns":"input"}')).status).toBe(400);
    const parse = await req(s, 'POST', '/v1/compile', '{"query":"x = "}');
    expect((parse.json as { message: string }).message).toBe('error(s) occurred while parsing query');
  });
  it("an engine that cannot partially evaluate answers 501 in OPA's error shape", async () => {
    const r = await req(s, 'POST', '/v1/compile', '{"query":"data.authz.allow == true","unknowns":["input"]}');
    expect(r.status).toBe(501);
    expect(r.json).toEqual({ code: 'internal_error', message: 'partial evaluation is not implemented yet' });
  });
});

describe('batch API (@styra/opa evaluateBatch shape)', () => {
  it('all successes: 200 with responses keyed by id', async () => {
    const r = await req(s, 'POST', '/v1/batch/data/authz/allow', JSON.stringify({ inputs: { a: { user: 'admin' }, b: { user: 'eve' } } }));
    expect(r.status).toBe(200);
    const body = r.json as { batch_decision_id: string; responses: Record<string, { result: unknown; decision_id: string }> };
    expect(body.batch_decision_id).toBeTruthy();
    expect(body.responses['a']!.result).toBe(true);
    expect(body.responses['b']!.result).toBe(false);
    expect(body.responses['a']!.decision_id).not.toBe(body.responses['b']!.decision_id);
  });
  it('mixed results: 207 with http_status_code on each entry', async () => {
    const r = await req(s, 'POST', '/v1/batch/data/authz/allow', JSON.stringify({ inputs: { ok: { user: 'admin' }, bad: { user: 'boom' } } }));
    expect(r.status).toBe(207);
    const body = r.json as { responses: Record<string, Record<string, unknown>> };
    expect(body.responses['ok']).toMatchObject({ http_status_code: '200', result: true });
    expect(body.responses['bad']).toMatchObject({
      http_status_code: '500',
      code: 'internal_error',
      message: 'error(s) occurred while evaluating query',
      errors: [{ code: 'eval_conflict_error', message: 'complete rules must not produce multiple outputs' }],
    });
  });
  it('all failures: 500', async () => {
    const r = await req(s, 'POST', '/v1/batch/data/authz/allow', JSON.stringify({ inputs: { x: { user: 'boom' } } }));
    expect(r.status).toBe(500);
  });
  it('common_input is merged under each input', async () => {
    const r = await req(
      s,
      'POST',
      '/v1/batch/data/authz/allow',
      JSON.stringify({ inputs: { a: {}, b: { user: 'eve' } }, common_input: { user: 'admin' } }),
    );
    const body = r.json as { responses: Record<string, { result: unknown }> };
    expect(body.responses['a']!.result).toBe(true);
    expect(body.responses['b']!.result).toBe(false);
  });
  it('a body without inputs is 400', async () => {
    expect((await req(s, 'POST', '/v1/batch/data/authz/allow', '{"input":{}}')).status).toBe(400);
  });
});
