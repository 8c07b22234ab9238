import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { Regolith, RegoEvalError, IOPending } from '../../src/index.js';

const authz = `package authz

default allow := false

allow if {
  some role in data.bindings[input.user]
  some grant in data.roles[role]
  grant.action == input.action
}

reasons contains msg if {
  not allow
  msg := sprintf("%s may not %s", [input.user, input.action])
}
`;

describe('library API', () => {
  const rego = new Regolith().addModule('authz.rego', authz).setData({
    bindings: { alice: ['admin'], bob: ['viewer'] },
    roles: { admin: [{ action: 'read' }, { action: 'write' }], viewer: [{ action: 'read' }] },
  });

  it('decides with plain JS input and output', () => {
    expect(rego.decide('authz/allow', { user: 'alice', action: 'write' })).toBe(true);
    expect(rego.decide('data.authz.allow', { user: 'bob', action: 'write' })).toBe(false);
    expect(rego.decide('authz/reasons', { user: 'bob', action: 'write' })).toEqual(['bob may not write']);
  });

  it('prepares once and evaluates many times, in OPA result shape', () => {
    const q = rego.prepare('some u; data.bindings[u][_] == "admin"; x := u');
    const r = q.evaluate({});
    expect(r).toHaveLength(1);
    expect(r[0]!.bindings).toEqual({ u: 'alice', x: 'alice' });
    // a bare `some u` is not an expression of the compiled query (OPA drops it)
    expect(r[0]!.expressions.map((e) => e.text)).toEqual(['data.bindings[u][_] == "admin"', 'x := u']);
    const q2 = rego.prepare('data.authz.allow');
    for (const [user, action, want] of [
      ['alice', 'read', true],
      ['bob', 'read', true],
      ['carol', 'read', false],
    ] as const)
      expect(q2.evaluate({ input: { user, action } })[0]!.expressions[0]!.value).toBe(want);
  });

  it('returns sets as arrays and undefined as no result', () => {
    const r = new Regolith().addModule('a.rego', 'package a\n\ns := {3, 1, 2}\n\nu if input.nope\n');
    expect(r.decide('a/s')).toEqual([1, 2, 3]);
    expect(r.prepare('data.a.u').evaluate({ input: {} })).toEqual([]);
  });

  it('decides slash paths whose segments are not identifiers, and packages named like data', () => {
    const r = new Regolith()
      .addModule('a.rego', 'package app\n\nrules["allow-all"] := input.ok\n\nx := {"0": "zero", "in": 1}\n')
      .addModule('d.rego', 'package database\n\nallow := true\n');
    expect(r.decide('app/rules/allow-all', { ok: 7 })).toBe(7);
    expect(r.decide('/app/x/0')).toBe('zero');
    expect(r.decide('app/x/in')).toBe(1);
    expect(r.decide('database/allow')).toBe(true);
    expect(r.decide('data.database.allow')).toBe(true);
    expect(r.decide('data.app.rules["allow-all"]', { ok: 1 })).toBe(1);
  });

  it('raises typed evaluation errors', () => {
    const r = new Regolith().addModule('a.rego', 'package a\n\np := x if x := [1, 2][_]\n\nf(x) := 1\nf(x) := 2\n\nq := f(0)\n');
    expect(() => r.decide('a/p')).toThrow(RegoEvalError);
    try {
      r.decide('a/q');
    } catch (e) {
      expect((e as RegoEvalError).code).toBe('eval_conflict_error');
      expect((e as RegoEvalError).message).toContain('functions must not produce multiple outputs for same inputs');
    }
  });

  it('honours strict built-in errors', () => {
    const r = new Regolith().addModule('a.rego', 'package a\n\np := to_number("x")\n');
    expect(r.decide('a/p')).toBeUndefined();
    const strict = new Regolith({ strictBuiltinErrors: true }).addModule('a.rego', 'package a\n\np := to_number("x")\n');
    expect(() => strict.decide('a/p')).toThrow(/eval_builtin_error/);
  });

  it('sends print output to the sink, never into the result', () => {
    const lines: string[] = [];
    const r = new Regolith({ print: (m) => lines.push(m) }).addModule('a.rego', 'package a\n\np if {\n  print("hello", input.x, input.missing)\n}\n');
    expect(r.decide('a/p', { x: [1] })).toBe(true);
    expect(lines).toEqual(['hello [1] <undefined>']);
  });

  it('keeps time.now_ns fixed within a query', () => {
    const r = new Regolith().addModule('a.rego', 'package a\n\np if {\n  a := time.now_ns()\n  b := [x | x := numbers.range(1, 2000)[_]]\n  count(b) > 0\n  a == time.now_ns()\n}\n');
    expect(r.decide('a/p')).toBe(true);
  });

  it('memoises correctly under with', () => {
    const r = new Regolith().addModule('a.rego', 'package a\n\nq := input.x\n\np := [a, b, c] if {\n  a := q with input.x as 1\n  b := q with input.x as 2\n  c := q\n}\n');
    expect(r.decide('a/p', { x: 3 })).toEqual([1, 2, 3]);
  });

  it('ends evaluation cleanly on time budget, cancellation and depth limits', () => {
    const r = new Regolith().addModule('a.rego', 'package a\n\nxs := numbers.range(1, 3000)\n\np := count([1 | xs[_]; xs[_]])\n');
    expect(() => r.prepare('data.a.p').evaluate({ timeoutMs: 20 })).toThrow(expect.objectContaining({ code: 'eval_cancel_error' }));
    const ac = new AbortController();
    ac.abort();
    expect(() => r.prepare('data.a.xs').evaluate({ signal: ac.signal })).toThrow(expect.objectContaining({ code: 'eval_cancel_error' }));
    const deep = new Regolith().addModule('d.rego', 'package d\n\na := b + 1\nb := c + 1\nc := d + 1\nd := 1\n');
    expect(deep.decide('d/a')).toBe(4);
    expect(() => deep.prepare('data.d.a').evaluate({ maxDepth: 2 })).toThrow(RegoEvalError);
  });

  it('indexes many rules on input equality and still answers exactly', () => {
    const rules: string[] = ['package gw', '', 'default allow := false'];
    for (let i = 0; i < 2000; i++) rules.push(`allow if {\n  input.method == "${i % 2 ? 'GET' : 'POST'}"\n  input.path == "/api/r${i}"\n}`);
    const r = new Regolith().addModule('gw.rego', rules.join('\n\n'));
    const q = r.prepare('data.gw.allow');
    expect(q.evaluate({ input: { method: 'GET', path: '/api/r7' } })[0]!.expressions[0]!.value).toBe(true);
    expect(q.evaluate({ input: { method: 'POST', path: '/api/r7' } })[0]!.expressions[0]!.value).toBe(false);
    expect(q.evaluate({ input: { method: 'POST', path: '/api/r8' } })[0]!.expressions[0]!.value).toBe(true);
  });

  it('waits on http.send in evaluateAsync and refuses it in evaluate', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ roles: ['admin'] }));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    try {
      const r = new Regolith().addModule(
        'h.rego',
        `package h\n\nallow if {\n  resp := http.send({"method": "GET", "url": "http://127.0.0.1:${port}/u"})\n  "admin" in resp.body.roles\n}\n`,
      );
      const q = r.prepare('data.h.allow');
      expect(() => q.evaluate({})).toThrow(IOPending);
      const out = await q.evaluateAsync({});
      expect(out[0]!.expressions[0]!.value).toBe(true);
    } finally {
      server.close();
    }
  });
});

