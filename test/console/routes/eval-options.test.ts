// POST /ui/api/eval's options beyond the query: print() output, Rego v0 or v1, OPA's
// capabilities, and a query read inside a module's package (evaluate selection).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBuild, post, startUi, type UiServer } from './helpers.js';

let build: ReturnType<typeof fakeBuild>;
let s: UiServer;

beforeAll(async () => {
  build = fakeBuild();
  s = await startUi({ assetsDir: build.dir });
});
afterAll(async () => {
  await s.close();
  build.remove();
});

const PRINTS = `package p

allow if {
	print("checking", input.user)
	input.user == "alice"
}
`;

describe('print()', () => {
  it('answers the lines print() wrote, in order', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'p.rego': PRINTS }, input: { user: 'alice' }, query: 'data.p.allow; print("done")' });
    expect(r.status).toBe(200);
    expect(r.json.printed).toEqual(['checking alice', 'done']);
  });

  it('has no printed field when nothing printed', async () => {
    const r = await post(s, '/ui/api/eval', { modules: {}, query: 'true' });
    expect(r.json.printed).toBeUndefined();
  });

  it('keeps at most 1000 lines and says how many more there were', async () => {
    const r = await post(s, '/ui/api/eval', { modules: {}, query: 'some i in numbers.range(1, 1500); print(i)' });
    expect(r.json.printed).toHaveLength(1001);
    expect(r.json.printed[999]).toBe('1000');
    expect(r.json.printed[1000]).toBe('(500 more print() lines not shown)');
  });
});

describe('rego_version', () => {
  const V0 = 'package p\n\nallow { input.x == 1 }\n';

  it('reads v1 by default: a v0 module is a parse error', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'p.rego': V0 }, query: 'data.p.allow', input: { x: 1 } });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].code).toBe('rego_parse_error');
  });

  it('reads v0 modules and queries when asked', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'p.rego': V0 }, query: 'data.p.allow', input: { x: 1 }, rego_version: 'v0' });
    expect(r.status).toBe(200);
    expect(r.json.result[0].expressions[0].value).toBe(true);
  });

  it('formats a v0 module as v0', async () => {
    const r = await post(s, '/ui/api/fmt', { text: 'package p\nallow {   input.x==1 }', rego_version: 'v0' });
    expect(r.status).toBe(200);
    expect(r.json.text).toBe('package p\n\nallow {\n\tinput.x == 1\n}\n');
    expect((await post(s, '/ui/api/fmt', { text: 'package p\nallow {   input.x==1 }' })).status).toBe(400);
  });

  it('refuses another version', async () => {
    const r = await post(s, '/ui/api/eval', { modules: {}, query: 'true', rego_version: 'v2' });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ code: 'invalid_parameter', message: '"rego_version" must be one of v0, v1' });
  });
});

describe('capabilities', () => {
  const CAPS = { builtins: [{ name: 'eq' }, { name: 'equal' }, { name: 'assign' }, { name: 'count' }] };

  it('makes a call to a built-in the capabilities do not list undefined', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'p.rego': 'package p\n\nn := upper("x")\n' }, query: 'data.p.n', capabilities: CAPS });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ code: 'rego_type_error', message: 'undefined function upper', location: { file: 'p.rego', row: 3 } });
  });

  it('allows the built-ins they list', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'p.rego': 'package p\n\nn := count([1, 2])\n' }, query: 'data.p.n', capabilities: CAPS });
    expect(r.status).toBe(200);
    expect(r.json.result[0].expressions[0].value).toBe(2);
  });

  it('refuses a document that is not capabilities', async () => {
    const r = await post(s, '/ui/api/eval', { modules: {}, query: 'true', capabilities: { builtins: [{}] } });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('every entry of "capabilities.builtins" needs a "name"');
  });
});

describe('in_module (evaluate selection)', () => {
  const MOD = 'package app.rules\n\nimport rego.v1\nimport data.lists.admins\n\nallow if input.user in admins\n\nname := "rules"\n';

  it('reads the query in the module\'s package, with its imports', async () => {
    const r = await post(s, '/ui/api/eval', {
      modules: { 'other.rego': 'package other\n\nname := "other"\n', 'rules.rego': MOD },
      data: { lists: { admins: ['alice'] } },
      input: { user: 'alice' },
      query: 'allow; name; count(admins)',
      in_module: 'rules.rego',
    });
    expect(r.status).toBe(200);
    expect(r.json.result[0].expressions.map((e: { value: unknown }) => e.value)).toEqual([true, 'rules', 1]);
  });

  it('refuses a module that is not there', async () => {
    const r = await post(s, '/ui/api/eval', { modules: { 'a.rego': 'package a\n' }, query: 'true', in_module: 'b.rego' });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('"in_module" must name one of the modules');
  });
});
