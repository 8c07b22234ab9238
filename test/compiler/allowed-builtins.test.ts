// CompileOptions.allowedBuiltins (OPA's capabilities): a call to a built-in the list leaves
// out is `undefined function`, as in OPA; the listed ones, user functions and an unset list
// compile as before.

import { describe, expect, it } from 'vitest';
import { parseModule } from '../../src/lang/index.js';
import { compile, RegoCompileError } from '../../src/compiler/index.js';
import '../../src/eval/builtins/index.js';

const POLICY = 'package a\n\nf(x) := x\n\np if upper("a") == "A"\n\nq if f(1) == 1\n';

function errorsWith(allowed?: string[]): { code: string; message: string; location?: { row: number } }[] {
  try {
    compile([parseModule(POLICY, { filename: 'a.rego', regoVersion: 'v1' })], { allowedBuiltins: allowed && new Set(allowed) });
  } catch (e) {
    if (e instanceof RegoCompileError) return e.errors as never;
    throw e;
  }
  return [];
}

describe('allowed built-ins (capabilities)', () => {
  it('a built-in missing from the list is an undefined function at its call', () => {
    expect(errorsWith(['equal'])).toMatchObject([{ code: 'rego_type_error', message: 'undefined function upper', location: { row: 5 } }]);
  });

  it('operators are built-ins too: equal must be listed', () => {
    expect(errorsWith(['upper']).map((e) => e.message)).toEqual(['undefined function equal', 'undefined function equal']);
  });

  it('listed built-ins and user functions compile; no list allows every built-in', () => {
    expect(errorsWith(['upper', 'equal'])).toEqual([]);
    expect(errorsWith(undefined)).toEqual([]);
  });
});
