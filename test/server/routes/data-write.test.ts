import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { req, start, type TestServer } from '../helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await start();
});
afterAll(() => s.close());

const put = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  req(s, 'PUT', '/v1/data' + path, typeof body === 'string' ? body : JSON.stringify(body), { 'content-type': 'application/json', ...headers });
const patch = (path: string, ops: unknown) =>
  req(s, 'PATCH', '/v1/data' + path, JSON.stringify(ops), { 'content-type': 'application/json-patch+json' });
const get = async (path: string) => (await req(s, 'GET', '/v1/data' + path)).json;

describe('PUT /v1/data', () => {
  it('creates missing parents (rule 4) and answers 204 with an empty body', async () => {
    const r = await put('/w1/a/b/c', { x: 1 });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(await get('/w1')).toEqual({ result: { a: { b: { c: { x: 1 } } } } });
  });
  it('If-None-Match: * keeps an existing document (304), writes a missing one (204) (rule 5)', async () => {
    await put('/w2/doc', { v: 1 });
    const r = await put('/w2/doc', { v: 2 }, { 'if-none-match': '*' });
    expect(r.status).toBe(304);
    expect(await get('/w2/doc')).toEqual({ result: { v: 1 } });
    expect((await put('/w2/other', { v: 3 }, { 'if-none-match': '*' })).status).toBe(204);
    expect((await put('/w2/doc', { v: 4 })).status).toBe(204);
    expect(await get('/w2/doc')).toEqual({ result: { v: 4 } });
  });
  it('a non-object parent gives 404 (rule 6)', async () => {
    await put('/w3', { s: 'text', arr: [1, 2] });
    const r = await put('/w3/s/x', 1);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ code: 'resource_conflict', message: 'storage_write_conflict_error: /w3/s' });
    expect((await put('/w3/arr/x', 1)).status).toBe(404); // array index conversion fails
    expect(await get('/w3')).toEqual({ result: { s: 'text', arr: [1, 2] } });
  });
  it('a virtual document gives 404 (rule 6)', async () => {
    s.engine.virtual.set('w4/allow', () => true);
    const r = await put('/w4/allow', false);
    expect(r.status).toBe(404);
    expect((r.json as { code: string }).code).toBe('resource_conflict');
    expect((await put('/w4/allow/deeper', 1)).status).toBe(404);
    // Beside the rule is fine; overwriting the package with data that reaches the rule is not.
    expect((await put('/w4/other', 1)).status).toBe(204);
    const above = await put('/w4', { allow: 1 });
    expect(above.status).toBe(400);
    expect(await get('/w4/allow')).toEqual({ result: true });
  });
  it('an array index is an add at that position (as OPA\'s storage add)', async () => {
    await put('/w5', { arr: [1, 2, 3] });
    expect((await put('/w5/arr/1', '"two"')).status).toBe(204);
    expect(await get('/w5/arr')).toEqual({ result: [1, 'two', 2, 3] });
  });
  it('the root can be replaced by an object only', async () => {
    const r = await put('', [1]);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ code: 'invalid_parameter', message: 'storage_invalid_patch_error: root must be object' });
  });
  it('malformed JSON gives 400', async () => {
    const r = await put('/w6', '{"a":');
    expect(r.status).toBe(400);
    expect((r.json as { code: string }).code).toBe('invalid_parameter');
    expect((await put('/w6', '')).status).toBe(400);
  });
  it('?metrics answers 200 with metrics', async () => {
    const r = await put('/w7?metrics=true', 1);
    expect(r.status).toBe(200);
    expect(Object.keys((r.json as { metrics: object }).metrics)).toContain('timer_server_handler_ns');
  });
  it('URL-escaped segments are unescaped', async () => {
    expect((await put('/w8/a%20b', 1)).status).toBe(204);
    expect(await get('/w8')).toEqual({ result: { 'a b': 1 } });
  });
});

describe('PATCH /v1/data (rule 7)', () => {
  it('joins the URL path with each operation path', async () => {
    await put('/p1', { a: { b: 1 }, list: [1] });
    const r = await patch('/p1', [
      { op: 'add', path: '/a/c', value: 2 },
      { op: 'replace', path: 'a/b', value: 10 },
      { op: 'add', path: '/list/-', value: 2 },
      { op: 'remove', path: '/a/c' },
    ]);
    expect(r.status).toBe(204);
    expect(await get('/p1')).toEqual({ result: { a: { b: 10 }, list: [1, 2] } });
  });
  it('the parent must exist; remove and replace need the target', async () => {
    await put('/p2', { a: {} });
    for (const op of [
      { op: 'add', path: '/nope/x', value: 1 },
      { op: 'remove', path: '/a/missing' },
      { op: 'replace', path: '/a/missing', value: 1 },
    ]) {
      const r = await patch('/p2', [op]);
      expect(r.status, JSON.stringify(op)).toBe(404);
      expect((r.json as { code: string }).code).toBe('resource_not_found');
    }
  });
  it('array indexes that are not integers give 404', async () => {
    await put('/p3', { list: [1, 2] });
    const r = await patch('/p3', [{ op: 'replace', path: '/list/x', value: 0 }]);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ code: 'resource_not_found', message: 'storage_not_found_error: /p3/list/x: array index must be integer' });
  });
  it('is atomic: a failing operation leaves every earlier one undone', async () => {
    await put('/p4', { a: 1 });
    const r = await patch('/p4', [
      { op: 'add', path: '/b', value: 2 },
      { op: 'remove', path: '/zzz' },
    ]);
    expect(r.status).toBe(404);
    expect(await get('/p4')).toEqual({ result: { a: 1 } });
  });
  it('unknown operations and malformed bodies give 400', async () => {
    const r = await patch('/p4', [{ op: 'move', from: '/a', path: '/c' }]);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ code: 'invalid_parameter', message: 'bad patch operation: move' });
    expect((await patch('/p4', { op: 'add' })).status).toBe(400);
    expect((await req(s, 'PATCH', '/v1/data/p4', '[{', {})).status).toBe(400);
  });
  it('JSON pointer escapes ~1 and ~0 are decoded', async () => {
    await put('/p5', {});
    await patch('/p5', [{ op: 'add', path: '/a~1b~0c', value: 1 }]);
    expect(await get('/p5')).toEqual({ result: { 'a/b~c': 1 } });
  });
});

describe('DELETE /v1/data (rule 8)', () => {
  it('removes an existing document (204), a missing one is 404', async () => {
    await put('/d1', { a: 1, b: 2 });
    expect((await req(s, 'DELETE', '/v1/data/d1/a')).status).toBe(204);
    expect(await get('/d1')).toEqual({ result: { b: 2 } });
    const r = await req(s, 'DELETE', '/v1/data/d1/a');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ code: 'resource_not_found', message: 'storage_not_found_error: /d1/a: document does not exist' });
  });
  it('removes array elements by index', async () => {
    await put('/d2', [1, 2, 3]);
    expect((await req(s, 'DELETE', '/v1/data/d2/0')).status).toBe(204);
    expect(await get('/d2')).toEqual({ result: [2, 3] });
  });
  it('wrong methods on data resources give 405', async () => {
    expect((await req(s, 'OPTIONS', '/v1/data/x')).status).toBe(405);
  });
});
