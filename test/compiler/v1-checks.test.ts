import { describe, expect, it } from 'vitest';
import { parseModule, parseQuery } from '../../src/lang/index.js';
import { compile, RegoCompileError } from '../../src/compiler/index.js';
import '../../src/eval/builtins/index.js';
import { Regolith } from '../../src/index.js';

type Err = { code: string; message: string; location?: { file: string; row: number } };

function fail(texts: string[], strict = false, version: 'v0' | 'v1' = 'v1'): { errors: Err[]; text: string } {
  try {
    compile(texts.map((t, i) => parseModule(t, { filename: `m${i}.rego`, regoVersion: version })), { strict });
  } catch (e) {
    if (e instanceof RegoCompileError) return { errors: e.errors as Err[], text: e.message };
    throw e;
  }
  return { errors: [], text: '' };
}
const msgs = (texts: string[], strict = false, version: 'v0' | 'v1' = 'v1') => fail(texts, strict, version).errors.map((e) => e.message);

describe('root documents must not be shadowed', () => {
  it('rejects `input := ...` in a v1 body with OPA message and location', () => {
    const { errors } = fail(['package a\n\np if {\n  input := 1\n  input == 1\n}\n']);
    expect(errors).toEqual([
      { code: 'rego_compile_error', message: 'variables must not shadow input (use a different variable name)', location: { file: 'm0.rego', row: 4, col: 3 } },
    ]);
  });
  it('rejects function args named input or data in every Rego version', () => {
    expect(msgs(['package a\n\nf(data) := 1\n'])).toEqual(['args must not shadow data (use a different variable name)']);
    expect(msgs(['package a\n\nf(input) = 1 { true }\n'], false, 'v0')).toEqual(['args must not shadow input (use a different variable name)']);
  });
  it('allows shadowing in v0 modules outside strict mode', () => {
    expect(msgs(['package a\n\np { input := 1; input == 1 }\n'], false, 'v0')).toEqual([]);
    expect(msgs(['package a\n\np { input := 1; input == 1 }\n'], true, 'v0')).toEqual(['variables must not shadow input (use a different variable name)']);
  });
});

describe('declarations', () => {
  it('reports re-assignment, re-declaration and use before assignment', () => {
    expect(msgs(['package a\n\np if {\n  x := 1\n  x := 2\n}\n'])).toEqual(['var x assigned above']);
    expect(msgs(['package a\n\np if {\n  some x\n  x := 2\n}\n'])).toEqual(['var x declared above']);
    expect(msgs(['package a\n\np if {\n  x == 1\n  x := 1\n}\n'])).toEqual(['var x referenced above']);
    expect(msgs(['package a\n\nf(x) := y if {\n  x := 1\n  y := 2\n}\n'])).toEqual(['arg x redeclared']);
  });
  it('allows a nested body to shadow an outer variable', () => {
    expect(msgs(['package a\n\np if {\n  x := 1\n  xs := [x | x := 2]\n  xs[0] == x\n}\n'])).toEqual([]);
  });
  it("reads a var mentioned in a closure before its `some` as the closure's own var, bound there by unification", () => {
    // OPA forgets a closure's reads when its scope ends: no "referenced above", and the
    // closure's v1 is not the v1 declared after it (found by the body-order property)
    const m = 'package t\nobj := {"a": 1, "b": 2}\np := r if { r := {v1 | [w, k] = [1, v1]; obj[k]}; some v1 in ["z"] }\nq := r if { some v1 in ["z"]; r := {v1 | [w, k] = [1, v1]; obj[k]} }\n';
    const out = new Regolith().addModule('t.rego', m).prepare('data.t').evaluate({})[0]!.expressions[0]!.value as Record<string, unknown>;
    expect(out['p']).toEqual(['a', 'b']);
    expect(out['q']).toEqual([]);
  });
  it('reports unused `some` variables (in any mode, as OPA does)', () => {
    const { errors } = fail(['package a\n\np if {\n  some x\n  input.y == 1\n}\n']);
    expect(errors).toEqual([{ code: 'rego_compile_error', message: 'declared var x unused', location: { file: 'm0.rego', row: 4, col: 3 } }]);
    expect(msgs(['package a\n\np if {\n  some x in input.xs\n}\n'])).toEqual([]);
  });
  it('accepts an unused generated var (__local...) in every and some, as OPA does with its own residuals', () => {
    expect(msgs(['package a\n\np if {\n  every __local0__1, v in input.xs {\n    v > 1\n  }\n}\n'])).toEqual([]);
    expect(msgs(['package a\n\np if {\n  some __local3__\n  input.y == 1\n}\n'])).toEqual([]);
    expect(msgs(['package a\n\np if {\n  every k, v in input.xs {\n    v > 1\n  }\n}\n'])).toEqual(['declared var k unused']);
    expect(msgs(['package a\n\np if {\n  every __p0__, v in input.xs {\n    v > 1\n  }\n}\n'])).toEqual(['declared var __p0__ unused']);
  });
  it('stops after the declaration stage (no unsafe-var noise), as OPA does', () => {
    expect(msgs(['package a\n\np if {\n  x := 1\n  x := 2\n  y > 1\n}\n'])).toEqual(['var x assigned above']);
  });
});

