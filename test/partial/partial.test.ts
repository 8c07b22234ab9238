// Partial evaluation through the library: the shapes of the answer, what is kept
// unevaluated, the negation bound, generated names, and errors.

import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';
import { NOT_EXPANSION_LIMIT } from '../../src/partial/index.js';

const partial = (module: string, query: string, o: Parameters<ReturnType<Regolith['prepare']>['partial']>[0] = {}) =>
  new Regolith().addModule('t.rego', `package t\nimport rego.v1\n${module}`).prepare(query).partial(o);

describe('PreparedQuery.partial', () => {
  it('answers residual queries as AST and as Rego text, and support modules', () => {
    const r = partial('allow if input.x > 1\nallow if { input.y == "a"; not input.z }', 'data.t.allow', { unknowns: ['input'] });
    expect(r.queriesText).toEqual(['input.x > 1', 'input.y == "a"\nnot input.z']);
    expect(r.queries[1]!.map((e) => !!e.negated)).toEqual([false, true]);
    expect(r.support).toEqual([]);
    expect(r.compileResult()).toMatchObject({ queries: [[{ index: 0 }], [{ index: 0 }, { index: 1, negated: true }]] });
  });

  it('known input and data are evaluated away; the query is always or never true', () => {
    const always = partial('allow if input.role == "admin"', 'data.t.allow', { input: { role: 'admin' }, unknowns: ['input.row'] });
    expect(always.queries).toEqual([[]]);
    expect(always.compileResult()).toEqual({ queries: [[]] });
    const never = partial('allow if input.role == "admin"', 'data.t.allow', { input: { role: 'dev' }, unknowns: ['input.row'] });
    expect(never.queries).toEqual([]);
    expect(never.compileResult()).toEqual({});
  });

  it('keeps non-deterministic built-ins unevaluated unless asked to evaluate them', () => {
    const kept = partial('allow if time.now_ns() > input.t', 'data.t.allow', { unknowns: ['input.x'], input: { t: 0 } });
    expect(kept.queriesText).toEqual(['time.now_ns(__p0__)\n__p0__ > 0']);
    const evaluated = partial('allow if time.now_ns() > input.t', 'data.t.allow', { unknowns: ['input.x'], input: { t: 0 }, nondeterministicBuiltins: true });
    expect(evaluated.queries).toEqual([[]]);
  });

  it('generated variables cannot collide with the policy\'s own names', () => {
    const r = partial('allow if { some __p0__ in input.xs; __p0__ > 1 }', 'data.t.allow', { unknowns: ['input'] });
    const text = r.queriesText.join('\n');
    expect(text).toMatch(/__p\d+__/);
    // the user's __p0__ was renamed by the compiler and never reaches the residual as such
    expect(new Regolith().addModule('q.rego', `package q\nok if {\n${text}\n}`).prepare('data.q.ok').evaluate({ input: { xs: [0, 2] } })).toHaveLength(1);
  });

  it('a negation over many alternatives becomes a support rule instead of an exponential expansion', () => {
    const bodies = Array.from({ length: 12 }, (_, i) => `bad if { input.a${i} == 1; input.b${i} == 2 }`).join('\n');
    const t0 = Date.now();
    const r = partial(`${bodies}\nallow if { input.ok; not bad }`, 'data.t.allow', { unknowns: ['input'] });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(2 ** 12).toBeGreaterThan(NOT_EXPANSION_LIMIT);
    expect(r.queriesText).toEqual(['input.ok\nnot data.partial.__not0__']);
    expect(r.supportText[0]).toContain('package partial');
    expect(r.support[0]!.rules).toHaveLength(12);
  });

  it('a policy whose alternatives multiply stops with an error, not an answer too large to use', () => {
    const rules = ['a', 'b', 'c', 'd', 'e'].map((n) => Array.from({ length: 8 }, (_, i) => `${n} if input.${n}${i}`).join('\n')).join('\n');
    expect(() => partial(`${rules}\nallow if { a; b; c; d; e }`, 'data.t.allow', { unknowns: ['input'] })).toThrow(/more than 10000 queries/);
  });

  it('stops at the deadline', () => {
    const rules = ['a', 'b', 'c', 'd'].map((n) => Array.from({ length: 9 }, (_, i) => `${n} if input.${n}${i}`).join('\n')).join('\n');
    expect(() => partial(`${rules}\nallow if { a; b; c; d }`, 'data.t.allow', { unknowns: ['input'], timeoutMs: 1 })).toThrow(/cancel/);
  });

  it('rejects unknowns that are not refs of input or data', () => {
    expect(() => partial('p := 1', 'data.t.p', { unknowns: ['x.y'] })).toThrow(/invalid unknown/);
    expect(() => partial('p := 1', 'data.t.p', { unknowns: ['input[x]'] })).toThrow(/invalid unknown/);
  });

  it('keeps a `with` over unknowns on the expression, as OPA does, with its values plugged in', () => {
    expect(partial('q if input.x\nallow if q with data.foo as 1', 'data.t.allow', { unknowns: ['input'] }).queriesText).toEqual(['data.t.q with data.foo as 1']);
    // a value bound before the expression is plugged in; its outputs are residual variables
    const r = partial('q := data.foo\nallow := y if {\n\tx := [input.a]\n\ty := q with data.foo as x\n}', 'data.t.allow = z', { unknowns: ['input'] });
    expect(r.queriesText).toEqual(['__p0__ = data.t.q with data.foo as [input.a]\nz = __p0__']);
    // a replacement the expression cannot reach is dropped
    expect(partial('f(x) := x\nallow if { y := input.a; y == 1 with f as g }\ng(_) := 2', 'data.t.allow', { unknowns: ['input'] }).queriesText).toEqual(['input.a == 1']);
  });

  it('a `with` expression inside a comprehension or every kept whole reads the policy\'s own documents', () => {
    const module = 'q := data.foo\nxs := [v | v := q with data.foo as input.a]\nall_q if every v in input.vs { v == q with data.foo as input.a }\nknown_q := [v | some v in input.vs; v == q with data.foo as 2]';
    const base = () => new Regolith().setData({ foo: 1 }).addModule('t.rego', `package t\nimport rego.v1\n${module}`);
    for (const q of ['x := data.t.xs', 'x := data.t.all_q', 'x := data.t.known_q']) {
      const r = base().prepare(q).partial({ unknowns: ['input'] });
      const back = base().addModule('s.rego', r.supportText.join('\n') || 'package partial.none').addModule('q.rego', `package q\nimport rego.v1\nout contains x if {\n${r.queriesText[0] ?? 'false'}\n}`);
      for (const input of [{ a: 2, vs: [2, 2] }, { a: 1, vs: [1] }, { a: 3, vs: [2] }, { vs: [] }, {}]) {
        const want = base().prepare(q).evaluate({ input }).map((x) => x.bindings['x']);
        expect(back.prepare('x = data.q.out[_]').evaluate({ input }).map((x) => x.bindings['x']), `${q} ${JSON.stringify(input)}\n${r.queriesText.join('\n--\n')}`).toEqual(want);
      }
    }
  });

  it('a kept `with` expression reads the input known at partial evaluation, not the reader\'s', () => {
    const module = 'cap if {\n\tdata.limits.max > input.row.price\n\tinput.user == "bob"\n}\nok if cap with data.limits.max as 10\nlow if cap with data.limits.max as input.row.cap';
    for (const q of ['data.t.ok', 'data.t.low']) {
      const r = partial(module, q, { input: { user: 'bob' }, unknowns: ['input.row'] });
      expect(r.queriesText.join('\n')).toContain('with input.user as "bob"');
      // read back with only the unknown part of the input: the known part is pinned
      const back = new Regolith().addModule('t.rego', `package t\nimport rego.v1\n${module}`);
      back.addModule('q.rego', `package q\nok if {\n${r.queriesText[0]}\n}`);
      for (const row of [{ price: 5, cap: 20 }, { price: 50, cap: 20 }, {}])
        expect(back.prepare('data.q.ok').evaluate({ input: { row } }).length, JSON.stringify(row)).toBe(
          new Regolith().addModule('t.rego', `package t\nimport rego.v1\n${module}`).prepare(q).evaluate({ input: { user: 'bob', row } }).length,
        );
    }
  });
});
