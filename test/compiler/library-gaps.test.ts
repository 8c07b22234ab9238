// Issue 24: gaps found by running real policy libraries' own tests. Expected answers are
// OPA's (v1.20): what its compiler makes of `not` over a call whose argument is undefined,
// `import future.keywords.not`, and policies it accepts that Regolith once refused.
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';
import { parseModule } from '../../src/lang/index.js';
import { formatModule } from '../../src/lang/format/index.js';

interface Opts {
  input?: unknown;
  data?: unknown;
  regoVersion?: 'v0' | 'v1';
}

function engine(modules: Record<string, string>, o: Opts = {}): Regolith {
  const r = new Regolith();
  for (const [name, text] of Object.entries(modules)) r.addModule(name, text, o.regoVersion ? { regoVersion: o.regoVersion } : {});
  if (o.data !== undefined) r.setData(o.data);
  return r;
}

/** The value of the query's first expression, or undefined when it has no result. */
function value(modules: Record<string, string>, query: string, o: Opts = {}): unknown {
  const res = engine(modules, o)
    .prepare(query)
    .evaluate(o.input === undefined ? {} : { input: o.input });
  return res.length ? res[0]!.expressions[0]!.value : undefined;
}

/** Whether an ad-hoc query has any result. */
function holds(query: string, input: unknown = {}): boolean {
  return engine({ 'e.rego': 'package e\n' }).prepare(query).evaluate({ input }).length > 0;
}

describe('`not` over a call whose argument is undefined (OPA moves the argument out first)', () => {
  const lib = `package test
f(x) if x
p if not f(input.missing)
q if not startswith(input.missing, "a")
`;
  it('leaves p and q undefined when the argument is undefined', () => {
    expect(value({ 't.rego': lib }, 'data.test')).toEqual({});
  });
  it('still negates when the argument is defined', () => {
    expect(value({ 't.rego': lib }, 'data.test', { input: { missing: 'b' } })).toEqual({ q: true });
    expect(value({ 't.rego': lib }, 'data.test', { input: { missing: false } })).toEqual({ p: true, q: true });
  });

  const cases: [string, string, unknown, boolean][] = [
    // `==` is rewritten to `=` in modules before the move: a plain equality keeps its refs
    ['equality with a missing ref', 'not input.x == 1', {}, true],
    ['unification with a missing ref', 'not input.x = 1', {}, true],
    ['a missing ref alone', 'not input.x', {}, true],
    ['!= is a call: its ref argument is moved', 'not input.x != 1', {}, false],
    ['> is a call', 'not input.x > 1', {}, false],
    ['membership', 'not "admin" in input.roles', {}, false],
    ['membership, defined', 'not "admin" in input.roles', { roles: ['dev'] }, true],
    ['a call nested in an argument is moved too', 'not startswith(lower(input.name), "a")', {}, false],
    ['a nested call that is undefined', 'not startswith(g(0), "a")', {}, false],
    ['a nested call that is defined', 'not startswith(g(2), "a")', {}, false],
    ['a nested call that is defined, negation holds', 'not startswith(g(2), "b")', {}, true],
    ['count of a missing ref', 'not count(input.xs) > 0', {}, false],
    ['count of an empty array', 'not count(input.xs) > 0', { xs: [] }, true],
    ['a dynamic key of a ref (opa issue 4743)', 'not {"a": 1}[input.key]', {}, false],
    ['a dynamic key, defined', 'not {"a": 1}[input.key]', { key: 'b' }, true],
    ['a ref inside an array argument', 'not startswith(concat("", [input.name]), "a")', {}, false],
    ['a ref compared with a composite', 'not [input.x] = [1]', {}, false],
    ['a ref compared with a composite, other side', 'not [1] = [input.x]', {}, false],
  ];
  it.each(cases)('%s: %s', (_, expr, input, want) => {
    const mod = `package test\ng(x) := "abc" if x > 1\np if { ${expr} }\n`;
    expect(value({ 't.rego': mod }, 'data.test.p', { input })).toBe(want ? true : undefined);
  });

  it('applies in v0 modules too', () => {
    const mod = 'package test\np { not startswith(input.missing, "a") }\nq { not input.missing == 1 }\n';
    expect(value({ 't.rego': mod }, 'data.test', { regoVersion: 'v0' })).toEqual({ q: true });
  });

  it('applies in comprehension bodies, every bodies, else bodies and function bodies', () => {
    const mod = `package test
comp := [1 | not startswith(input.missing, "a")]
nested := {"k": [1 | not startswith(input.missing, "a")]}
ev if every x in [1] { x == 1; not startswith(input.missing, "a") }
el := 1 if { false } else := 2 if { not startswith(input.missing, "a") } else := 3
g(y) if not startswith(y.missing, "a")
fn if g(input)
`;
    expect(value({ 't.rego': mod }, 'data.test')).toEqual({ comp: [], nested: { k: [] }, el: 3 });
  });

  it('copies the expression’s `with` onto what it moves', () => {
    const mod = `package test
p if not startswith(input.name, "a") with input as {"name": "bob"}
q if not startswith(input.name, "a") with input as {}
`;
    expect(value({ 't.rego': mod }, 'data.test', { input: { name: 'alice' } })).toEqual({ p: true });
  });

  it('applies to ad-hoc queries, where `==` stays a call (no rewrite to `=` there)', () => {
    expect(holds('not startswith(input.missing, "a")')).toBe(false);
    expect(holds('not startswith(input.name, "a")', { name: 'bob' })).toBe(true);
    expect(holds('not input.missing = 1')).toBe(true);
    expect(holds('not input.missing == 1')).toBe(false);
    expect(holds('x := [1 | not startswith(input.missing, "a")]; count(x) == 0')).toBe(true);
  });

  it('partial evaluation keeps the moved argument: residuals answer as OPA does', () => {
    for (const [mod, whenMissing] of [
      ['package test\np if not startswith(input.name, "a")\n', false],
      ['package test\np if not count(input.xs) > 1\n', false],
    ] as const) {
      const r = engine({ 't.rego': mod });
      const { queries } = r.prepare('data.test.p').partial({ unknowns: ['input'] });
      const holdsFor = (input: unknown) => queries.some((q) => r.prepare(q).evaluate({ input }).length > 0);
      expect(holdsFor({}), mod).toBe(whenMissing);
      expect(holdsFor({ name: 'bob', xs: [] }), mod).toBe(true);
      expect(holdsFor({ name: 'alice', xs: [1, 2] }), mod).toBe(false);
    }
  });
});

