// ?explain= on the Data and Query APIs with the real engine: OPA's JSON trace events, or
// pretty lines with ?pretty=true; notes and fails filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { req } from './helpers.js';

let s: RunningServer;

const POLICY = `package ex

allow if {
	input.user == "alice"
}

msgs contains m if {
	m := "checked"
	trace(m)
}
`;

beforeAll(async () => {
  s = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false });
  const r = await req(s, 'PUT', '/v1/policies/ex.rego', POLICY, { 'content-type': 'text/plain' });
  expect(r.status, r.text).toBe(200);
});
afterAll(() => s.close());

type Ev = { op: string; query_id: number; parent_id: number; type: string; node: unknown; locals: unknown[]; location?: { file: string; row: number }; message?: string };

describe('explain on the data API', () => {
  it('full: JSON events with op, ids, node type, node and locals', async () => {
    const r = await req(s, 'POST', '/v1/data/ex/allow?explain=full', JSON.stringify({ input: { user: 'bob' } }));
    expect(r.status).toBe(200);
    const ev = (r.json as { explanation: Ev[] }).explanation;
    expect(ev.map((e) => `${e.op}:${e.type}`)).toEqual(['enter:body', 'eval:expr', 'enter:rule', 'eval:expr', 'fail:expr', 'fail:expr']);
    expect(ev[2]).toMatchObject({ query_id: 1, parent_id: 0, location: { file: 'ex.rego', row: 3 } });
    expect(ev[4]).toMatchObject({ op: 'fail', query_id: 1, location: { file: 'ex.rego', row: 4 } });
    expect((ev[4]!.node as { terms: unknown[] }).terms).toHaveLength(3);
    for (const e of ev) expect(Array.isArray(e.locals)).toBe(true);
  });

  it('full with pretty: OPA pretty trace lines', async () => {
    const r = await req(s, 'POST', '/v1/data/ex/allow?explain=full&pretty=true', JSON.stringify({ input: { user: 'alice' } }));
    const lines = (r.json as { explanation: string[] }).explanation;
    expect(lines[0]).toMatch(/^query:1\s+Enter data\.ex\.allow$/);
    expect(lines).toContainEqual(expect.stringMatching(/^ex\.rego:3\s+\| Enter data\.ex\.allow$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ex\.rego:4\s+\| \| Eval input\.user == "alice"$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ex\.rego:3\s+\| \| Exit data\.ex\.allow$/));
  });

  it('notes: only Note events with the Enter events leading to them', async () => {
    const r = await req(s, 'GET', '/v1/data/ex/msgs?explain=notes');
    const ev = (r.json as { explanation: Ev[] }).explanation;
    expect(ev.map((e) => e.op)).toEqual(['enter', 'enter', 'note']);
    expect(ev[2]).toMatchObject({ message: 'checked', location: { file: 'ex.rego', row: 9 } });
  });

  it('fails on the query API', async () => {
    const r = await req(s, 'GET', '/v1/query?explain=fails&q=' + encodeURIComponent('x := 1; x > 2'));
    const ev = (r.json as { explanation: Ev[] }).explanation;
    expect(ev.map((e) => e.op)).toEqual(['enter', 'fail']);
    expect(ev[1]!.locals).toEqual([{ key: { type: 'var', value: 'x' }, value: { type: 'number', value: 1 } }]);
  });
});
