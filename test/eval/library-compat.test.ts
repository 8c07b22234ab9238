// Issue 11: behaviours real policy libraries rely on, each a case where Regolith once
// answered differently from OPA (some silently). Expected values are OPA v1's answers.
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';

function value(modules: Record<string, string>, query: string, input?: unknown, regoVersion?: 'v0' | 'v1'): unknown {
  const r = new Regolith();
  for (const [name, text] of Object.entries(modules)) r.addModule(name, text, regoVersion ? { regoVersion } : {});
  const res = r.prepare(query).evaluate(input === undefined ? {} : { input });
  return res.length ? res[0]!.expressions[0]!.value : undefined;
}

describe('comprehensions in rule heads are planned in their reordered order', () => {
  const mod = `package t
x := {1, 2, 3, 4, 5, 6}
p := {a | b > a * 2; x[a]; x[b]}
q := {a | b := a / 3; x[a]; x[b]}
arr := [a | b > a * 2; x[a]; x[b]]
obj := {sprintf("%d", [a]): true | b > a * 2; x[a]; x[b]}
nested := [{a | b > a * 2; x[a]; x[b]}]
f(n) := {a | b > a * n; x[a]; x[b]}
s contains {a | b > a * 2; x[a]; x[b]}
g[k] := {a | b > a * k; x[a]; x[b]} if some k in [2, 3]
`;
  it.each([
    ['data.t.p', [1, 2]],
    ['data.t.q', [3, 6]],
    ['data.t.arr', [1, 1, 1, 1, 2, 2]],
    ['data.t.obj', { 1: true, 2: true }],
    ['data.t.nested', [[1, 2]]],
    ['data.t.f(2)', [1, 2]],
    ['data.t.s', [[1, 2]]],
    ['data.t.g', { 2: [1, 2], 3: [1] }],
  ])('%s', (query, want) => {
    expect(value({ 't.rego': mod }, query)).toEqual(want);
  });
});

describe('zero-argument functions are complete rules, read by name or called', () => {
  const v0 = `package lib

input_review() = x { x := input.review }

canonical() = out { input.kind == "a"; out := "A" } else = out { out := "other" }

has_review() { input.review }

uses_bare = input_review
uses_call = input_review()
keys = object.keys(input_review)
wrapped = w { w := concat("-", [canonical, canonical()]) }
out_form { canonical(x); x == "other" }
ok { has_review() }
ok2 { has_review }
under_with = v { v := canonical with input.kind as "a" }
replaced = v { v := canonical() with data.lib.canonical as "M" }
`;
  const input = { review: { a: 1 } };
  it.each([
    ['data.lib.uses_bare', { a: 1 }],
    ['data.lib.uses_call', { a: 1 }],
    ['data.lib.keys', ['a']],
    ['data.lib.input_review', { a: 1 }],
    ['data.lib.canonical', 'other'],
    ['data.lib.wrapped', 'other-other'],
    ['data.lib.out_form', true],
    ['data.lib.ok', true],
    ['data.lib.ok2', true],
    ['data.lib.under_with', 'A'],
    ['data.lib.replaced', 'M'],
  ])('v0: %s', (query, want) => {
    expect(value({ 'lib.rego': v0 }, query, input, 'v0')).toEqual(want);
  });

  it('v0: undefined when the body fails, and the package document lists the rule by name', () => {
    expect(value({ 'lib.rego': v0 }, 'data.lib.ok', {}, 'v0')).toBeUndefined();
    const doc = value({ 'lib.rego': v0 }, 'data.lib', { kind: 'a' }, 'v0') as Record<string, unknown>;
    expect(doc['canonical']).toBe('A');
    expect(doc).not.toHaveProperty('input_review');
  });

  it('v1, across packages through an import, and in a query', () => {
    const mods = {
      'a.rego': 'package lib\nimport data.lib2.helper\nf() := 3\ng() := x if { x := f() + helper() }\nh := [f, f(), helper, helper()]\n',
      'b.rego': 'package lib2\nhelper() := 7\n',
    };
    expect(value(mods, 'data.lib')).toEqual({ f: 3, g: 10, h: [3, 3, 7, 7] });
    expect(value(mods, 'data.lib.g() + data.lib2.helper')).toBe(17);
  });

  it('any complete rule may be called with (), as opa fmt turns f() := v into f := v; other documents may not', () => {
    expect(value({ 'x.rego': 'package x\np := 1\nq := p()\n' }, 'data.x.q')).toBe(1);
    expect(value({ 'x.rego': 'package x\ndefault p := 2\nq := p()\n' }, 'data.x.q')).toBe(2);
    expect(() => value({ 'x.rego': 'package x\ns contains 1\nq := s()\n' }, 'data.x.q')).toThrow(/undefined function data.x.s/);
    expect(() => value({ 'x.rego': 'package x\nq := data.y()\n', 'y.rego': 'package y\nz := 1\n' }, 'data.x.q')).toThrow(/undefined function data.y/);
  });
});