describe('`import future.keywords.not` (OPA 1.17+): the whole negated expression stays inside `not`', () => {
  const body = `f(x) if x
p if not f(input.missing)
q if not startswith(input.missing, "a")
r if not startswith(lower(input.missing), "a")
s if not "admin" in input.roles
`;
  it('is accepted, and makes the negation succeed when a part is undefined', () => {
    const mod = `package test\nimport future.keywords.not\n${body}`;
    expect(value({ 't.rego': mod }, 'data.test')).toEqual({ p: true, q: true, r: true, s: true });
  });
  it('`import future.keywords` imports it too', () => {
    const mod = `package test\nimport future.keywords\n${body}`;
    expect(value({ 't.rego': mod }, 'data.test')).toEqual({ p: true, q: true, r: true, s: true });
  });
  it('is per module', () => {
    const a = `package a\nimport future.keywords.not\np if not startswith(input.missing, "a")\n`;
    const b = `package b\np if not startswith(input.missing, "a")\n`;
    expect(value({ 'a.rego': a, 'b.rego': b }, 'data')).toEqual({ a: { p: true }, b: {} });
  });
  it('`import rego.v1` does not', () => {
    const mod = `package test\nimport rego.v1\n${body}`;
    expect(value({ 't.rego': mod }, 'data.test')).toEqual({});
  });
  it('is accepted in v0 modules', () => {
    const mod = `package test\nimport future.keywords.not\np { not startswith(input.missing, "a") }\n`;
    expect(value({ 't.rego': mod }, 'data.test', { regoVersion: 'v0' })).toEqual({ p: true });
  });
  it('fmt writes the import as a name and keeps it when converting v0 to v1', () => {
    const v0 = 'package test\nimport future.keywords.not\nimport future.keywords.in\np { not "a" in input.x }\n';
    const out = formatModule(parseModule(v0, { regoVersion: 'v0' }), { regoVersion: 'v1' });
    expect(out).toBe('package test\n\nimport future.keywords.not\n\np if not "a" in input.x\n');
    expect(value({ 't.rego': out }, 'data.test.p')).toBe(true);
  });
  it('an unknown keyword lists OPA’s keywords', () => {
    expect(() => engine({ 't.rego': 'package test\nimport future.keywords.nope\n' }).compile()).toThrow(
      'unexpected keyword, must be one of [and contains every if in not or]',
    );
  });
});

