// Issue 11: Rego bodies are order-independent. A metamorphic property: a body generated in a
// safe binding order (test/compiler/body-gen.ts) is written in other orders, in every place a
// body occurs, and Regolith must answer the same. The binding order itself is checked against
// a small JS reference evaluator, so a bug that breaks every order alike is caught too.
//
// What "the same" means (OPA's own rules, see body-gen.ts `classify`):
//   - the same value, or the same kind of evaluation error (eval_conflict_error when a
//     complete rule, function or object has two values for one key, in every order);
//   - a permutation that mentions a `:=`/`some` var before its declaration is OPA's
//     rego_compile_error "var y referenced above"; one that mentions it earlier only inside a
//     closure is rego_unsafe_var_error (the closure's var is a different, unbound one);
//   - arrays built by array comprehensions must be identical when the permutation keeps the
//     generators in their order (`orderPreserving`); otherwise their elements must be the same
//     multiset, because OPA nests iterations in written order
//     ([[a, b] | a := [1, 2][_]; b := [3, 4][_]] and the swapped body differ in OPA too);
//   - top-level query results are compared as a multiset of bindings of the body's vars;
//   - a body made unsafe by a var nothing binds is rego_unsafe_var_error in every order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Regolith, RegoCompileError, RegoEvalError } from '../../src/index.js';
import {
  BASE_RULES,
  DATA,
  INPUT_N,
  RSet,
  classify,
  genBody,
  key,
  orderPreserving,
  poison,
  renderBody,
  shuffle,
  solutions,
  toJSON,
  type Body,
  type Env,
  type Ex,
  type Ty,
  type Val,
} from './body-gen.js';

type Outcome = { value: unknown } | { undefined: true } | { error: string };

/** Evaluates `query`; answers with its one value, or with the bindings of every result. */
function run(module: string, query: string, answer: 'value' | 'bindings' = 'value'): Outcome {
  try {
    const rs = new Regolith()
      .addModule('t.rego', `package t\n\n${BASE_RULES}\n${module}\n`)
      .setData(DATA)
      .prepare(query)
      .evaluate({ input: { n: INPUT_N } });
    if (answer === 'bindings') {
      // An ad-hoc query of one expression that is false answers with the value false (OPA's
      // value capture); as a body it has no solution, which is what bindings are compared to.
      const sols = rs.filter((r) => !r.expressions.some((x) => x.value === false));
      return sols.length ? { value: sols.map((r) => r.bindings) } : { undefined: true };
    }
    if (!rs.length) return { undefined: true };
    expect(rs).toHaveLength(1);
    return { value: rs[0]!.expressions[0]!.value };
  } catch (e) {
    if (e instanceof RegoCompileError) {
      const errs = e.errors;
      if (process.env.BODY_ORDER_DEBUG) console.log(errs);
      if (errs.some((x) => /referenced above/.test(x.message))) return { error: 'referenced-above' };
      return { error: errs[0]?.code ?? 'rego_compile_error' };
    }
    if (e instanceof RegoEvalError) return { error: e.code };
    throw e;
  }
}

// ---------------------------------------------------------------- outputs of a body

interface Term {
  r: string;
  v: (env: Env) => Val;
}
const outputVars = (body: Body, params: [string, Ty][]) =>
  [...params, ...body.vars].filter(([, t]) => t !== 'num' && t !== 'coll').map(([n]) => n);

function valueTerm(g: fc.GeneratorValue, vars: string[]): Term {
  // A constant sometimes, so that complete rules and functions have one value, not a conflict.
  if (!vars.length || g(fc.integer, { min: 0, max: 3 }) === 0) return { r: 'true', v: () => true };
  const a = vars[g(fc.integer, { min: 0, max: vars.length - 1 })]!;
  if (vars.length === 1 || g(fc.boolean)) return { r: a, v: (env) => env[a]! };
  const b = vars[g(fc.integer, { min: 0, max: vars.length - 1 })]!;
  return { r: `[${a}, ${b}]`, v: (env) => [env[a]!, env[b]!] };
}

