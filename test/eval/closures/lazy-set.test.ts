// A loop over a partial set rule runs the rule's solutions straight into its body when
// nothing can tell the difference (src/eval/closures/lazy-set.ts). Generated policies
// and inputs: each answer (value, undefined or error) must be that of a traced run, which
// never takes the lazy path and builds the set, as it always did.
import { describe, expect, it } from 'vitest';
import { BufferTracer, Regolith } from '../../../src/index.js';
import { lazySets } from '../../../src/eval/closures/lazy-set.js';
import { seededRandom } from '../../seeded-random.js';

// Set rules: the first five can never fail (lazy); the rest can (a built-in, a rule, a
// comprehension), so their loops must build the set.
const SET_RULES = [
  's contains x if { some x in data.d.xs }',
  's contains x if { some x in input.xs; x != input.n }',
  's contains o.v if { some o in data.d.objs; o.k == input.k }',
  's contains [k, x] if { some k, v in data.d.m; some x in v }',
  's contains x if { some y in data.d.xs; x := y; not x == input.n }',
  's contains x if { some x in data.d.xs; x / input.n > 1 }',
  's contains x if { some x in data.d.xs; x == one }',
  's contains x if { x := count([y | some y in input.xs]) }',
  's contains x if { some x in input.xs; x == data.p.two }',
  's contains x if { some x in input.xs; x == bad }',
];

// Loops over s, with every kind of consumer: constant and variable values (conflicts),
// defaults, else, functions, nested loops, comprehensions, every, ref heads and with.
const CONSUMERS = `
c1 if { some g in s; g == input.k }
c2 := g if { some g in s; g == input.k }
c3 := v if { some g in s; v := g }
default c4 := false
c4 if { some g in s; is_number(g); g > input.n }
c5 if { some g in s; g == 1 } else := "e" if { some g in s; g == 2 }
f(y) if { some g in s; g == y }
c6 if f(input.n)
c6b := y if { some g in s; y := f(g) }
t contains [g, h] if { some g in s; some h in s; g != h; is_number(g) }
o := {g: true | some g in s}
e if every g in s { g != input.n }
r[g] := true if { some g in s; is_string(g) }
w1 := x if { x := c1 with input.k as 3 }
w2 := x if { x := c2 with data.d.xs as [input.k, 9] }
w3 := x if { x := c3 with data.d.xs as [1] with input.xs as [] }
w4 := x if { x := c2 with data.p.s as {input.n, "z"} }
nested if { some g in s; some a in s; a == g; c1 }
outer if { some y in input.xs; some g in s; g == y }
quot := x if { some g in s; x := 10 / g }
one := 1
two := 2
bad := x if { some x in data.d.xs }
`;

function policy(rules: string[]): string {
  return `package p\n\n${rules.join('\n')}\n${CONSUMERS}`;
}

type Draw = () => number;

function value(r: Draw): unknown {
  const x = r();
  if (x < 0.5) return Math.floor(r() * 4);
  if (x < 0.8) return ['a', 'b', 'c'][Math.floor(r() * 3)];
  return [1, 'a'];
}

function list(r: Draw, n = 4): unknown[] {
  return Array.from({ length: Math.floor(r() * n) }, () => value(r));
}

function data(r: Draw): { d: { xs: unknown[]; objs: unknown[]; m: unknown } } {
  return {
    d: {
      xs: list(r),
      objs: Array.from({ length: Math.floor(r() * 4) }, () => ({ k: value(r), v: value(r) })),
      m: { a: list(r, 3), b: list(r, 3) },
    },
  };
}

function input(r: Draw, d: { d: { xs: unknown[] } }): unknown {
  if (r() < 0.1) return undefined;
  // k is often a member, so that loops stop early
  const xs = d.d.xs;
  const k = xs.length && r() < 0.5 ? xs[Math.floor(r() * xs.length)] : value(r);
  return { xs: list(r), n: r() < 0.6 ? Math.floor(r() * 4) : 0, k };
}

function answer(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (e) {
    return { error: String(e) };
  }
}

const QUERIES = ['data.p', 'data.p.w4', 'data.p.c1', 'data.p.c3', 'data.p.c6b', 'data.p.t', 'data.p.quot'];