describe('explain and metrics', () => {
  it('reports OPA timer names and trace notes', async () => {
    const { BufferTracer } = await import('../../src/index.js');
    const r = new Regolith().addModule('a.rego', 'package a\n\np if {\n  trace("checking")\n  q\n}\n\nq := true\n');
    const metrics: Record<string, number> = {};
    const tracer = new BufferTracer('full');
    const pq = r.prepare('data.a.p', metrics);
    expect(pq.evaluate({ metrics, tracer })[0]!.expressions[0]!.value).toBe(true);
    expect(metrics['timer_rego_query_eval_ns']).toBeGreaterThan(0);
    expect(metrics['timer_rego_query_compile_ns']).toBeGreaterThan(0);
    const lines = tracer.lines();
    expect(lines.some((l) => l.includes('Note "checking"'))).toBe(true);
    expect(lines.some((l) => l.includes('Enter data.a.p'))).toBe(true);
  });
});

describe('null documents', () => {
  it('a null value comes back as null, not true', () => {
    const r = new Regolith().setData({ n: null });
    expect(r.prepare('data.n').evaluate()).toEqual([{ expressions: [{ value: null, text: 'data.n', location: { row: 1, col: 1 } }], bindings: {} }]);
    r.addModule('p.rego', 'package p\n\nv := null\n');
    expect(r.decide('p/v')).toBeNull();
  });
});

describe('inputs changed between evaluations', () => {
  it('are read afresh each time (no stale key order or hashes)', () => {
    const r = new Regolith().addModule('k.rego', 'package k\n\nkeys := [k | some k, _ in input]\n\nnames := {x | some x in input}\n');
    const input: Record<string, unknown> = { b: 1, a: 2 };
    expect(r.decide('k/keys', input)).toEqual(['a', 'b']);
    input.c = 3;
    delete input.a;
    expect(r.decide('k/keys', input)).toEqual(['b', 'c']);
    expect(r.decide('k/names', input)).toEqual([1, 3]);
  });
});

describe('decide', () => {
  it('answers from the current modules and data after they change', () => {
    const r = new Regolith().addModule('a.rego', 'package a\n\nv := 1\n');
    expect(r.decide('a/v')).toBe(1);
    r.addModule('a.rego', 'package a\n\nv := data.x\n').setData({ x: 2 });
    expect(r.decide('a/v')).toBe(2);
    r.setData({ x: 3 });
    expect(r.decide('data.a.v')).toBe(3);
    r.removeModule('a.rego');
    expect(r.decide('a/v')).toBeUndefined();
  });
});