function keyTerm(g: fc.GeneratorValue, body: Body, params: [string, Ty][]): Term {
  const ks = [...params, ...body.vars].filter(([, t]) => t === 'int' || t === 'str').map(([n]) => n);
  if (!ks.length) return { r: '"k"', v: () => 'k' };
  const k = ks[g(fc.integer, { min: 0, max: ks.length - 1 })]!;
  return { r: k, v: (env) => env[k]! };
}

const distinct = (vals: Val[]): Val[] => {
  const m = new Map<string, Val>();
  for (const v of vals) m.set(key(v), v);
  return [...m.values()];
};
const asSet = (vals: Val[]): Val => {
  const s = new RSet();
  for (const v of vals) s.add(v);
  return s;
};
/** A complete value: one distinct value, none (undefined) or a conflict. */
const complete = (vals: Val[], otherwise: Outcome = { undefined: true }): Outcome => {
  const d = distinct(vals);
  return d.length === 0 ? otherwise : d.length === 1 ? { value: toJSON(d[0]!) } : { error: 'eval_conflict_error' };
};
/** An object keyed by `k`: a conflict when one key has two values. */
const object = (pairs: [Val, Val][]): Outcome | Record<string, Val> => {
  const m = new Map<string, [Val, Val]>();
  for (const [k, v] of pairs) {
    const was = m.get(key(k));
    if (was && key(was[1]) !== key(v)) return { error: 'eval_conflict_error' };
    m.set(key(k), [k, v]);
  }
  return Object.fromEntries([...m.values()].map(([k, v]) => [String(k), v]));
};
const isOutcome = (x: unknown): x is Outcome => typeof x === 'object' && x !== null && 'error' in x;

// ---------------------------------------------------------------- the places a body occurs

type CompKind = 'set' | 'array' | 'object';
interface Place {
  name: string;
  params: [string, Ty][];
  /** Array results whose order follows the body's generators: 'top' or each object value. */
  arrays?: 'top' | 'values' | 'bindings';
  text: (body: string, c: { V: Term; K: Term }) => { module: string; query: string };
  expected: (sols: (params: Env, inputN?: number) => Env[], c: { V: Term; K: Term }) => Outcome;
}

function comp(kind: CompKind, body: string, V: Term, K: Term): string {
  return kind === 'set' ? `{${V.r} | ${body}}` : kind === 'array' ? `[${V.r} | ${body}]` : `{${K.r}: ${V.r} | ${body}}`;
}
function compValue(kind: CompKind, sols: Env[], V: Term, K: Term): Outcome | Val {
  if (kind === 'set') return asSet(sols.map(V.v));
  if (kind === 'array') return sols.map(V.v);
  return object(sols.map((e) => [K.v(e), V.v(e)]));
}
const wrap = (v: Outcome | Val): Outcome => (isOutcome(v) ? v : { value: toJSON(v as Val) });