describe('a variable declared with := is not in scope in its own right-hand side', () => {
  it.each([
    ['output := a if { a := {x: a | some x in [0, 1, 2]; a = x * 2} }', 'output', { 0: 0, 1: 2, 2: 4 }],
    ['o := b if { b := [b | some b in [1, 2]] }', 'o', [1, 2]],
    ['o := a if { a := count([a | some a in [1, 2, 3]; a > 1]) }', 'o', 2],
    ['o := y if { some y in [y | some y in [5]] }', 'o', 5],
    ['o := [v, w] if { v := 1; w := {v | some v in [7]} }', 'o', [1, [7]]],
  ])('%s', (rule, name, want) => {
    expect(value({ 't.rego': `package t\n${rule}\n` }, `data.t.${name}`)).toEqual(want);
  });

  it('a later expression still sees the declared variable', () => {
    expect(value({ 't.rego': 'package t\no := c if { a := {x | some x in [1]}; c := [y | some y in a] }\n' }, 'data.t.o')).toEqual([1]);
  });
});

describe('unary minus before a reference or variable', () => {
  const mod = `package u
a := -input.n
b := y if { x := 3; y := -x }
c := v if { a1 := 10; b1 := 4; c1 := 1; v := a1 - (b1 + -c1) }
d := -f(2) * 3
e := [-1, -input.n, -input.arr[0]]
f(x) := x + 1
h if -input.n < 0
i := 5 - -input.n
big := -input.big
`;
  it.each([
    ['a', -4],
    ['b', -3],
    ['c', 7],
    ['d', -9],
    ['e', [-1, -4, -7]],
    ['h', true],
    ['i', 9],
  ])('data.u.%s', (name, want) => {
    expect(value({ 'u.rego': mod }, `data.u.${name}`, { n: 4, arr: [7], big: 1 })).toEqual(want);
  });

  it('is undefined for a non-number, like minus(0, x)', () => {
    expect(value({ 'u.rego': mod }, 'data.u.a', { n: 'four' })).toBeUndefined();
  });
});

describe('a var declared in a comprehension body may not be mentioned before its declaration', () => {
  const fails = (modules: Record<string, string>, query: string) => {
    const r = new Regolith();
    for (const [name, text] of Object.entries(modules)) r.addModule(name, text);
    return () => r.prepare(query).evaluate({});
  };
  it('in a comprehension in a rule head, at any depth, as in a rule body', () => {
    expect(fails({ 'h.rego': 'package h\np := [y | y > 1; y := 2]' }, 'data.h.p')).toThrow(/var y referenced above/);
    expect(fails({ 'h.rego': 'package h\np := {"k": {y | y > 1; y := 2}}' }, 'data.h.p')).toThrow(/var y referenced above/);
    expect(fails({ 'h.rego': 'package h\nf(x) := [y | y := x; y := 2]' }, 'data.h.f(1)')).toThrow(/var y assigned above/);
    expect(value({ 'h.rego': 'package h\np := [y | y > 1; y = 2]' }, 'data.h.p')).toEqual([2]);
  });
  it('in a top-level query and the comprehensions inside it', () => {
    expect(fails({}, 'y > 1; y := 2')).toThrow(/var y referenced above/);
    expect(fails({}, 'x := [y | y > 1; y := 2]')).toThrow(/var y referenced above/);
    expect(fails({}, 'x := 1; x := 2')).toThrow(/var x assigned above/);
    expect(fails({}, 'some x')).toThrow(/declared var x unused/);
  });
});
