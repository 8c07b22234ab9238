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
