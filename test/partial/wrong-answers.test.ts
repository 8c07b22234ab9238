// Partial evaluation must never answer wrongly: for each shape that once did (issue 24),
// the residual queries with their support modules, read back in as Rego, must give the
// answers the full query gives, for concrete values of the unknowns including missing
// ones and ones of the wrong type. Meaning is compared, never text.

import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';

interface World {
  input?: unknown;
  data?: unknown;
}

interface Case {
  modules: string[];
  query: string;
  /** Query variables whose values must agree (else: whether the query holds). */
  vars?: string[];
  /** What partial evaluation is told: known input and data, and the unknowns. */
  known?: { input?: unknown; data?: unknown };
  unknowns?: string[];
  disableInlining?: string[];
  worlds: World[];
}

/** The answers of a body-semantics query: one line per solution (sorted), or none. */
function answers(modules: string[], queries: string[], vars: string[], w: World): string[] {
  if (!queries.length) return [];
  const r = new Regolith().setData(w.data ?? {});
  modules.forEach((m, i) => r.addModule(`m${i}.rego`, m));
  const head = `[${vars.join(', ')}]`;
  r.addModule('q.rego', `package q\n\n${queries.map((q) => `ok contains ${head} if {\n${q.trim() || 'true'}\n}`).join('\n\n')}\n`);
  const out = r.prepare('x = data.q.ok').evaluate({ input: w.input });
  const set = out[0]?.bindings['x'] as unknown[] | undefined;
  return (set ?? []).map((v) => JSON.stringify(v)).sort();
}

function check(c: Case): void {
  const p = new Regolith()
    .setData(c.known?.data ?? {})
    .addModule('t.rego', c.modules[0]!)
    .prepare(c.query)
    .partial({ input: c.known?.input, unknowns: c.unknowns ?? ['input'], disableInlining: c.disableInlining });
  const vars = c.vars ?? [];
  for (const w of c.worlds) {
    const want = answers(c.modules, [c.query], vars, w);
    const got = answers(p.supportText, p.queriesText, vars, w);
    expect(got, `--- world ${JSON.stringify(w)}\n--- residual\n${p.queriesText.join('\n--\n')}\n--- support\n${p.supportText.join('\n')}`).toEqual(want);
  }
}

const inputs = (...xs: unknown[]): World[] => xs.map((input) => (input === undefined ? {} : { input }));

