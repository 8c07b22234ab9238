// -s/--schema <file or dir> on eval, check and test: a file types input everywhere, a
// directory's schemas are named by `schemas:` annotations, as `opa eval/check --schema` do;
// errors in OPA's shape.

import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, regolith } from './helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const SCHEMA = {
  type: 'object',
  properties: { user: { $ref: '#/definitions/user' } },
  definitions: { user: { type: 'object', properties: { name: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } } } } },
};

function setup(policy: string): { dir: string; policy: string; schema: string; schemaDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-schema-'));
  const file = join(dir, 'p.rego');
  writeFileSync(file, policy);
  const schemas = mkdtempSync(join(tmpdir(), 'regolith-schema-files-'));
  const schema = join(schemas, 'input-schema.json');
  writeFileSync(schema, JSON.stringify(SCHEMA));
  const schemaDir = join(schemas, 'dir');
  mkdirSync(schemaDir);
  writeFileSync(join(schemaDir, 'input.json'), JSON.stringify(SCHEMA));
  return { dir, policy: file, schema, schemaDir };
}

const GOOD = 'package p\n\nallow if "admin" in input.user.roles\n';
const BAD = 'package p\n\nallow if input.user.nmae == "ann"\n';

describe('eval --schema', () => {
  it('a ref the schema does not have is rego_type_error undefined ref, in OPA JSON shape with details', () => {
    const { policy, schema } = setup(BAD);
    const r = regolith(['eval', '--schema', schema, '-d', policy, 'data.p.allow']);
    expect(r.code).toBe(2);
    const err = (JSON.parse(r.stdout) as { errors: Record<string, unknown>[] }).errors;
    expect(err).toHaveLength(1);
    expect(err[0]).toMatchObject({
      code: 'rego_type_error',
      message: 'undefined ref: input.user.nmae',
      location: { file: policy, row: 3, col: 10 },
      details: { pos: 2, want: { type: 'string' }, oneOf: ['name', 'roles'] },
    });
  });

  it('a policy within the schema evaluates; the same policy without --schema is not checked', () => {
    const { policy, schema } = setup(GOOD);
    const r = regolith(['eval', '--schema', schema, '-d', policy, '-I', '--format', 'raw', 'data.p.allow'], { input: '{"user":{"roles":["admin"]}}' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true\n');
    const bad = setup(BAD);
    expect(regolith(['eval', '-d', bad.policy, '--format', 'raw', 'data.p.allow']).code).toBe(0);
  });

  it('the query is checked against a single schema file; a directory gives input no type by itself (as OPA)', () => {
    const { schema, schemaDir } = setup(GOOD);
    const r = regolith(['eval', '--schema', schema, '--format', 'pretty', 'input.usr']);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain('rego_type_error: undefined ref: input.usr');
    expect(regolith(['eval', '--schema', schemaDir, '--format', 'pretty', 'input.usr']).code).toBe(0);
    const bad = setup(BAD);
    expect(regolith(['eval', '--schema', bad.schemaDir, '-d', bad.policy, 'data.p.allow']).code).toBe(0);
  });

  it('a directory: schemas: annotations name its files as schema.<path>, for input and data, with OPA\'s error lines', () => {
    const { dir, schemaDir } = setup(GOOD);
    mkdirSync(join(schemaDir, 'k8s'));
    writeFileSync(join(schemaDir, 'k8s', 'acl.yaml'), 'type: object\nproperties:\n  alice: {type: array, items: {type: string}}\n');
    const policy = join(dir, 'acl.rego');
    writeFileSync(
      policy,
      'package acl\n\n# METADATA\n# schemas:\n#   - input: schema.input\n#   - data.acl: schema.k8s.acl\nallow if {\n  data.acl.bob[_] == input.user.name\n}\n',
    );
    const r = regolith(['eval', '--schema', schemaDir, '-d', policy, '--format', 'pretty', 'data.acl.allow']);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain(
      `1 error occurred: ${policy}:8: rego_type_error: undefined ref: data.acl.bob[$0]\n\tdata.acl.bob[$0]\n\t         ^\n\t         have: "bob"\n\t         want (one of): ["alice"]`,
    );
    writeFileSync(policy, 'package acl\n\n# METADATA\n# schemas:\n#   - input: schema.nothere\nallow if input.x\n');
    const missing = regolith(['check', '--schema', schemaDir, policy]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${policy}:6: rego_type_error: undefined schema: schema.nothere`);
  });

  it('= between a typed ref and another type is match error with its left/right lines', () => {
    const { policy, schema } = setup('package p\n\nallow if input.user.name = 7\n');
    const r = regolith(['eval', '--schema', schema, '-d', policy, '--format', 'pretty', 'data.p.allow']);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain(`1 error occurred: ${policy}:3: rego_type_error: match error\n\tleft  : string\n\tright : number`);
    const json = regolith(['eval', '--schema', schema, '-d', policy, 'data.p.allow']);
    expect((JSON.parse(json.stdout) as { errors: unknown[] }).errors[0]).toMatchObject({ message: 'match error', details: { a: { type: 'string' }, b: { type: 'number' } } });
  });

  it('a missing schema file or a $ref outside the document is a clear error', () => {
    const { dir } = setup(GOOD);
    const missing = regolith(['eval', '--schema', join(dir, 'none.json'), 'true']);
    expect(missing.code).toBe(2); // OPA's eval: a schema it cannot read stops it with exit 2
    expect(missing.stderr).toContain(`unable to read schema: stat ${join(dir, 'none.json')}: no such file or directory`);
    const remote = join(dir, 'remote.json');
    writeFileSync(remote, JSON.stringify({ $ref: 'https://example.com/s.json' }));
    const r = regolith(['eval', '--schema', remote, 'true']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('only references within the schema document');
  });
});

describe('check --schema', () => {
  it("reports the undefined ref in OPA's pretty summary line, and passes a policy within the schema", () => {
    const bad = setup(BAD);
    const r = regolith(['check', '--schema', bad.schema, bad.policy]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`1 error occurred: ${bad.policy}:3: rego_type_error: undefined ref: input.user.nmae`);
    const good = setup(GOOD);
    expect(regolith(['check', '--schema', good.schema, good.policy]).code).toBe(0);
    expect(regolith(['check', '--schema', bad.schemaDir, bad.policy]).code).toBe(0);
  });
});

describe('test --schema', () => {
  it('the modules under test are checked against the input schema', () => {
    const bad = setup(BAD);
    writeFileSync(join(bad.dir, 'p_test.rego'), 'package p_test\n\nimport data.p\n\ntest_allow if p.allow with input as {"user": {"name": "ann"}}\n');
    const r = regolith(['test', '--schema', bad.schema, bad.dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rego_type_error: undefined ref: input.user.nmae');
    const good = setup(GOOD);
    writeFileSync(join(good.dir, 'p_test.rego'), 'package p_test\n\nimport data.p\n\ntest_allow if p.allow with input as {"user": {"roles": ["admin"]}}\n');
    const ok = regolith(['test', '--schema', good.schema, good.dir]);
    expect(ok.stderr + ok.stdout).toContain('PASS: 1/1');
    expect(ok.code).toBe(0);
  });
});
