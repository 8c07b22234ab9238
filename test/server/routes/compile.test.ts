// POST /v1/compile over a real server and engine: the seed's four situations, support
// modules, disableInlining, and errors in OPA's shape.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { req } from '../helpers.js';

let s: RunningServer;

const POLICY = `package authz

default allow := false

allow if input.user.role == "admin"

allow if {
	input.user.name == input.resource.owner
	not input.resource.locked
}

level := "high" if input.resource.size > 10
else := "low"

open if true
`;

beforeAll(async () => {
  s = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false });
  const r = await req(s, 'PUT', '/v1/policies/authz.rego', POLICY, { 'content-type': 'text/plain' });
  expect(r.status, r.text).toBe(200);
});
afterAll(() => s.close());

const post = (body: unknown, q = '') => req(s, 'POST', `/v1/compile${q}`, JSON.stringify(body));
const ref = (...path: string[]) => ({ type: 'ref', value: [{ type: 'var', value: path[0] }, ...path.slice(1).map((p) => ({ type: 'string', value: p }))] });

describe('POST /v1/compile: the four situations', () => {
  it('conditions remain: one array of expressions per alternative, in OPA\'s JSON AST', async () => {
    const r = await post({ query: 'data.authz.allow == true', input: { user: { name: 'bob', role: 'dev' } }, unknowns: ['input.resource'] });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      result: {
        queries: [
          [
            // known parts are plugged in where the policy wrote them
            { index: 0, terms: [ref('equal'), { type: 'string', value: 'bob' }, ref('input', 'resource', 'owner')] },
            { index: 1, negated: true, terms: ref('input', 'resource', 'locked') },
          ],
        ],
      },
    });
  });

  it('always true: queries holds an empty array', async () => {
    const r = await post({ query: 'data.authz.allow == true', input: { user: { role: 'admin' } }, unknowns: ['input.resource'] });
    expect((r.json as { result: { queries: unknown[][] } }).result.queries).toContainEqual([]);
    const open = await post({ query: 'data.authz.open', unknowns: ['input'] });
    expect(open.json).toEqual({ result: { queries: [[]] } });
  });

  it('never true, including an empty unknowns list with an undefined result: {}', async () => {
    const never = await post({ query: 'data.authz.allow == true', input: { user: { name: 'bob', role: 'dev' } }, unknowns: ['input.nothing'] });
    expect(never.json).toEqual({ result: {} });
    const none = await post({ query: 'data.authz.missing == true', unknowns: [] });
    expect(none.json).toEqual({ result: {} });
  });

  it('unknowns not given are ["input"]', async () => {
    const r = await post({ query: 'data.authz.allow == true' });
    const queries = (r.json as { result: { queries: unknown[][] } }).result.queries;
    expect(queries).toHaveLength(2);
    expect(queries[0]).toEqual([{ index: 0, terms: [ref('equal'), ref('input', 'user', 'role'), { type: 'string', value: 'admin' }] }]);
  });
});

describe('POST /v1/compile: support rules and options', () => {
  it('a rule with else is inlined: a later branch holds when the earlier ones do not', async () => {
    const high = await post({ query: 'data.authz.level == "high"', unknowns: ['input'] });
    expect(high.json).toEqual({ result: { queries: [[{ index: 0, terms: [ref('gt'), ref('input', 'resource', 'size'), { type: 'number', value: 10 }] }]] } });
    const low = await post({ query: 'data.authz.level == "low"', unknowns: ['input'] });
    // read back, `not input.resource.size > 10` needs the size defined: its absence is a query of its own
    const size = ref('input', 'resource', 'size');
    expect(low.json).toEqual({
      result: {
        queries: [
          [{ index: 0, negated: true, terms: [ref('gt'), size, { type: 'number', value: 10 }] }],
          [{ index: 0, negated: true, terms: [ref('eq'), size, size] }],
        ],
      },
    });
  });

  it('a function with else is a support module under package partial', async () => {
    await req(s, 'PUT', '/v1/policies/fn.rego', 'package fn\n\nsize(r) := "big" if r.size > 10\nelse := "small"\n\nbig if size(input.resource) == "big"\n', { 'content-type': 'text/plain' });
    const r = await post({ query: 'data.fn.big', unknowns: ['input'] });
    const result = (r.json as { result: { queries: { terms: unknown[] }[][]; support: { package: unknown; rules: unknown[] }[] } }).result;
    expect(result.queries).toHaveLength(1);
    expect(result.queries[0]![0]!.terms[0]).toEqual(ref('data', 'partial', 'fn', 'size'));
    expect(result.support).toHaveLength(1);
    expect(result.support[0]!.package).toEqual({ path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'partial' }, { type: 'string', value: 'fn' }] });
  });

  it('disableInlining keeps a rule as a support rule', async () => {
    const r = await post({ query: 'data.authz.allow == true', input: { user: { name: 'bob' } }, unknowns: ['input.resource', 'input.user.role'], options: { disableInlining: ['data.authz.allow'] } });
    const result = (r.json as { result: { queries: unknown[][]; support: unknown[] } }).result;
    expect(result.queries).toEqual([[{ index: 0, terms: [ref('equal'), ref('data', 'partial', 'authz', 'allow'), { type: 'boolean', value: true }] }]]);
    expect(result.support).toHaveLength(1);
  });
});

