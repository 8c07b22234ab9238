import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync, gunzipSync } from 'node:zlib';
import { req, start, type TestServer } from '../helpers.js';
import { rawRequest } from '../raw-http.js';
import type { DecisionEvent } from '../../../src/server/index.js';

let s: TestServer;
const decisions: DecisionEvent[] = [];
beforeAll(async () => {
  s = await start({
    decisionLogger: (e) => void decisions.push(e),
    limits: { maxLength: 64 * 1024, gzipMaxLength: 1024 * 1024, maxDepth: 100 },
    gzip: { minLength: 200 },
  });
  s.engine.virtual.set('rules/echo', (input) => input);
  s.engine.virtual.set('rules/undef', () => undefined);
  await req(s, 'PUT', '/v1/data/base', JSON.stringify({ list: [1, 2, 3], big: 1, name: 'x' }));
});
afterAll(() => s.close());

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  req(s, 'POST', path, body, { 'content-type': 'application/json', ...headers });

describe('GET/POST /v1/data', () => {
  it('returns base documents in the envelope with a decision_id when logging is on', async () => {
    const r = await req(s, 'GET', '/v1/data/base/list');
    expect(r.status).toBe(200);
    const body = r.json as { result: unknown; decision_id: string };
    expect(body.result).toEqual([1, 2, 3]);
    expect(body.decision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(decisions.find((d) => d.decision_id === body.decision_id)?.result).toEqual([1, 2, 3]);
  });
  it('an undefined document is 200 without result (rule 2)', async () => {
    const r = await req(s, 'GET', '/v1/data/nothing/here');
    expect(r.status).toBe(200);
    expect(Object.keys(r.json as object)).toEqual(['decision_id']);
    const r2 = await post('/v1/data/rules/undef', '{"input":{}}');
    expect((r2.json as object).hasOwnProperty('result')).toBe(false);
  });
  it('POST takes the input from {"input": ...}; GET from the input parameter', async () => {
    const r = await post('/v1/data/rules/echo', JSON.stringify({ input: { user: 'alice' } }));
    expect((r.json as { result: unknown }).result).toEqual({ user: 'alice' });
    const g = await req(s, 'GET', '/v1/data/rules/echo?input=' + encodeURIComponent('{"a":[1]}'));
    expect((g.json as { result: unknown }).result).toEqual({ a: [1] });
  });
  it('POST without an input key warns as OPA does', async () => {
    for (const body of ['', '{}', 'null']) {
      const r = await post('/v1/data/base/name', body);
      expect(r.status).toBe(200);
      expect((r.json as { warning: unknown }).warning).toEqual({
        code: 'api_usage_warning',
        message: "'input' key missing from the request",
      });
    }
  });
  it('malformed input is 400 (rule 1)', async () => {
    const r = await post('/v1/data/rules/echo', '{"input": {');
    expect(r.status).toBe(400);
    expect((r.json as { code: string; message: string }).code).toBe('invalid_parameter');
    expect((r.json as { message: string }).message).toMatch(/^body contains malformed input document/);
    const g = await req(s, 'GET', '/v1/data/rules/echo?input=%7Bnope');
    expect(g.status).toBe(400);
    expect((g.json as { message: string }).message).toMatch(/^parameter contains malformed input document/);
    expect((await post('/v1/data/rules/echo', '[1,2]')).status).toBe(400);
  });
  it('YAML bodies with Content-Type application/x-yaml', async () => {
    const r = await post('/v1/data/rules/echo', 'input:\n  user: bob\n  roles: [a, b]\n', { 'content-type': 'application/x-yaml' });
    expect((r.json as { result: unknown }).result).toEqual({ user: 'bob', roles: ['a', 'b'] });
    expect((await post('/v1/data/rules/echo', 'input: [unclosed', { 'content-type': 'application/x-yaml' })).status).toBe(400);
  });
  it('YAML alias bombs are refused, not expanded', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill('*' + String.fromCharCode(96 + i)).join(',')}]`);
    bomb.push('input: *i');
    const r = await post('/v1/data/rules/echo', bomb.join('\n'), { 'content-type': 'application/x-yaml' });
    expect(r.status).toBe(400);
  });
  it('gzip request bodies; broken gzip is 400', async () => {
    const body = gzipSync(JSON.stringify({ input: { z: 1 } }));
    const r = await post('/v1/data/rules/echo', body, { 'content-encoding': 'gzip' });
    expect((r.json as { result: unknown }).result).toEqual({ z: 1 });
    const bad = await post('/v1/data/rules/echo', Buffer.from('not gzip'), { 'content-encoding': 'gzip' });
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toMatch(/^could not decompress the body/);
  });
  it('oversized and too deeply nested bodies are 400, and the server keeps serving', async () => {
    const big = JSON.stringify({ input: 'x'.repeat(70 * 1024) });
    const r = await post('/v1/data/rules/echo', big);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ code: 'invalid_parameter', message: 'request body too large' });
    const deep = '{"input":' + '['.repeat(500) + ']'.repeat(500) + '}';
    expect((await post('/v1/data/rules/echo', deep)).status).toBe(400);
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024, 32));
    const z = await post('/v1/data/rules/echo', bomb, { 'content-encoding': 'gzip' });
    expect(z.status).toBe(400);
    expect(z.json).toEqual({ code: 'invalid_parameter', message: 'compressed request body too large' });
    expect((await req(s, 'GET', '/v1/data/base/name')).status).toBe(200);
  });
  it('keeps every digit of big numbers in input and output', async () => {
    const r = await post('/v1/data/rules/echo', '{"input":{"n":123456789012345678901234567890}}');
    expect(r.text).toContain('"result":{"n":123456789012345678901234567890}');
  });
  it('pretty=true indents the body', async () => {
    const r = await req(s, 'GET', '/v1/data/base/list?pretty=true');
    expect(r.text).toMatch(/^\{\n {2}"result": \[\n {4}1,\n/);
    expect(r.text.endsWith('}\n')).toBe(true);
  });
  it('metrics, instrument, provenance and explain add their fields', async () => {
    const r = await req(s, 'GET', '/v1/data/rules/echo?metrics=true&provenance&explain=full&input=1');
    const body = r.json as Record<string, unknown>;
    expect(Object.keys(body.metrics as object)).toEqual(
      expect.arrayContaining(['timer_rego_query_eval_ns', 'timer_server_handler_ns', 'timer_rego_input_parse_ns']),
    );
    expect(Object.keys(body.provenance as object)).toEqual(
      expect.arrayContaining(['version', 'build_commit', 'build_timestamp', 'build_hostname']),
    );
    expect(body.explanation).toEqual(['Enter data.rules.echo']);
    const i = await req(s, 'GET', '/v1/data/base?instrument=true');
    expect((i.json as Record<string, unknown>).metrics).toBeDefined();
    const none = await req(s, 'GET', '/v1/data/base?metrics=false');
    expect((none.json as Record<string, unknown>).metrics).toBeUndefined();
  });
  it('gzip responses only above server.encoding.gzip.min_length', async () => {
    await req(s, 'PUT', '/v1/data/large', JSON.stringify({ s: 'y'.repeat(1000) }));
    const big = await rawRequest(s.url + '/v1/data/large', 'GET', undefined, { 'accept-encoding': 'gzip' });
    expect(big.headers['content-encoding']).toBe('gzip');
    expect(big.headers['vary']).toBe('Accept-Encoding');
    expect(JSON.parse(gunzipSync(big.body).toString()).result.s).toHaveLength(1000);
    const small = await rawRequest(s.url + '/v1/data/base/name', 'GET', undefined, { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    const notAsked = await rawRequest(s.url + '/v1/data/large', 'GET');
    expect(notAsked.headers['content-encoding']).toBeUndefined();
  });
  it('a path segment with a double quote is a bad request', async () => {
    const r = await req(s, 'GET', '/v1/data/a%22b');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ code: 'invalid_parameter', message: "invalid path: invalid ref term 'a\"b'" });
  });
});

describe('POST /v0/data and POST / (default decision)', () => {
  it('v0 takes the input as the whole body and answers the bare value', async () => {
    const r = await post('/v0/data/rules/echo', '{"user":"carol"}');
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"user":"carol"}\n');
  });
  it('v0 with an empty body evaluates without input', async () => {
    const r = await post('/v0/data/base/name', '');
    expect(r.text).toBe('"x"\n');
  });
  it('v0 for a missing or undefined document is 404 with an error object (rule 3)', async () => {
    const r = await post('/v0/data/no/such', '{}');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ code: 'undefined_document', message: 'document missing: data.no.such' });
    const u = await post('/v0/data/rules/undef', '{}');
    expect(u.json).toEqual({ code: 'undefined_document', message: 'document undefined: data.rules.undef' });
  });
  it('v0 malformed input is 400', async () => {
    expect((await post('/v0/data/rules/echo', '{x')).status).toBe(400);
  });
  it('POST / evaluates data.system.main; 404 when undefined', async () => {
    const none = await post('/', '{"a":1}');
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ code: 'undefined_document', message: 'document missing: data.system.main' });
    s.engine.virtual.set('system/main', (input) => ({ got: input ?? null }));
    const r = await post('/', '{"a":1}');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ got: { a: 1 } });
    const y = await post('/', 'a: 2', { 'content-type': 'application/x-yaml' });
    expect(y.json).toEqual({ got: { a: 2 } });
    s.engine.virtual.delete('system/main');
  });
  it('POST / follows a configured default_decision', async () => {
    const s2 = await start({ config: { default_decision: 'custom/decision' } });
    s2.engine.virtual.set('custom/decision', () => 'yes');
    try {
      expect((await req(s2, 'POST', '/', '{}')).text).toBe('"yes"\n');
    } finally {
      await s2.close();
    }
  });
});
