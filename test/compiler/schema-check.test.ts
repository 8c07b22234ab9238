// compile({inputType, schemas}): `schemas:` annotations (inline or `schema.<path>` from a
// schema set) type input and data refs in their scope, with OPA's errors: undefined ref,
// match error (left/right types), invalid argument(s), undefined schema. Policies OPA
// accepts (its documented examples) compile.

import { describe, expect, it } from 'vitest';
import { parseModule, parseQuery } from '../../src/lang/index.js';
import { compile, RegoCompileError, type CompileOptions } from '../../src/compiler/index.js';
import { schemaToType } from '../../src/compiler/schema-types.js';
import '../../src/eval/builtins/index.js';

type Err = { code: string; message: string; location?: { row: number }; details?: unknown };

function errorsOf(sources: string | string[], opts: CompileOptions = {}): Err[] {
  const list = Array.isArray(sources) ? sources : [sources];
  try {
    compile(
      list.map((src, i) => parseModule(src, { filename: `m${i}.rego`, regoVersion: 'v1' })),
      opts,
    );
  } catch (e) {
    if (e instanceof RegoCompileError) return e.errors as never;
    throw e;
  }
  return [];
}

const ACL = { type: 'object', properties: { alice: { type: 'array', items: { type: 'string' } }, bob: { type: 'array', items: { type: 'string' } } } };
const INPUT = { type: 'object', properties: { operation: { type: 'string' }, user: { type: 'string' }, n: { type: 'number' } } };
const SET: CompileOptions['schemas'] = new Map<string, unknown>([
  ['input', INPUT],
  ['acl-schema', ACL],
  ['k8s/pod', { type: 'object', properties: { spec: { type: 'object', properties: { containers: { type: 'array', items: { type: 'object', properties: { image: { type: 'string' } } } } } } } }],
]);

describe('schemas annotations', () => {
  const annotated = (body: string, scope = '') => `package policy

# METADATA
${scope}# schemas:
#   - input: schema.input
#   - data.acl: schema["acl-schema"]
allow if {
${body}
}
`;

  it("OPA's documented ACL example compiles; a key the data schema lacks is undefined ref", () => {
    expect(errorsOf(annotated('  access := data.acl.alice\n  access[_] == input.operation'), { schemas: SET })).toEqual([]);
    const errs = errorsOf(annotated('  access := data.acl.foo\n  access[_] == input.operation'), { schemas: SET });
    expect(errs).toMatchObject([{ code: 'rego_type_error', message: 'undefined ref: data.acl.foo', location: { row: 8 }, details: { pos: 2, oneOf: ['alice', 'bob'] } }]);
  });

  it('the input schema applies to the annotated rule only (rule scope), other data paths are any', () => {
    const src = annotated('  input.operations == "x"') + '\nother if input.operations == "x"\nthird if data.foo.bar == 1\n';
    expect(errorsOf(src, { schemas: SET }).map((e) => [e.message, e.location?.row])).toEqual([['undefined ref: input.operations', 8]]);
  });

  it('document scope covers every rule of that name; package and subpackages scope every rule below', () => {
    const doc = `package policy

# METADATA
# scope: document
# schemas:
#   - input: schema.input
allow if input.operation == "read"

allow if input.usr == "x"

deny if input.usr == "y"
`;
    expect(errorsOf(doc, { schemas: SET }).map((e) => e.message)).toEqual(['undefined ref: input.usr']);
    const pkg = `# METADATA
# scope: subpackages
# schemas:
#   - input: schema.input
package kubernetes
`;
    const sub = 'package kubernetes.admission.pods\n\ndeny if input.usr == "y"\n';
    const unrelated = 'package other\n\ndeny if input.usr == "y"\n';
    expect(errorsOf([pkg, sub, unrelated], { schemas: SET }).map((e) => e.message)).toEqual(['undefined ref: input.usr']);
  });

  it('a schema named by ref is ignored without a schema set, and undefined schema with one', () => {
    const src = annotated('  input.nope == "x"');
    expect(errorsOf(src)).toEqual([]);
    const missing = 'package p\n\n# METADATA\n# schemas:\n#   - input: schema.nothere\nallow if input.x\n';
    expect(errorsOf(missing, { schemas: SET })).toMatchObject([{ code: 'rego_type_error', message: 'undefined schema: schema.nothere', location: { row: 6 } }]);
  });

  it("a named schema with a $ref Regolith cannot read is a rego_type_error at the rule that uses it, an unused one nothing", () => {
    const set = new Map<string, unknown>([['remote', { $ref: 'https://example.com/s.json' }], ...SET!]);
    const uses = 'package p\n\n# METADATA\n# schemas:\n#   - input: schema.remote\nallow if input.x\n';
    expect(errorsOf(uses, { schemas: set })).toMatchObject([{ code: 'rego_type_error', location: { row: 6 } }]);
    expect(errorsOf('package p\n\nallow if input.x\n', { schemas: set })).toEqual([]);
  });

  it('inline schema definitions apply without a schema set, on input and data paths', () => {
    const src = `package p

# METADATA
# schemas:
#   - input.user: {type: object, properties: {name: {type: string}}}
#   - data.cfg: {type: object, properties: {level: {type: number}}}
allow if {
  input.user.name == "ann"
  input.other == 1
  data.cfg.levle > 1
}
`;
    expect(errorsOf(src).map((e) => e.message)).toEqual(['undefined ref: data.cfg.levle']);
    expect(errorsOf(src.replace('levle', 'level'))).toEqual([]);
  });

  it('a later, closer annotation overrides part of an earlier type (OPA override)', () => {
    const src = `# METADATA
# schemas:
#   - input: {type: object, properties: {request: {type: object, properties: {kind: {type: string}, object: {type: object}}}}}
package kubernetes.admission

# METADATA
# schemas:
#   - input.request.object: schema.k8s.pod
deny contains msg if {
  input.request.kind == "Pod"
  image := input.request.object.spec.containers[_].image
  msg := image
}

bad contains msg if {
  input.request.kind == "Pod"
  msg := input.request.object.spec.containers[_].imag
}
`;
    // `bad` has only the package schema, where request.object is any: nothing to report.
    expect(errorsOf(src, { schemas: SET })).toEqual([]);
    const typo = src.replace('containers[_].image\n  msg := image', 'containers[_].imag\n  msg := image');
    expect(errorsOf(typo, { schemas: SET }).map((e) => e.message)).toEqual(['undefined ref: input.request.object.spec.containers[$0].imag']);
  });

  it('an else branch has the document and package schemas but not the rule-scoped ones', () => {
    const src = `package p

# METADATA
# schemas:
#   - input: {type: object, properties: {a: {type: string}}}
r := 1 if {
  input.a == "x"
} else := 2 if {
  input.b == "y"
}
`;
    expect(errorsOf(src)).toEqual([]);
    expect(errorsOf(src.replace('input.a ==', 'input.z =='), {}).map((e) => e.message)).toEqual(['undefined ref: input.z']);
  });
});