describe('POST /v1/compile: explain', () => {
  it('explain=full answers the trace of the partial evaluation, with Save events for what the residual keeps', async () => {
    const body = { query: 'data.authz.allow == true', input: { user: { name: 'bob', role: 'dev' } }, unknowns: ['input.resource'] };
    const r = await post(body, '?explain=full');
    expect(r.status, r.text).toBe(200);
    const ex = (r.json as { explanation: { op: string; query_id: number; parent_id: number; node: { terms?: unknown } }[] }).explanation;
    expect(ex[0]).toMatchObject({ op: 'enter', query_id: 1, parent_id: 0 });
    const saves = ex.filter((e) => e.op === 'save');
    // the owner comparison, with the known name plugged in, and the negated lock check
    const noLocation = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'location' ? undefined : x)));
    expect(saves.map((e) => noLocation(e.node.terms))).toContainEqual([ref('equal'), { type: 'string', value: 'bob' }, ref('input', 'resource', 'owner')]);
    expect(saves.some((e) => (e.node as { negated?: boolean }).negated)).toBe(true);
    // the admin branch fails on the known role
    expect(ex.some((e) => e.op === 'fail')).toBe(true);
    // rule bodies are child queries of the query that reached them
    const enters = ex.filter((e) => e.op === 'enter' && e.query_id !== 1);
    expect(enters.length).toBeGreaterThan(0);
    expect(enters.every((e) => e.parent_id >= 1)).toBe(true);
    const pretty = await post(body, '?explain=full&pretty');
    const lines = (pretty.json as { explanation: string[] }).explanation;
    expect(lines.some((l) => /Save "bob" = input\.resource\.owner|Save "bob" == input\.resource\.owner/.test(l)), lines.join('\n')).toBe(true);
    // without explain there is no explanation
    expect((await post(body)).json).not.toHaveProperty('explanation');
  });

  it('explain=fails keeps the failures with the rules that led to them', async () => {
    const r = await post({ query: 'data.authz.allow == true', input: { user: { name: 'bob', role: 'dev' } }, unknowns: ['input.resource'] }, '?explain=fails&pretty');
    const lines = (r.json as { explanation: string[] }).explanation;
    expect(lines.some((l) => l.includes('Fail input.user.role == "admin"')), lines.join('\n')).toBe(true);
    expect(lines.some((l) => l.includes('Save'))).toBe(false);
  });
});

describe('POST /v1/compile: errors', () => {
  it('an unknown that is not a ref of input or data is 400', async () => {
    const r = await post({ query: 'data.authz.allow', unknowns: ['1 + 2'] });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toContain('invalid unknown');
  });
  it('a query that does not compile is 400 with the compiler error', async () => {
    const r = await post({ query: 'x > 1' });
    expect(r.status).toBe(400);
    expect((r.json as { errors: { code: string }[] }).errors[0]!.code).toBe('rego_unsafe_var_error');
  });
});

describe('/v1/compile/{path}: data filtering', () => {
  const FILTERS = `# METADATA
# scope: package
# compile:
#   unknowns: [input.fruits]
package filters

include if input.fruits.price > 10

include if input.fruits.name == input.fav
`;
  beforeAll(async () => {
    const r = await req(s, 'PUT', '/v1/policies/filters.rego', FILTERS, { 'content-type': 'text/plain' });
    expect(r.status, r.text).toBe(200);
  });

  it('the query is data.<path>; unknowns come from the METADATA compile: block when the request has none', async () => {
    const r = await req(s, 'POST', '/v1/compile/filters/include', JSON.stringify({ input: { fav: 'apple' } }), { accept: 'application/json' });
    expect(r.status, r.text).toBe(200);
    const queries = (r.json as { result: { queries: { terms: unknown[] }[][] } }).result.queries;
    expect(queries).toHaveLength(2);
    expect(queries[1]![0]!.terms[2]).toEqual({ type: 'string', value: 'apple' });
  });

  it('GET takes the input as a JSON query parameter', async () => {
    const r = await req(s, 'GET', `/v1/compile/filters/include?input=${encodeURIComponent('{"fav":"kiwi"}')}`);
    expect(r.status, r.text).toBe(200);
    expect(JSON.stringify(r.json)).toContain('kiwi');
  });

  it('a path without a rule, or with a bad body, is 400', async () => {
    expect((await req(s, 'POST', '/v1/compile/', '{}')).status).toBe(400);
    expect((await req(s, 'POST', '/v1/compile/filters/include', '{"options": {"maskRule": 3}}')).status).toBe(400);
    expect((await req(s, 'GET', '/v1/compile/filters/include?input=%7Bnope')).status).toBe(400);
  });
});

describe('/v1/compile/{path}: the older custom: METADATA keys', () => {
  it('custom: unknowns is read when compile: is absent', async () => {
    const text = `package legacy\n\n# METADATA\n# custom:\n#   unknowns: [input.rows]\ninclude if input.rows.x > 1\n`;
    expect((await req(s, 'PUT', '/v1/policies/legacy.rego', text, { 'content-type': 'text/plain' })).status).toBe(200);
    const r = await req(s, 'POST', '/v1/compile/legacy/include', JSON.stringify({ input: { rows: { x: 5 } } }), { accept: 'application/vnd.opa.sql.postgresql+json' });
    expect(r.json).toEqual({ result: { query: 'WHERE rows.x > 1' } });
  });
});
