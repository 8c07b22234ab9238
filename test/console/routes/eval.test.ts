// POST /ui/api/eval and /ui/api/fmt: the playground evaluates in a sandbox of its own
// (never the server's store or policies), with explain, coverage and partial evaluation;
// errors of every stage are 400s in OPA's shape with the playground's file names.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBuild, post, startUi, type UiServer } from './helpers.js';

let build: ReturnType<typeof fakeBuild>;
let s: UiServer;

const AUTHZ = `package authz

default allow := false

allow if {
	input.user == "alice"
	data.roles[input.user] == "admin"
}

deny contains msg if {
	not allow
	msg := sprintf("%s may not", [input.user])
}
`;

beforeAll(async () => {
  build = fakeBuild();
  s = await startUi({ assetsDir: build.dir });
  // the server's own policy and data: the playground must see neither
  await s.engine.putPolicy('server.rego', 'package authz\n\nserver_only := true\n');
  await s.engine.store.transact(async (txn) => txn.write('add', ['roles'], { alice: 'admin', server: true }));
});
afterAll(async () => {
  await s.close();
  build.remove();
});

describe('POST /ui/api/eval', () => {
  it('evaluates a query against the given modules, data and input', async () => {
    const r = await post(s, '/ui/api/eval', {
      modules: { 'authz.rego': AUTHZ },
      data: { roles: { alice: 'admin' } },
      input: { user: 'alice' },
      query: 'data.authz.allow',
    });
    expect(r.status).toBe(200);
    expect(r.json.result).toEqual([{ expressions: [{ value: true, text: 'data.authz.allow', location: { row: 1, col: 1 } }], bindings: {} }]);
    expect(r.json.explanation).toBeUndefined();
    expect(r.json.coverage).toBeUndefined();
    expect(r.json.partial).toBeUndefined();
    for (const k of ['timer_rego_module_parse_ns', 'timer_rego_module_compile_ns', 'timer_rego_query_parse_ns', 'timer_rego_query_compile_ns', 'timer_rego_query_eval_ns', 'timer_server_handler_ns']) {
      expect(typeof r.json.metrics[k]).toBe('number');
    }
  });

  it('gives bindings, sets and exact big numbers as /v1/query would', async () => {
    const r = await post(s, '/ui/api/eval', { modules: {}, query: 'x := {3, 1, 2}; y := 12345678901234567890' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('"y":12345678901234567890');
    expect(r.json.result[0].bindings.x).toEqual([1, 2, 3]);
    expect(r.json.result[0].expressions.map((e: any) => e.text)).toEqual(['x := {3, 1, 2}', 'y := 12345678901234567890']);
  });

  it('omits result when the query is undefined', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'a.rego': 'package a\n\np := 1 if false\n' }, query: 'data.a.p' });
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty('result');
    expect(r.json.metrics).toBeDefined();
  });

  it("never sees the server's store or policies", async () => {
    const r1 = await post(s, '/ui/api/eval', { modules: {}, query: 'x := data' });
    expect(r1.json.result[0].bindings.x).toEqual({});
    const r2 = await post(s, '/ui/api/eval', { modules: {}, query: 'data.authz.server_only' });
    expect(r2.json).not.toHaveProperty('result');
    const r3 = await post(s, '/ui/api/eval', { modules: { 'authz.rego': AUTHZ }, data: { roles: {} }, input: { user: 'alice' }, query: 'data.authz.allow' });
    expect(r3.json.result[0].expressions[0].value).toBe(false);
    // and the playground changes nothing in the server
    expect(s.engine.listPolicies().map((p) => p.id)).toEqual(['server.rego']);
  });

  it('explains with notes, fails and full', async () => {
    const modules = { 'n.rego': 'package n\n\np if {\n\ttrace("hello")\n\tinput.x == 1\n}\n' };
    const full = await post(s, '/ui/api/eval', { modules, input: { x: 2 }, query: 'data.n.p', explain: 'full' });
    expect(full.status).toBe(200);
    const ev = full.json.explanation as any[];
    expect(ev[0]).toEqual({ op: 'Enter', depth: 1, message: 'data.n.p', location: { file: '', row: 1, col: 1 } });
    expect(ev.some((e) => e.op === 'Enter' && e.message === 'data.n.p' && e.depth === 2 && e.location.file === 'n.rego')).toBe(true);
    expect(ev.some((e) => e.op === 'Fail' && e.message === 'input.x == 1' && e.location.file === 'n.rego' && e.location.row === 5)).toBe(true);
    const notes = await post(s, '/ui/api/eval', { modules, input: { x: 2 }, query: 'data.n.p', explain: 'notes' });
    const n = notes.json.explanation as any[];
    expect(n.filter((e) => e.op === 'Note')).toEqual([{ op: 'Note', depth: 2, message: 'hello', location: { file: 'n.rego', row: 4, col: 2 } }]);
    expect(n.length).toBeLessThan(ev.length);
    const fails = await post(s, '/ui/api/eval', { modules, input: { x: 2 }, query: 'data.n.p', explain: 'fails' });
    expect((fails.json.explanation as any[]).some((e) => e.op === 'Fail')).toBe(true);
    expect((fails.json.explanation as any[]).some((e) => e.op === 'Note')).toBe(false);
    const off = await post(s, '/ui/api/eval', { modules, input: { x: 2 }, query: 'data.n.p', explain: 'off' });
    expect(off.json).not.toHaveProperty('explanation');
  });

  it('reports coverage by row for every module', async () => {
    const r = await post(s, '/ui/api/eval', {
      modules: { 'authz.rego': AUTHZ, 'other.rego': 'package other\n\nq := 1\n' },
      data: { roles: { alice: 'admin' } },
      input: { user: 'alice' },
      query: 'data.authz.allow',
      coverage: true,
    });
    expect(r.status).toBe(200);
    const a = r.json.coverage['authz.rego'];
    expect(a.covered).toEqual(expect.arrayContaining([5, 6, 7]));
    expect(a.not_covered).toEqual(expect.arrayContaining([11, 12]));
    expect(r.json.coverage['other.rego']).toEqual({ covered: [], not_covered: [3] });
  });

  it('partially evaluates with unknowns', async () => {
    const r = await post(s, '/ui/api/eval', {
      modules: { 'f.rego': 'package f\n\nallow if {\n\tinput.user == "alice"\n\tdata.roles[input.user] == "admin"\n}\n' },
      data: { roles: { alice: 'admin' } },
      query: 'data.f.allow == true',
      unknowns: ['input'],
    });
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty('result');
    expect(r.json.partial.queries).toEqual([expect.stringContaining('input.user == "alice"')]);
    expect(r.json.partial.support).toEqual([]);
    expect(typeof r.json.metrics.timer_rego_partial_eval_ns).toBe('number');
  });

  it('answers parse errors of every module at once, located in the playground files', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'a.rego': 'package a\n\np if {', 'b.rego': 'package b\n\nq := }\n' }, query: 'data.a.p' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.message).toBe('error(s) occurred while compiling module(s)');
    const files = (r.json.errors as any[]).map((e) => e.location.file).sort();
    expect(files).toEqual(['a.rego', 'b.rego']);
    for (const e of r.json.errors) {
      expect(e.code).toBe('rego_parse_error');
      expect(e.location).toEqual({ file: e.location.file, row: expect.any(Number), col: expect.any(Number) });
    }
  });

  it('answers compile errors with locations', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'c.rego': 'package c\n\np if {\n\tx == 1\n}\n' }, query: 'data.c.p' });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('error(s) occurred while compiling module(s)');
    expect(r.json.errors[0]).toMatchObject({ code: 'rego_unsafe_var_error', location: { file: 'c.rego', row: 4 } });
  });

  it('answers query parse and compile errors', async () => {
    const p = await post(s, '/ui/api/eval', { modules: {}, query: 'x := ' });
    expect(p.status).toBe(400);
    expect(p.json.message).toBe('error(s) occurred while parsing query');
    expect(p.json.errors[0].code).toBe('rego_parse_error');
    const c = await post(s, '/ui/api/eval', { modules: {}, query: 'nope(1)' });
    expect(c.status).toBe(400);
    expect(c.json.message).toBe('error(s) occurred while compiling query');
    expect(c.json.errors[0].code).toBe('rego_type_error');
  });

  it('answers evaluation errors as 400s', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'e.rego': 'package e\n\np := 1\n\np := 2\n' }, query: 'data.e.p' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('evaluation_error');
    expect(r.json.message).toBe('error(s) occurred while evaluating query');
    expect(r.json.errors[0]).toMatchObject({ code: 'eval_conflict_error', location: { file: 'e.rego' } });
  });

  it('stops an evaluation that runs past the time limit', async () => {
    const t0 = Date.now();
    const r = await post(s, '/ui/api/eval', {
      modules: {},
      // many steps, little memory: the time limit, not the heap, must end it
      query: 'xs := numbers.range(1, 5000); xs[a]; xs[b]; xs[c]; a + b + c < 0',
    });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('evaluation_error');
    expect(r.json.message).toContain('time limit');
    expect(r.json.errors[0].code).toBe('eval_cancel_error');
  }, 20_000);

  it.each([
    ['not an object', '[1]', 'request body must be a JSON object'],
    ['bad JSON', '{', 'error(s) occurred while decoding request'],
    ['no modules', { query: 'true' }, '"modules" must be an object'],
    ['a module not a string', { modules: { 'a.rego': 1 }, query: 'true' }, 'must be a string'],
    ['no query', { modules: {} }, '"query" must be a non-empty string'],
    ['data not an object', { modules: {}, query: 'true', data: [1] }, '"data" must be an object'],
    ['bad explain', { modules: {}, query: 'true', explain: 'debug' }, '"explain" must be one of'],
    ['bad coverage', { modules: {}, query: 'true', coverage: 'yes' }, '"coverage" must be a boolean'],
    ['bad unknowns', { modules: {}, query: 'true', unknowns: 'input' }, '"unknowns" must be an array of strings'],
    ['too many modules', { modules: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`m${i}.rego`, `package m${i}`])), query: 'true' }, 'too many modules'],
    ['a module too large', { modules: { 'big.rego': 'package big\n' + '#'.repeat(1024 * 1024) }, query: 'true' }, 'too large'],
  ])('refuses a request with %s', async (_what, body, message) => {
    const r = await post(s, '/ui/api/eval', body);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.message).toContain(message);
  });

  it('refuses a body over the server limit', async () => {
    const small = await startUi({ assetsDir: build.dir }, { limits: { maxLength: 1000 } });
    try {
      const r = await post(small, '/ui/api/eval', { modules: { 'a.rego': 'package a\n' + '#'.repeat(2000) }, query: 'true' });
      expect(r.status).toBe(400);
      expect(r.json.message).toBe('request body too large');
    } finally {
      await small.close();
    }
  });
});

describe('POST /ui/api/fmt', () => {
  it('formats as regolith fmt does', async () => {
    const r = await post(s, '/ui/api/fmt', { text: 'package a\nallow if {input.x==1}\n' });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ text: 'package a\n\nallow if input.x == 1\n' });
  });

  it('answers parse errors with locations in the given file', async () => {
    const r = await post(s, '/ui/api/fmt', { text: 'package a\n\np if {', file: 'mine.rego' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.errors[0]).toMatchObject({ code: 'rego_parse_error', location: { file: 'mine.rego', row: expect.any(Number), col: expect.any(Number) } });
  });

  it('refuses a request without text', async () => {
    const r = await post(s, '/ui/api/fmt', { file: 'x.rego' });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('"text" must be a string');
  });
});
