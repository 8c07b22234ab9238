// Ad-hoc queries capture the value of each expression, as OPA's rego package does
// (rewriteQueryToCaptureValue): a lone expression answers with its value, false included;
// a query of several expressions, or one that iterates, keeps only the solutions where no
// captured value is false.
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';

const rego = new Regolith()
  .addModule(
    'lib.rego',
    `package lib

f(x) := x > 1
flag := false
xs := [true, false, true]
`,
  )
  .setData({ base: { on: false } });

function run(query: string, input?: unknown) {
  return rego.prepare(query).evaluate({ input });
}
const values = (query: string, input?: unknown) => run(query, input).map((r) => r.expressions.map((e) => e.value));

describe('query value capture', () => {
  it('a lone expression answers with its value, false included', () => {
    expect(values('false')).toEqual([[false]]);
    expect(values('1 == 2')).toEqual([[false]]);
    expect(values('1 != 1')).toEqual([[false]]);
    expect(values('3 in [1, 2]')).toEqual([[false]]);
    expect(values('data.lib.f(0)')).toEqual([[false]]);
    expect(values('data.lib.flag')).toEqual([[false]]);
    expect(values('input.enabled', { enabled: false })).toEqual([[false]]);
    expect(values('1 + 2')).toEqual([[3]]);
  });

  it('several expressions: no solution when a captured value is false', () => {
    expect(run('input.enabled; true', { enabled: false })).toEqual([]);
    expect(values('input.enabled; true', { enabled: true })).toEqual([[true, true]]);
    expect(run('false; true')).toEqual([]);
    expect(run('x := false; x')).toEqual([]);
    expect(run('1 == 2; true')).toEqual([]);
    expect(run('data.lib.f(0); true')).toEqual([]);
    expect(run('data.base.on; x := 1')).toEqual([]);
  });

  it('iteration: false values of the iterated expression are dropped', () => {
    expect(values('[true, false, true][_]')).toEqual([[true], [true]]);
    expect(values('data.lib.xs[_]')).toEqual([[true], [true]]);
    expect(values('data.lib.xs[i]').length).toBe(2);
    // walk is a relation: it iterates
    expect(run('walk([false], [p, v]); v').map((r) => r.bindings)).toEqual([{ p: [], v: [false] }]);
  });

  it('a comprehension is not iteration; negation, := and = are not captured', () => {
    expect(values('[x | x := [false][_]]')).toEqual([[[false]]]);
    expect(values('not false')).toEqual([[true]]);
    expect(values('x := false')).toEqual([[true]]);
    expect(values('x = false')).toEqual([[true]]);
    expect(run('x := false')[0]!.bindings).toEqual({ x: false });
    // a call with its output argument is not captured: its value is true
    expect(values('plus(1, 2, x); x > 0')).toEqual([[true, true]]);
  });

  it('with: the value is captured under the with, and checked', () => {
    expect(values('input.x with input as {"x": false}')).toEqual([[false]]);
    expect(run('input.x with input as {"x": false}; true')).toEqual([]);
    expect(values('input.x with input as {"x": 7}; true')).toEqual([[7, true]]);
  });

  it('reports expressions in evaluation order, without bare some declarations', () => {
    const r = run('x > 1; x = 2');
    expect(r[0]!.expressions.map((e) => [e.text, e.value])).toEqual([
      ['x = 2', true],
      ['x > 1', true],
    ]);
    const s = run('some x; x = 1; x');
    expect(s[0]!.expressions.map((e) => [e.text, e.value])).toEqual([
      ['x = 1', true],
      ['x', 1],
    ]);
    expect(run('some x in [false]; x')).toEqual([]);
    expect(values('some x in [false, 1]; x')).toEqual([[true, 1]]);
  });

  it('the data path of decide() is unaffected', () => {
    expect(rego.decide('lib/flag')).toBe(false);
    expect(rego.decide('data.lib.xs')).toEqual([true, false, true]);
  });
});