describe('valid policies that were refused', () => {
  it('else on a rule whose ref head is ground after the name', () => {
    const mod = 'package test\np.q := 1 if input.x == 1 else := 2\n';
    expect(value({ 't.rego': mod }, 'data.test.p')).toEqual({ q: 2 });
    expect(value({ 't.rego': mod }, 'data.test.p', { input: { x: 1 } })).toEqual({ q: 1 });
  });
  it('else on a rule with a var in its ref head is still refused', () => {
    expect(() => engine({ 't.rego': 'package test\np[x] := 1 if x := 1 else := 2\n' }).compile()).toThrow(
      'else keyword cannot be used on rules with variables in head',
    );
  });
  it('`some` with a ref to an assigned var in its pattern', () => {
    const mod = `package test
p := y if {
  x := {"a": 1}
  some [x.a, y] in [[1, 2], [3, 4]]
}
q contains k if {
  x := {"a": 1}
  some k, [x.a, _] in {"one": [1, 0], "three": [3, 0]}
}
`;
    expect(value({ 't.rego': mod }, 'data.test')).toEqual({ p: 2, q: ['one'] });
  });
  it('a template string in a comprehension head', () => {
    const mod = 'package test\np := [$"v={x}" | some x in [1, 2]]\nq := {$"{k}={v}" | some k, v in {"a": 1}}\n';
    expect(value({ 't.rego': mod }, 'data.test')).toEqual({ p: ['v=1', 'v=2'], q: ['a=1'] });
  });
  it('a head value ref that binds the key (OPA moves refs out of the head)', () => {
    const mod = 'package test\nagg[f] := input.a[f]["k"] if some f\n';
    expect(value({ 't.rego': mod }, 'data.test.agg', { input: { a: { x: { k: 1 }, y: { k: 2 }, z: {} } } })).toEqual({ x: 1, y: 2 });
  });
  it('a head var no ref can bind is still unsafe', () => {
    expect(() => engine({ 't.rego': 'package test\nagg[f] := 1 if some f\n' }).compile()).toThrow('var f is unsafe');
  });
  it('a dynamic data ref links only to rules its constant segments can reach', () => {
    const mod = 'package test\nd := data[input.namespace].a\n';
    const o = { data: { ns1: { a: 5 } }, input: { namespace: 'ns1' } };
    expect(value({ 't.rego': mod }, 'data.test.d', o)).toBe(5);
    const other = 'package other\na := 7\n';
    expect(value({ 't.rego': mod, 'o.rego': other }, 'data.test.d', { ...o, input: { namespace: 'other' } })).toBe(7);
    expect(value({ 't.rego': mod, 'o.rego': other }, 'data.test.d', { ...o, input: { namespace: 'test' } })).toBeUndefined();
    const iter = 'package test\nall contains [ns, v] if { v := data[ns].a }\n';
    expect(value({ 't.rego': iter, 'o.rego': other }, 'data.test.all', o)).toEqual([['ns1', 5], ['other', 7]]);
  });
  it('a dynamic data ref that can reach the rule itself is still recursive', () => {
    expect(() => engine({ 't.rego': 'package test\nd := data[input.namespace].d\n' }).compile()).toThrow('rule data.test.d is recursive');
  });
});