describe('strict mode', () => {
  it('reports unused imports, assigned vars and function arguments', () => {
    expect(msgs(['package a\n\nimport data.x\n\np := 1\n'], true)).toEqual(['import data.x unused']);
    expect(msgs(['package a\n\np if {\n  y := 1\n  true\n}\n'], true)).toEqual(['assigned var y unused']);
    expect(msgs(['package a\n\nf(a, b) := a\n'], true)).toEqual(['unused argument b. (hint: use _ (wildcard variable) instead)']);
    expect(msgs(['package a\n\nimport data.x\n\nf(a, _) := x[a]\n'], true)).toEqual([]);
  });
  it('counts a function call or a with target through an import as a use', () => {
    const lib = 'package lib\n\nf(x) := x + 1\n';
    expect(msgs([lib, 'package a\n\nimport data.lib\n\np if lib.f(1) == 2\n'], true)).toEqual([]);
    expect(msgs([lib, 'package a\n\nimport data.lib\n\np if not lib.f(1)\n'], true)).toEqual([]);
    expect(msgs([lib, 'package a\n\nimport data.lib\n\ng(_) := 3\n\np if data.lib.f(1) == 3 with lib.f as g\n'], true)).toEqual([]);
  });
  it('is off by default', () => {
    expect(msgs(['package a\n\nimport data.x\n\nf(a, b) := a\n\np if {\n  y := 1\n  true\n}\n'])).toEqual([]);
  });
});

describe('imports and deprecated built-ins', () => {
  it('rejects duplicate import names', () => {
    expect(msgs(['package a\n\nimport data.x\nimport data.y.x\n\np := x\n'])).toEqual(['import must not shadow import data.x']);
  });
  it('rejects deprecated built-ins in v1 modules only (and in strict mode)', () => {
    const { errors } = fail(['package a\n\np if re_match("a", "a")\n']);
    expect(errors).toEqual([
      { code: 'rego_type_error', message: 'deprecated built-in function calls in expression: re_match', location: { file: 'm0.rego', row: 3, col: 6 } },
    ]);
    expect(msgs(['package a\n\np { re_match("a", "a") }\n'], false, 'v0')).toEqual([]);
    expect(msgs(['package a\n\np { re_match("a", "a") }\n'], true, 'v0')).toEqual(['deprecated built-in function calls in expression: re_match']);
  });
});

