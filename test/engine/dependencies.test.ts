// Query dependencies as OPA's dependencies package answers them (the shapes `opa deps`
// prints): base documents (input, data no rule defines), virtual documents (rules reached,
// transitively), refs cut at their first non-constant segment, vars bound to refs joined.

import { describe, expect, it } from 'vitest';
import { Regolith, dependencyJSON, dependencyText, queryDependencies } from '../../src/engine/index.js';

function deps(modules: Record<string, string>, query: string): { base: string[]; virtual: string[] } {
  const r = new Regolith();
  for (const [name, text] of Object.entries(modules)) r.addModule(name, text);
  const d = queryDependencies(r.compile(), query);
  return { base: d.base.map(dependencyText), virtual: d.virtual.map(dependencyText) };
}

describe('queryDependencies', () => {
  it("answers OPA's documented example", () => {
    const policy = 'package policy\n\nallow if is_admin\n\nis_admin if "admin" in input.user.roles\n';
    expect(deps({ 'p.rego': policy }, 'data.policy.allow')).toEqual({
      base: ['input.user.roles'],
      virtual: ['data.policy.allow', 'data.policy.is_admin'],
    });
  });

  it('follows imports, functions and packages, and cuts refs at a variable segment', () => {
    const modules = {
      'p.rego': `package p
import data.lib
allow if {
  some name
  data.users[name].active
  lib.f(1) > input.limit
}
deny contains msg if {
  msg := data.messages[input.code]
}`,
      'l.rego': 'package lib\n\nf(x) := y if y := x + data.offset.value\n',
    };
    expect(deps(modules, 'data.p.allow')).toEqual({
      base: ['data.offset.value', 'data.users', 'input.limit'],
      virtual: ['data.lib.f', 'data.p.allow'],
    });
    expect(deps(modules, 'data.p.deny')).toEqual({ base: ['data.messages', 'input.code'], virtual: ['data.p.deny'] });
    // A package depends on every rule under it.
    expect(deps(modules, 'x := data.p').virtual).toEqual(['data.lib.f', 'data.p.allow', 'data.p.deny']);
  });

  it('joins a var bound to a ref with the refs through it', () => {
    const policy = `package q
r if {
  u := data.users[input.id]
  u.role == "admin"
}`;
    expect(deps({ 'q.rego': policy }, 'data.q.r')).toEqual({ base: ['data.users', 'input.id'], virtual: ['data.q.r'] });
    const joined = `package q
r if {
  cfg := data.config
  cfg.mode == "strict"
}`;
    expect(deps({ 'q.rego': joined }, 'data.q.r').base).toEqual(['data.config.mode']);
  });

  it('keeps the shorter of two refs one under the other, and refs in heads and comprehensions', () => {
    const policy = `package h
v := data.a.b
w := [x | x := data.c[_].d]
both if { data.e; data.e.f }`;
    expect(deps({ 'h.rego': policy }, 'data.h.v').base).toEqual(['data.a.b']);
    expect(deps({ 'h.rego': policy }, 'data.h.w').base).toEqual(['data.c']);
    expect(deps({ 'h.rego': policy }, 'data.h.both').base).toEqual(['data.e']);
  });

  it('answers a query with no data or input refs with nothing, and a base-only query without rules', () => {
    expect(deps({}, 'x := 1')).toEqual({ base: [], virtual: [] });
    expect(deps({}, 'input.a.b == data.c["d-e"][0]')).toEqual({ base: ['data.c["d-e"][0]', 'input.a.b'], virtual: [] });
  });

  it('terminates on recursive references through rules visited once', () => {
    const policy = 'package r\n\na if b\nb if c\nc if input.x\n';
    expect(deps({ 'r.rego': policy }, 'data.r.a')).toEqual({ base: ['input.x'], virtual: ['data.r.a', 'data.r.b', 'data.r.c'] });
  });

  it("writes OPA's JSON form of a ref", () => {
    expect(dependencyJSON({ head: 'data', path: ['a', 0] })).toEqual([
      { type: 'var', value: 'data' },
      { type: 'string', value: 'a' },
      { type: 'number', value: 0 },
    ]);
  });
});