describe('lazy iteration of set rules', () => {
  it('answers as the traced run does, on generated policies, data and inputs', () => {
    const r = seededRandom(30);
    const before = lazySets.built;
    let lazyPolicies = 0;
    for (let p = 0; p < 24; p++) {
      // every other policy draws from the rules that never fail only
      const rules = SET_RULES.filter((_, i) => (p % 2 === 0 ? i < 5 : true) && r() < 0.35);
      if (rules.length === 0) rules.push(SET_RULES[Math.floor(r() * SET_RULES.length)]!);
      if (rules.every((x) => SET_RULES.indexOf(x) < 5)) lazyPolicies++;
      const text = policy(rules);
      for (const strict of [false, true]) {
        const reg = new Regolith({ strictBuiltinErrors: strict }).addModule('p.rego', text);
        const prepared = QUERIES.map((q) => [q, reg.prepare(q)] as const);
        for (let i = 0; i < 4; i++) {
          const d = data(r);
          reg.setData(d);
          const inp = input(r, d);
          for (const [q, pq] of prepared) {
            const plain = answer(() => pq.evaluate({ input: inp }));
            const traced = answer(() => pq.evaluate({ input: inp, tracer: new BufferTracer() }));
            expect({ text, strict, q, input: inp, data: reg.data, answer: plain }).toEqual({ text, strict, q, input: inp, data: reg.data, answer: traced });
          }
        }
      }
    }
    // the lazy path was planned, for the policies whose set rules never fail
    expect(lazyPolicies).toBeGreaterThan(6);
    expect(lazySets.built).toBeGreaterThan(before);
  });

  it('plans the lazy loop only over set rules that never fail', () => {
    for (const [i, rule] of SET_RULES.entries()) {
      const reg = new Regolith().addModule('p.rego', policy([rule]));
      reg.setData({ d: { xs: [1], objs: [], m: {} } });
      const before = lazySets.built;
      reg.prepare('data.p.c1').evaluate({ input: { k: 1, n: 0, xs: [1] } });
      expect([rule, lazySets.built > before]).toEqual([rule, i < 5]);
    }
  });

  it('stops the set rules at the first answer and builds the set for a second loop', () => {
    const reg = new Regolith().addModule('p.rego', policy([SET_RULES[0]!]));
    reg.setData({ d: { xs: [1, 2, 3, 2], objs: [], m: {} } });
    const at = (q: string, inp: unknown) => reg.prepare(q).evaluate({ input: inp })[0]?.expressions[0]?.value;
    expect(at('data.p.c1', { k: 2 })).toBe(true);
    expect(at('data.p.c1', { k: 5 })).toBeUndefined();
    expect(at('data.p.c2', { k: 3 })).toBe(3);
    expect(at('data.p.nested', { k: 3 })).toBe(true);
    // a lazy loop that found nothing leaves its variable unbound for the next outer element
    expect(at('data.p.outer', { xs: [5, 1] })).toBe(true);
    expect(at('data.p.c4', { n: 3 })).toBe(false);
    expect(at('data.p.w1', { k: 1 })).toBe(true);
    expect(() => at('data.p.c3', {})).toThrow(/complete rules must not produce multiple outputs/);
  });

  it('builds the set before the loop when one of its rules can fail', () => {
    // the second rule's conflict (bad has two values) is an error even though the first
    // rule already gave the member the loop looks for; so is 1 / 0 under strict errors
    const reg = new Regolith().addModule('p.rego', policy([SET_RULES[0]!, SET_RULES[9]!]));
    reg.setData({ d: { xs: [1, 2], objs: [], m: {} } });
    expect(() => reg.prepare('data.p.c1').evaluate({ input: { k: 1, xs: [1] } })).toThrow(/complete rules must not produce multiple outputs/);
    reg.addModule('p.rego', policy([SET_RULES[0]!, SET_RULES[5]!]));
    const pq = reg.prepare('data.p.c1');
    expect(() => pq.evaluate({ input: { k: 1, n: 0 }, strictBuiltinErrors: true })).toThrow(/divide by zero/);
    expect(pq.evaluate({ input: { k: 1, n: 0 } })[0]?.expressions[0]?.value).toBe(true);
  });
});