describe('rule conflicts', () => {
  it('rejects a constant rule with rules inside its extent', () => {
    const { errors } = fail(['package a\n\nb := 1\n\nb.c := 2\n\nb.d.e := 3\n']);
    expect(errors).toEqual([{ code: 'rego_type_error', message: 'rule data.a.b conflicts with [data.a.b.c data.a.b.d.e]', location: { file: 'm0.rego', row: 3, col: 1 } }]);
  });
  it('allows a ref-head rule with variables next to a constant rule', () => {
    expect(msgs(['package a\n\nb.c := 1\n\nb[x].d := 2 if some x in ["y"]\n'])).toEqual([]);
  });
  it('rejects mixing single-value and multi-value rules', () => {
    expect(msgs(['package a\n\np := 1\n\np[x] := 2 if x := "a"\n'])).toEqual(['conflicting rules data.a.p[x] found']);
    expect(msgs(['package a\n\np contains 1\n\np := 2\n'])).toEqual(['conflicting rules data.a.p found']);
  });
  it('rejects functions of different arities, including defaults', () => {
    expect(msgs(['package a\n\ndefault f(_) := 1\n\nf(x, y) := x + y\n'])).toEqual(['conflicting rules data.a.f found']);
  });
  it('rejects more than one default rule, at the package location', () => {
    const { errors } = fail(['package a\n\ndefault p := 1\n\ndefault p := 2\n']);
    expect(errors).toEqual([{ code: 'rego_type_error', message: 'multiple default rules data.a.p found at m0.rego:3, m0.rego:5', location: { file: 'm0.rego', row: 1, col: 1 } }]);
  });
  it('rejects a package inside a rule of another module', () => {
    expect(msgs(['package a\n\nb := 1\n', 'package a.b\n'])).toEqual(['package a.b conflicts with rule b defined at m0.rego:3']);
  });
});

describe('built-in argument types', () => {
  it('rejects constant arguments of the wrong type with have/want details', () => {
    const { errors, text } = fail(['package a\n\np if count(1) == 1\n']);
    expect(errors).toMatchObject([{ code: 'rego_type_error', message: 'count: invalid argument(s)', location: { file: 'm0.rego', row: 3 } }]);
    expect(text).toBe(
      '1 error occurred: m0.rego:3: rego_type_error: count: invalid argument(s)\n\thave: (number)\n\twant: (any<string, array[any], object[any: any], set[any]>)',
    );
    expect(fail(['package a\n\np := concat(1, [])\n']).text).toContain('have: (number, array)\n\twant: (string, any<array[string], set[string]>)');
  });
  it('accepts arguments whose type only evaluation knows, and unions', () => {
    expect(msgs(['package a\n\np if count(input.x) == 1\n\nq := {1} - {2}\n\nr := concat(",", {"a", "b"})\n'])).toEqual([]);
  });
  it('reports arity errors with OPA wording', () => {
    expect(fail(['package a\n\np := count()\n']).text).toBe(
      '1 error occurred: m0.rego:3: rego_type_error: count: arity mismatch\n\thave: ()\n\twant: (any<string, array[any], object[any: any], set[any]>)',
    );
  });
  it('collects several errors and counts them like OPA', () => {
    const { errors, text } = fail(['package a\n\np if count(1)\n\nq if upper(1)\n']);
    expect(errors).toHaveLength(2);
    expect(text.startsWith('2 errors occurred:\nm0.rego:3: rego_type_error: count: invalid argument(s)')).toBe(true);
  });
  it('checks the constant arguments of a query as of a rule (OPA type-checks queries: upper(1) is an error, not undefined)', () => {
    const policy = compile([parseModule('package a\n\np := 1\n', { filename: 'm0.rego' })]);
    const queryErrors = (q: string): Err[] => {
      try {
        policy.compileQuery(parseQuery(q));
      } catch (e) {
        if (e instanceof RegoCompileError) return e.errors as Err[];
        throw e;
      }
      return [];
    };
    expect(queryErrors('upper(1)')).toMatchObject([{ code: 'rego_type_error', message: 'upper: invalid argument(s)' }]);
    expect(queryErrors('x := [1]; count(x) > 0; y := data.a.p; not startswith(1, "a")')).toMatchObject([{ code: 'rego_type_error', message: 'startswith: invalid argument(s)' }]);
    expect(queryErrors('upper(input.x)')).toEqual([]);
    expect(queryErrors('x := upper("a")')).toEqual([]);
  });
});