describe('type mismatches against schema types', () => {
  const typed = (body: string) => `package p

# METADATA
# schemas:
#   - input: schema.input
allow if {
${body}
}
`;

  it('= between a typed ref and a constant of another type is match error with left/right types', () => {
    const errs = errorsOf(typed('  input.n = "ten"'), { schemas: SET });
    expect(errs).toMatchObject([{ code: 'rego_type_error', message: 'match error', location: { row: 7 }, details: { a: { type: 'number' }, b: { type: 'string' } } }]);
    expect(new RegoCompileError(errs as never).message).toBe('1 error occurred: m0.rego:7: rego_type_error: match error\n\tleft  : number\n\tright : string');
  });

  it('a local bound to a typed ref carries its type to later expressions and refs', () => {
    expect(errorsOf(typed('  x := input.n\n  x = "s"'), { schemas: SET }).map((e) => e.message)).toEqual(['match error']);
    expect(errorsOf(typed('  x := input.user\n  x.name == "s"'), { schemas: SET })).toMatchObject([{ message: 'undefined ref: x.name', details: { pos: 0, have: { type: 'string' } } }]);
  });

  it("a built-in argument of a known, wrong type is OPA's invalid argument(s)", () => {
    const errs = errorsOf(typed('  startswith(input.n, "a")'), { schemas: SET });
    expect(errs).toMatchObject([{ message: 'startswith: invalid argument(s)', details: { have: ['number', 'string'], want: '(string, string)' } }]);
    expect(errorsOf(typed('  count(input.n) > 0'), { schemas: SET }).map((e) => e.message)).toEqual(['count: invalid argument(s)']);
    expect(errorsOf(typed('  n := count(input.user)\n  n = "x"'), { schemas: SET }).map((e) => e.message)).toEqual(['match error']);
  });

  it('== (equal takes any), unions and unknown types are never errors', () => {
    expect(errorsOf(typed('  input.n == "ten"'), { schemas: SET })).toEqual([]);
    expect(errorsOf(typed('  x := data.whatever\n  x = "s"\n  startswith(x, "a")'), { schemas: SET })).toEqual([]);
    const union = 'package p\n\n# METADATA\n# schemas:\n#   - input: {type: object, properties: {v: {type: [string, number]}}}\nallow if {\n  input.v = 1\n  input.v = "a"\n}\n';
    expect(errorsOf(union)).toEqual([]);
    expect(errorsOf(union.replace('input.v = 1', 'input.v = true')).map((e) => e.message)).toEqual(['match error']);
  });

  it('comprehensions see the locals of their rule; the query is checked against the global input type only', () => {
    expect(errorsOf(typed('  u := input.user\n  xs := [y | y := u.name]\n  count(xs) > 0'), { schemas: SET }).map((e) => e.message)).toEqual(['undefined ref: u.name']);
    const policy = compile([parseModule('package a\n', { filename: 'a.rego', regoVersion: 'v1' })], { inputType: schemaToType(INPUT) });
    expect(() => policy.compileQuery(parseQuery('x := input.n; x = "s"'))).toThrow(/match error/);
    expect(() => policy.compileQuery(parseQuery('x := input.n; x = 1'))).not.toThrow();
  });
});
