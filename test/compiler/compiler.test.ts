import { describe, expect, it } from 'vitest';
import { parseModule } from '../../src/lang/index.js';
import { compile, RegoCompileError } from '../../src/compiler/index.js';
import '../../src/eval/builtins/index.js';

function errorsOf(...texts: string[]): { code: string; message: string; location?: { file: string; row: number } }[] {
  try {
    compile(texts.map((t, i) => parseModule(t, { filename: `m${i}.rego`, regoVersion: 'v1' })));
  } catch (e) {
    if (e instanceof RegoCompileError) return e.errors as never;
    throw e;
  }
  return [];
}

describe('compiler checks', () => {
  it('reports unsafe variables with OPA code, message and location', () => {
    const errs = errorsOf('package a\n\np if {\n  x > 1\n}\n');
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ code: 'rego_unsafe_var_error', message: 'var x is unsafe', location: { file: 'm0.rego', row: 4 } });
  });

  it('reports unsafe head variables', () => {
    const errs = errorsOf('package a\n\np := y if { true }\n');
    expect(errs.map((e) => e.message)).toEqual(['var y is unsafe']);
  });

  it('reorders expressions so bindings come first (no error)', () => {
    expect(errorsOf('package a\n\np if {\n  y == 2\n  y = input.x + 1\n}\n')).toEqual([]);
  });

  it('reports recursion through rules', () => {
    const errs = errorsOf('package a\n\np if q\n\nq if p\n');
    expect(errs.some((e) => e.code === 'rego_recursion_error' && /rule data\.a\.(p|q) is recursive/.test(e.message))).toBe(true);
  });

  it('reports undefined functions and arity errors as type errors', () => {
    expect(errorsOf('package a\n\np if nope(1)\n')).toMatchObject([{ code: 'rego_type_error', message: 'undefined function nope' }]);
    const errs = errorsOf('package a\n\np if count(1, 2, 3)\n');
    expect(errs[0]?.code).toBe('rego_type_error');
  });

  it('rejects conflicting rule kinds', () => {
    const errs = errorsOf('package a\n\np := 1\n\np contains 2\n');
    expect(errs[0]).toMatchObject({ code: 'rego_type_error', message: 'conflicting rules data.a.p found' });
  });

  it('merges rules of one package across modules and resolves imports', () => {
    const p = compile([
      parseModule('package a\n\np := 1\n', { filename: 'x.rego', regoVersion: 'v1' }),
      parseModule('package a\n\nq := p + 1\n', { filename: 'y.rego', regoVersion: 'v1' }),
      parseModule('package b\n\nimport data.a.q as qq\n\nr := qq * 10\n', { filename: 'z.rego', regoVersion: 'v1' }),
    ]);
    expect(p.root.find(['a'])?.children.size).toBe(2);
    expect(p.root.find(['b', 'r'])?.complete).toHaveLength(1);
  });

  it('formats the error like OPA', () => {
    try {
      compile([parseModule('package a\n\np if { x }\n', { filename: 'f.rego', regoVersion: 'v1' })]);
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toBe('1 error occurred: f.rego:3: rego_unsafe_var_error: var x is unsafe');
    }
  });
});

describe('rego versions', () => {
  it('rejects deprecated built-ins in v1 modules and accepts them in v0 modules', () => {
    expect(errorsOf('package a\n\np if any([true])\n')).toMatchObject([
      { code: 'rego_type_error', message: 'deprecated built-in function calls in expression: any', location: { file: 'm0.rego', row: 3 } },
    ]);
    expect(() => compile([parseModule('package a\n\np { any([true]) }\n', { filename: 'v0.rego', regoVersion: 'v0' })])).not.toThrow();
  });
});