const PLACES: Place[] = [
  {
    name: 'complete rule',
    params: [],
    text: (b, { V }) => ({ module: `p := ${V.r} if { ${b} }`, query: 'data.t.p' }),
    expected: (sols, { V }) => complete(sols({}).map(V.v)),
  },
  {
    name: 'else, first branch',
    params: [],
    text: (b, { V }) => ({ module: `p := ${V.r} if { ${b} } else := "none"`, query: 'data.t.p' }),
    expected: (sols, { V }) => complete(sols({}).map(V.v), { value: 'none' }),
  },
  {
    name: 'else, second branch',
    params: [],
    text: (b, { V }) => ({ module: `p := "first" if { input.never } else := ${V.r} if { ${b} }`, query: 'data.t.p' }),
    expected: (sols, { V }) => complete(sols({}).map(V.v)),
  },
  {
    name: 'partial set rule',
    params: [],
    text: (b, { V }) => ({ module: `p contains ${V.r} if { ${b} }`, query: 'data.t.p' }),
    expected: (sols, { V }) => wrap(asSet(sols({}).map(V.v))),
  },
  {
    name: 'partial object rule',
    params: [],
    text: (b, { V, K }) => ({ module: `p[${K.r}] := ${V.r} if { ${b} }`, query: 'data.t.p' }),
    expected: (sols, { V, K }) => wrap(object(sols({}).map((e) => [K.v(e), V.v(e)]))),
  },
  {
    name: 'function',
    params: [
      ['fa', 'int'],
      ['fb', 'int'],
    ],
    text: (b, { V }) => ({ module: `f(fa, fb) := ${V.r} if { ${b} }`, query: 'data.t.f(2, 3)' }),
    expected: (sols, { V }) => complete(sols({ fa: 2, fb: 3 }).map(V.v)),
  },
  {
    name: 'negated function call',
    params: [['fa', 'int']],
    text: (b) => ({ module: `g(fa) if { ${b} }\n\np contains j if {\n  some j in [1, 2, 4, 6]\n  not g(j)\n}`, query: 'data.t.p' }),
    expected: (sols) => wrap(asSet([1, 2, 4, 6].filter((j) => sols({ fa: j }).length === 0))),
  },
  ...(['set', 'array', 'object'] as CompKind[]).flatMap((kind): Place[] => [
    {
      name: `${kind} comprehension in a rule head`,
      params: [],
      arrays: kind === 'array' ? 'top' : undefined,
      text: (b, { V, K }) => ({ module: `p := ${comp(kind, b, V, K)}`, query: 'data.t.p' }),
      expected: (sols, { V, K }) => wrap(compValue(kind, sols({}), V, K)),
    },
    {
      name: `${kind} comprehension in a rule body`,
      params: [],
      arrays: kind === 'array' ? 'top' : undefined,
      text: (b, { V, K }) => ({ module: `p := res if {\n  res := ${comp(kind, b, V, K)}\n}`, query: 'data.t.p' }),
      expected: (sols, { V, K }) => wrap(compValue(kind, sols({}), V, K)),
    },
    {
      name: `${kind} comprehension nested in an object comprehension`,
      params: [['j', 'int']],
      arrays: kind === 'array' ? 'values' : undefined,
      text: (b, { V, K }) => ({ module: `p := {j: c | some j in [1, 2]; c := ${comp(kind, b, V, K)}}`, query: 'data.t.p' }),
      expected: (sols, { V, K }) => {
        const out: Record<string, Val> = {};
        for (const j of [1, 2]) {
          const v = compValue(kind, sols({ j }), V, K);
          if (isOutcome(v)) return v;
          out[String(j)] = v as Val;
        }
        return wrap(out);
      },
    },
  ]),
  {
    name: 'every body',
    params: [
      ['j', 'int'],
      ['z', 'int'],
    ],
    text: (b) => ({ module: `p contains j if {\n  some j in [1, 2, 3]\n  every z in data.d.xs { ${b}; z != 0 }\n}`, query: 'data.t.p' }),
    expected: (sols) => wrap(asSet([1, 2, 3].filter((j) => DATA.d.xs.every((z) => sols({ j, z }).length > 0)))),
  },
  {
    name: 'rule read under with',
    params: [],
    text: (b, { V }) => ({ module: `inner contains ${V.r} if { ${b} }\n\np := r if {\n  r := inner with input.n as 3\n}`, query: 'data.t.p' }),
    expected: (sols, { V }) => wrap(asSet(sols({}, 3).map(V.v))),
  },
];

// ---------------------------------------------------------------- comparing

