// compile({inputType}): refs into input checked against a JSON Schema's type, with OPA's
// "undefined ref" errors and details.

import { describe, expect, it } from 'vitest';
import { parseModule, parseQuery } from '../../src/lang/index.js';
import { compile, RegoCompileError } from '../../src/compiler/index.js';
import { schemaToType } from '../../src/compiler/schema-types.js';
import '../../src/eval/builtins/index.js';

const SCHEMA = {
  type: 'object',
  properties: {
    user: { type: 'object', properties: { name: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    n: { type: 'number' },
  },
};

function errorsOf(body: string): { code: string; message: string; location?: { row: number }; details?: unknown }[] {
  try {
    compile([parseModule(`package a\n\n${body}\n`, { filename: 'a.rego', regoVersion: 'v1' })], { inputType: schemaToType(SCHEMA) });
  } catch (e) {
    if (e instanceof RegoCompileError) return e.errors as never;
    throw e;
  }
  return [];
}

describe('input refs against a schema', () => {
  it('a key the schema does not have is undefined ref, with OPA details (pos, want, oneOf)', () => {
    const errs = errorsOf('p if input.user.nmae == "x"');
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ code: 'rego_type_error', message: 'undefined ref: input.user.nmae', location: { row: 3 } });
    expect(errs[0]!.details).toMatchObject({ pos: 2, want: { type: 'string' }, oneOf: ['name', 'roles'] });
    expect((errs[0]!.details as { ref: unknown[] }).ref).toEqual([
      { type: 'var', value: 'input' },
      { type: 'string', value: 'user' },
      { type: 'string', value: 'nmae' },
    ]);
  });

  it('a ref into a scalar is undefined ref with the type it has', () => {
    const errs = errorsOf('p if input.n.x == 1');
    expect(errs).toMatchObject([{ message: 'undefined ref: input.n.x', details: { pos: 1, have: { type: 'number' } } }]);
  });

  it('known keys, array elements, dynamic keys and iteration are fine', () => {
    expect(errorsOf('p if input.user.name == "x"')).toEqual([]);
    expect(errorsOf('p if input.user.roles[_] == "admin"')).toEqual([]);
    expect(errorsOf('p if input.user.roles[0] == "admin"')).toEqual([]);
    expect(errorsOf('p if input.labels.anything == "x"')).toEqual([]);
    expect(errorsOf('p if { some k; input[k] }')).toEqual([]);
  });

  it('a top-level key missing from the schema, in a rule head too', () => {
    expect(errorsOf('p := input.missing').map((e) => e.message)).toEqual(['undefined ref: input.missing']);
  });

  it('queries are checked too; without a schema nothing is', () => {
    const policy = compile([parseModule('package a\n', { filename: 'a.rego', regoVersion: 'v1' })], { inputType: schemaToType(SCHEMA) });
    expect(() => policy.compileQuery(parseQuery('input.usr'))).toThrow('undefined ref: input.usr');
    const plain = compile([parseModule('package a\n\np if input.usr\n', { filename: 'a.rego', regoVersion: 'v1' })]);
    expect(() => plain.compileQuery(parseQuery('input.usr'))).not.toThrow();
  });
});