describe('partial evaluation gives no wrong answers (issue 24)', () => {
  it('1: multi-value rules with general ref heads', () => {
    const module = `package test
p[x] contains y if { y = {a: b}; a = "foo"; b = input.x; x := 42 }
p[x] contains y if { y = {a: b}; a = "bar"; b = input.x; x := input.y }`;
    const worlds = inputs(undefined, {}, { x: 1 }, { x: 2 }, { x: 1, y: 42 }, { x: 1, y: 'k' }, { y: 7 }, { x: [1] });
    check({ modules: [module], query: 'data.test.p[x][y].foo = 1', vars: ['x', 'y'], worlds });
    check({ modules: [module], query: 'data.test.p[42][y].foo = 1', vars: ['y'], worlds });
    check({ modules: [module], query: 'data.test.p[x][y].bar = 1', vars: ['x', 'y'], worlds });
    check({ modules: [module], query: 'x = data.test.p', vars: ['x'], worlds });
    check({ modules: [module], query: 'x = data.test.p[42]', vars: ['x'], worlds });
    check({ modules: [module], query: 'data.test.p[x] = {{"foo": 1}}', vars: ['x'], worlds });
  });

  it('2: default functions', () => {
    const module = `package test
default f(x) := true
f(x) if x.size < 100
p if f(input.x)
q := f(input.x)`;
    const worlds = inputs(undefined, {}, { x: {} }, { x: { size: 5 } }, { x: { size: 500 } }, { x: 'big' }, { x: { size: '5' } });
    check({ modules: [module], query: 'data.test.p', worlds });
    check({ modules: [module], query: 'x = data.test.q', vars: ['x'], worlds });
    const fn = `package test
default g(_) := 0
g(x) := 1 if x > 10
g(x) := 2 if x < -10
r := g(input.n)`;
    check({ modules: [fn], query: 'x = data.test.r', vars: ['x'], worlds: inputs(undefined, {}, { n: 11 }, { n: 0 }, { n: -20 }, { n: 'a' }) });
    // read whole (disableInlining): the support function keeps its default with arguments
    check({ modules: [fn], query: 'x = data.test.r', vars: ['x'], disableInlining: ['data.test.g'], worlds: inputs(undefined, { n: 11 }, { n: 0 }, { n: -20 }) });
  });

  it('3: default rules whose other definition binds variables', () => {
    const module = `package test
default p = 0
p = x if input.x = x
default q := "none"
q := input.y if input.x > 1`;
    const worlds = inputs(undefined, {}, { x: 3 }, { x: 0, y: 'a' }, { x: 3, y: 'b' }, { x: false });
    check({ modules: [module], query: 'y = data.test.p', vars: ['y'], worlds });
    check({ modules: [module], query: 'y = data.test.q', vars: ['y'], worlds });
    check({ modules: [module], query: 'data.test.p == 0', worlds });
  });

  it('4: rules below a document read whole are in its support', () => {
    const module = `package test
p[a].q = {b: c} if { a = input.a; b = "foo"; c = 1 }
p[a].q = {b: c} if { a = input.b; b = "bar"; c = 2 }
p.foo.r = a if { a = "baz" }
p.foo.s = a if { a = input.c }`;
    const worlds = inputs(undefined, {}, { a: 'x' }, { a: 'x', b: 'y', c: 3 }, { c: 'z' }, { a: 'foo' });
    check({ modules: [module], query: 'z = data.test.p', vars: ['z'], worlds });
    check({ modules: [module], query: 'data.test.p[x] = z', vars: ['x', 'z'], worlds });
    check({ modules: ['package test\np.foo.r = "baz"\np.bar[k] := 1 if k := input.k'], query: 'z = data.test.p', vars: ['z'], worlds: inputs(undefined, { k: 'a' }, { k: 2 }) });
  });

  it('5: an empty partial set stays an empty set', () => {
    const module = `package test
p contains x if { x = input.a; false }
s contains x if { x = input.a; x = 1; x = 2 }
o[k] := 1 if { k = input.a; false }`;
    const worlds = inputs(undefined, {}, { a: 1 });
    check({ modules: [module], query: 'x = data.test.p', vars: ['x'], worlds });
    check({ modules: [module], query: 'x = data.test.s', vars: ['x'], worlds });
    check({ modules: [module], query: 'x = data.test.o', vars: ['x'], worlds });
  });

  it('6: unknowns deeper than one segment under data', () => {
    const module = `package test
p if input.level >= data.reports.items[_].level
q contains x if { x = data.reports.items[_]; x.level > 1 }`;
    const data = (items: unknown): World['data'] => ({ reports: { items, other: 1 } });
    const worlds: World[] = [
      { input: { level: 2 }, data: data([{ level: 1 }]) },
      { input: { level: 2 }, data: data([{ level: 3 }]) },
      { input: { level: 2 }, data: { reports: { other: 1 } } },
      { input: { level: 2 }, data: data('x') },
      { input: {}, data: data([{ level: 1 }]) },
    ];
    const known = { input: { level: 2 }, data: { reports: { other: 1 } } };
    check({ modules: [module], query: 'data.test.p', known, unknowns: ['data.reports.items'], worlds: worlds.slice(0, 4) });
    check({ modules: [module], query: 'x = data.test.q', vars: ['x'], known, unknowns: ['data.reports.items'], worlds: worlds.slice(0, 4) });
    check({ modules: [module], query: 'data.test.p', unknowns: ['input', 'data.reports.items'], known: { data: { reports: { other: 1 } } }, worlds });
  });

  it('7: every inside a function called with input', () => {
    const module = `package test
f(x) if { every y in x.items { y > 1 } }
g(x) if { every y in x { y > 1 } }
p if f(input)
q if g(input)
r if g(input.xs)
h(x) if { every y in [1, 2] { y > 0 } }
s if h(input)`;
    const worlds = inputs(undefined, {}, { items: [] }, { items: [2, 3] }, { items: [0] }, { items: 'a' }, [2], [0], 'str', { xs: [2] }, { xs: 5 });
    for (const q of ['data.test.p', 'data.test.q', 'data.test.r', 'data.test.s', 'not data.test.p']) check({ modules: [module], query: q, worlds });
  });

  it('with over a rule that is false fails', () => {
    const module = `package t
default h0 := false
h0 if input.row.price < 100
allow if {
  data.limits.max_price > 1
  h0 with input.row.price as 150
}
allow2 if {
  data.limits.max_price > 1
  h0 with input.row.price as 50
}`;
    const data = { limits: { max_price: 10 } };
    const worlds: World[] = [{ data, input: {} }, { data, input: { row: { price: 1 } } }, { data, input: { row: { price: 500 } } }];
    for (const query of ['data.t.allow', 'data.t.allow2']) {
      check({ modules: [module], query, known: { data }, unknowns: ['input.row'], worlds });
      // the rule under `with` depends on no unknown: it is evaluated, and false fails
      check({ modules: [module], query, known: { input: {} }, unknowns: ['data.limits'], worlds: [{ data, input: {} }, { data: { limits: { max_price: 0 } }, input: {} }, { input: {} }] });
    }
  });

  it('a partly unknown document read whole', () => {
    const module = `package t
allow if startswith(object.get(input.row, "owner", "none"), "b")
n := count(input.row)`;
    const known = { input: { row: { tenant: 't1' } } };
    const worlds = [{}, { owner: 'bob' }, { owner: 'amy' }, { owner: 5 }].map((row) => ({ input: { row: { ...row, tenant: 't1' } } }));
    check({ modules: [module], query: 'data.t.allow', known, unknowns: ['input.row.owner'], worlds });
    check({ modules: [module], query: 'x = data.t.n', vars: ['x'], known, unknowns: ['input.row.owner'], worlds });
  });

  it('every over a non-iterable fails', () => {
    const module = `package t
allow if every t in input.row.tags { t != "x" }
deny if every t in input.k { t != "x" }`;
    const worlds = [{ row: { tags: 'pub' } }, { row: { tags: [] } }, { row: { tags: ['x'] } }, { row: {} }].map((input) => ({ input: { ...input, k: 5 } }));
    check({ modules: [module], query: 'data.t.allow', known: { input: { k: 5 } }, unknowns: ['input.row'], worlds });
    check({ modules: [module], query: 'data.t.deny', known: { input: { k: 5 } }, unknowns: ['input.row'], worlds });
    // a known domain that is not a collection, with a body over the unknowns
    const m2 = 'package t\nallow if every t in input.row.tags { t != input.row.owner }';
    const w2 = [{ tags: 'pub' }, { tags: 'pub', owner: 'pub' }].map((row) => ({ input: { row } }));
    check({ modules: [m2], query: 'data.t.allow', known: { input: { row: { tags: 'pub' } } }, unknowns: ['input.row.owner'], worlds: w2 });
  });

  it('else when the first branch\'s head value is undefined', () => {
    const module = `package t
lvl := data.limits.t[input.row.tenant] if { input.user.level } else := input.user.level
lvl2 := input.row.x if { true } else := 7`;
    const data = { limits: { t: { t1: 'a', t2: 'b' } } };
    const worlds = [{}, { tenant: 't1' }, { tenant: 't9' }, { tenant: 5 }, { x: 3 }].flatMap((row) => [
      { data, input: { row, user: { level: 'u' } } },
      { data, input: { row, user: { level: false } } },
    ]);
    check({ modules: [module], query: 'x = data.t.lvl', vars: ['x'], known: { data, input: { user: { level: 'u' } } }, unknowns: ['input.row'], worlds: worlds.filter((w) => (w.input.user.level as unknown) === 'u') });
    check({ modules: [module], query: 'x = data.t.lvl', vars: ['x'], known: { data }, unknowns: ['input'], worlds });
    check({ modules: [module], query: 'x = data.t.lvl2', vars: ['x'], known: { data }, unknowns: ['input'], worlds });
  });

  it('support modules read back in', () => {
    const rows = [{}, { tenant: 't1', price: 10 }, { tenant: 't2', price: '2' }, { tenant: 3, price: 200 }];
    const data = { s: '2' };
    const worlds = rows.map((row) => ({ input: { row }, data }));
    const module = `package p
by[input.row.tenant].carol := 1 if input.row.price > 1
o[input.row.tenant] := true if input.row.price < 100
default f(_) := 0
f(x) := 1 if x > input.row.price
f0(x) if x.a > input.row.price
d := minus(data.s, input.row.price) if input.row.price
allow if f0({"a": 200}) with input.row.price as 150
v := f(3)`;
    for (const q of ['x = data.p.by', 'x = data.p.o', 'x = data.p.v', 'x = data.p.d', 'x = data.p.allow'])
      check({ modules: [module], query: q, vars: ['x'], known: { data }, unknowns: ['input.row'], disableInlining: ['data.p.f', 'data.p.by', 'data.p.o', 'data.p.d'], worlds });
    check({ modules: [module], query: 'data.p.allow', known: { data }, unknowns: ['input.row'], worlds });
  });
});