/** Sorts the arrays whose order may legitimately follow the written order. */
function unordered(o: Outcome, arrays: Place['arrays']): Outcome {
  if (!('value' in o) || !arrays) return o;
  const sort = (xs: unknown) => (Array.isArray(xs) ? [...xs].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0)) : xs);
  if (arrays === 'top' || arrays === 'bindings') return { value: sort(o.value) };
  return { value: Object.fromEntries(Object.entries(o.value as Record<string, unknown>).map(([k, v]) => [k, sort(v)])) };
}

interface Check {
  place: string;
  order: number[];
  module: string;
  query: string;
}

function checkOrder(exprs: Ex[], order: number[], want: Outcome, got: () => Outcome, arrays: Place['arrays'], ctx: Check): void {
  const verdict = classify(exprs, order);
  if (verdict === 'skip') return;
  const actual = got();
  const exact = !arrays || (arrays !== 'bindings' && orderPreserving(exprs, order));
  const norm = (o: Outcome) => (exact ? o : unordered(o, arrays));
  const msg = `${ctx.place}, order [${order}]\n--- module\n${ctx.module}\n--- query\n${ctx.query}\n`;
  if (verdict === 'referenced-above') {
    expect(actual, msg).toEqual({ error: 'referenced-above' });
    return;
  }
  if (verdict === 'unsafe') {
    expect(actual, msg).toEqual({ error: 'rego_unsafe_var_error' });
    return;
  }
  expect(norm(actual), msg).toEqual(norm(want));
}

/**
 * The orders tried for one body: the binding order (checked against the JS reference), its
 * reverse, and a few shuffles, preferring ones OPA accepts (a shuffle that mentions a declared
 * var too early is drawn again, twice at most).
 */
function orders(g: fc.GeneratorValue, exprs: Ex[], shuffles: number): number[][] {
  const id = [...exprs.keys()];
  const out = [id, [...id].reverse()];
  for (let i = 0; i < shuffles; i++) {
    let o = shuffle(g, exprs.length);
    for (let t = 0; t < 2 && classify(exprs, o) === 'referenced-above'; t++) o = shuffle(g, exprs.length);
    out.push(o);
  }
  return out;
}

// About 3,500 compilations and evaluations in all (several seconds on two cores);
// BODY_ORDER_RUNS=1000 for a longer search.
const NUM_RUNS = Number(process.env.BODY_ORDER_RUNS ?? 30);
const SHUFFLES = 3;

