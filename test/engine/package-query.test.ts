// A query read in a package (the REPL's current module): the package's rule names and the
// imports resolve to their refs, the query's own declared names do not.

import { describe, expect, it } from 'vitest';
import { Regolith, parseModule, parseQuery, planQueryInPackage, runPlan, toJSONText } from '../../src/engine/index.js';

function answer(query: string, ctx: { path: string[]; imports?: string }): unknown {
  const r = new Regolith();
  r.addModule('a.rego', 'package a\n\nallow if input.ok\n\nlimit := 3\n');
  r.addModule('b.rego', 'package a.sub\n\nhidden := 1\n');
  r.addModule('lib.rego', 'package lib\n\ndouble(x) := 2 * x\n');
  const imports = parseModule(`package q\n${ctx.imports ?? ''}`, { filename: '' }).imports;
  const plan = planQueryInPackage(r.compile(), parseQuery(query, { regoVersion: 'v1' }), { path: ctx.path, imports }, 'v1');
  const rs = runPlan(plan, { input: { ok: true }, data: {} }) as { bindings: Map<string, unknown>; expressions: { value: unknown }[] }[];
  return rs.map((x) => JSON.parse(toJSONText({ b: Object.fromEntries(x.bindings), e: x.expressions.map((e) => e.value) } as never)));
}

describe('planQueryInPackage', () => {
  it("resolves the package's rules and the imports", () => {
    expect(answer('allow; limit > 2', { path: ['a'] })).toEqual([{ b: {}, e: [true, true] }]);
    expect(answer('lib.double(limit)', { path: ['a'], imports: 'import data.lib' })).toEqual([{ b: {}, e: [6] }]);
    expect(answer('ok', { path: ['x'], imports: 'import input.ok' })).toEqual([{ b: {}, e: [true] }]);
  });

  it("leaves the query's own names, and other packages' rules, alone", () => {
    expect(answer('limit := 10; limit > 5', { path: ['a'] })).toEqual([{ b: { limit: 10 }, e: [true, true] }]);
    expect(() => answer('hidden', { path: ['a'] })).toThrow(/var hidden is unsafe/);
  });
});
