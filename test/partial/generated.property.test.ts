// Generated policies: rules, helpers, functions, negations, defaults and else chains built
// from random conditions on a row; for random rows the residual queries (with their support
// modules) must hold exactly when the original query does.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';

const RUNS = Number(process.env.PARTIAL_GEN_RUNS ?? 60);
const ROWS = 25;

const num = fc.integer({ min: 0, max: 4 });
const str = fc.constantFrom('a', 'b', 'ab', 'ba');
const op = fc.constantFrom('==', '!=', '<', '<=', '>', '>=');

/** One condition on the row, as Rego text. */
const atom: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom('n', 'm'), op, num).map(([f, o, c]) => `input.row.${f} ${o} ${c}`),
  fc.tuple(num, op, fc.constantFrom('n', 'm')).map(([c, o, f]) => `${c} ${o} input.row.${f}`),
  fc.tuple(op).map(([o]) => `input.row.n ${o} input.row.m`),
  fc.tuple(fc.constantFrom('s', 't'), str).map(([f, c]) => `input.row.${f} == "${c}"`),
  fc.tuple(fc.constantFrom('startswith', 'endswith', 'contains'), fc.constantFrom('s', 't'), fc.constantFrom('a', 'b')).map(([b, f, c]) => `${b}(input.row.${f}, "${c}")`),
  fc.tuple(fc.constantFrom('s', 't')).map(([f]) => `input.row.${f} in {"a", "ba"}`),
  fc.constant('input.row.flag'),
  fc.constant('input.row.xs[_] == 2'),
  fc.constant('some x in input.row.xs; x > 2'),
  fc.constant('count(input.row.xs) > 1'),
  fc.tuple(num).map(([c]) => `input.k == ${c}`),
);

const body = (helpers: string[]) =>
  fc.array(fc.tuple(fc.boolean(), fc.oneof({ weight: 4, arbitrary: atom }, { weight: 1, arbitrary: helpers.length ? fc.constantFrom(...helpers) : atom })), { minLength: 1, maxLength: 3 }).map((xs) =>
    xs.map(([neg, a], i) => (neg && !a.includes(';') ? `not ${a}` : a.replace(/\bx\b/g, `x${i}`))).join('\n\t'),
  );

const policy = fc
  .record({
    helperBodies: fc.array(body([]), { minLength: 0, maxLength: 2 }),
    fnBodies: fc.array(fc.tuple(op, num), { minLength: 0, maxLength: 2 }),
    hasDefault: fc.boolean(),
    elseChain: fc.array(body([]), { minLength: 0, maxLength: 2 }),
  })
  .chain((p) => {
    const helpers = [...(p.helperBodies.length ? ['h'] : []), ...(p.fnBodies.length ? ['f(input.row.n)', 'f(input.row.m)'] : [])];
    return fc.record({ p: fc.constant(p), allowBodies: fc.array(body(helpers), { minLength: 1, maxLength: 3 }), query: fc.constantFrom('data.t.allow == true', 'data.t.allow', 'not data.t.allow', 'data.t.lvl == "b"', 'data.t.lvl == "c"') });
  })
  .map(({ p, allowBodies, query }) => {
    const lines = ['package t', 'import rego.v1', ''];
    if (p.hasDefault) lines.push('default allow := false', '');
    for (const b of allowBodies) lines.push(`allow if {\n\t${b}\n}`, '');
    for (const b of p.helperBodies) lines.push(`h if {\n\t${b}\n}`, '');
    for (const [o, c] of p.fnBodies) lines.push(`f(x) if x ${o} ${c}`, '');
    if (p.elseChain.length) {
      const [first, ...rest] = p.elseChain;
      lines.push(`lvl := "a" if {\n\t${first}\n}${rest.map((b) => ` else := "b" if {\n\t${b}\n}`).join('')} else := "c"`, '');
    } else lines.push('lvl := "b" if input.row.flag', '');
    return { module: lines.join('\n'), query };
  });

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 5 });
const row = fc
  .record({ n: maybe(num), m: maybe(fc.oneof(num, fc.constant('1'))), s: maybe(str), t: maybe(str), flag: maybe(fc.oneof(fc.boolean(), fc.constant(0))), xs: maybe(fc.array(num, { maxLength: 3 })) })
  .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));

/** The query over the modules, compiled once: whether it holds for an input. */
function decider(modules: string[], queries: string[]): (input: unknown) => boolean {
  if (!queries.length) return () => false;
  const r = new Regolith();
  modules.forEach((m, i) => r.addModule(`m${i}.rego`, m));
  r.addModule('q.rego', `package q\n\n${queries.map((q) => `ok if {\n${q.trim() || 'true'}\n}`).join('\n\n')}\n`);
  const q = r.prepare('data.q.ok');
  return (input) => q.evaluate({ input }).length > 0;
}

describe('partial evaluation of generated policies', () => {
  it('residual queries hold exactly when the query does', () => {
    fc.assert(
      fc.property(policy, fc.array(row, { minLength: ROWS, maxLength: ROWS }), num, ({ module, query }, rows, k) => {
        const p = new Regolith().addModule('t.rego', module).prepare(query).partial({ input: { k }, unknowns: ['input.row'] });
        // compiled once per policy, evaluated per row (compiling per row made the run CPU-bound past its timeout under load)
        const original = decider([module], [query]);
        const residual = decider(p.supportText, p.queriesText);
        for (const r of rows) {
          const input = { k, row: r };
          const want = original(input);
          const got = residual(input);
          expect(got, `--- module\n${module}\n--- query ${query}\n--- input ${JSON.stringify(input)}\n--- residual\n${p.queriesText.join('\n--\n')}\n--- support\n${p.supportText.join('\n')}`).toBe(want);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