describe('body order: the same answer in every order of a safe body', () => {
  for (const place of PLACES) {
    it(place.name, () => {
      fc.assert(
        fc.property(fc.gen(), (g) => {
          const body = genBody(g, place.params, g(fc.integer, { min: 1, max: 6 }));
          const V = valueTerm(g, outputVars(body, place.params));
          const K = keyTerm(g, body, place.params);
          const sols = (params: Env, inputN = INPUT_N) => solutions(body.exprs, params, { inputN });
          const want = place.expected(sols, { V, K });
          for (const order of orders(g, body.exprs, SHUFFLES)) {
            const { module, query } = place.text(renderBody(body.exprs, order, { q: false }), { V, K });
            checkOrder(body.exprs, order, want, () => run(module, query), place.arrays, { place: place.name, order, module, query });
          }
        }),
        { numRuns: NUM_RUNS, ...(process.env.BODY_ORDER_SEED ? { seed: Number(process.env.BODY_ORDER_SEED), path: process.env.BODY_ORDER_PATH } : {}) },
      );
    });
  }

  it('top-level query: the same multiset of bindings', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const body = genBody(g, [], g(fc.integer, { min: 1, max: 6 }));
        const names = [...body.vars].filter(([, t]) => t !== 'num').map(([n]) => n);
        const project = (env: Record<string, unknown>) => Object.fromEntries(names.map((n) => [n, n in env ? env[n] : '<missing>']));
        const sols = solutions(body.exprs, {}, { inputN: INPUT_N });
        const want: Outcome = sols.length ? { value: sols.map((e) => project(toJSON(e as Val) as Record<string, unknown>)) } : { undefined: true };
        for (const order of orders(g, body.exprs, SHUFFLES)) {
          const query = renderBody(body.exprs, order, { q: true });
          const got = (): Outcome => {
            const o = run('', query, 'bindings');
            return 'value' in o ? { value: (o.value as Record<string, unknown>[]).map(project) } : o;
          };
          checkOrder(body.exprs, order, want, got, 'bindings', { place: 'query', order, module: '', query });
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('body order: an unsafe body is rego_unsafe_var_error in every order', () => {
  for (const place of PLACES) {
    it(place.name, () => {
      fc.assert(
        fc.property(fc.gen(), (g) => {
          const body = genBody(g, place.params, g(fc.integer, { min: 0, max: 4 }));
          const exprs = [...body.exprs, ...poison(g, body)];
          const V = valueTerm(g, outputVars(body, place.params));
          const K = keyTerm(g, body, place.params);
          for (const order of orders(g, exprs, 1)) {
            const { module, query } = place.text(renderBody(exprs, order, { q: false }), { V, K });
            const verdict = classify(exprs, order);
            if (verdict === 'skip') continue;
            const got = run(module, query);
            const msg = `${place.name}, order [${order}]\n--- module\n${module}\n`;
            if (verdict === 'referenced-above') expect(got, msg).toEqual({ error: 'referenced-above' });
            else expect(got, msg).toEqual({ error: 'rego_unsafe_var_error' });
          }
        }),
        { numRuns: Math.ceil(NUM_RUNS / 2) },
      );
    });
  }
});

// ---------------------------------------------------------------- the examples

describe('body order: the examples of issue 11', () => {
  const X = 'xs6 := {1, 2, 3, 4, 5, 6}';
  const bodies = [
    ['b > a * 2; xs6[a]; xs6[b]', [1, 2]],
    ['b := a / 3; xs6[a]; xs6[b]', [3, 6]],
  ] as const;
  const value = (module: string, query: string) => run(`${X}\n\n${module}`, query);
  for (const [b, want] of bodies) {
    const qb = b.replace(/xs6/g, 'data.t.xs6');
    it(`{a | ${b}} = ${JSON.stringify(want)} wherever the body is`, () => {
      expect(value(`p := {a | ${b}}`, 'data.t.p')).toEqual({ value: want });
      expect(value(`p contains a if { ${b} }`, 'data.t.p')).toEqual({ value: want });
      expect(value(`p := s if { s := {a | ${b}} }`, 'data.t.p')).toEqual({ value: want });
      expect(value(`p := [a | ${b}]`, 'data.t.p')).toEqual({ value: b.includes('/') ? [3, 6] : [1, 1, 1, 1, 2, 2] });
      expect(value(`p := {a: true | ${b}}`, 'data.t.p')).toEqual({ value: Object.fromEntries(want.map((a) => [String(a), true])) });
      expect(value(`f(n) := {a | ${b.replace('* 2', '* n')}}`, 'data.t.f(2)')).toEqual({ value: want });
      expect(value(`f(n) := s if { s := {a | ${b.replace('* 2', '* n')}} }`, 'data.t.f(2)')).toEqual({ value: want });
      expect(value(`p := [{a | ${b}}]`, 'data.t.p')).toEqual({ value: [want] });
      expect(value(`p := {j: {a | ${b}} | some j in [1]}`, 'data.t.p')).toEqual({ value: { 1: want } });
      expect(value(`p if { every a in [${want}] { ${b} } }`, 'data.t.p')).toEqual({ value: true });
      expect(run(`${X}`, `s := {a | ${qb}}`, 'bindings')).toEqual({ value: [{ s: want }] });
      const rows = run(`${X}`, qb, 'bindings');
      expect('value' in rows && [...new Set((rows.value as { a: number }[]).map((r) => r.a))].sort()).toEqual(want);
    });
  }
});
