import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../../bundle/helpers.js';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const BROKEN = 'package x\n\nallow if {\n';

describe('regolith parse', () => {
  it('prints OPA-shaped JSON', () => {
    const r = regolith(['parse', '--format', 'json', 'examples/sample/policy.rego']);
    expect(r.code).toBe(0);
    const ast = JSON.parse(r.stdout) as { package: { path: { type: string; value: string }[] }; rules: unknown[] };
    expect(ast.package.path).toEqual([
      { type: 'var', value: 'data' },
      { type: 'string', value: 'httpapi' },
      { type: 'string', value: 'authz' },
    ]);
    expect(ast.rules.length).toBeGreaterThan(3);
    expect(r.stdout).not.toContain('"location"');
    const withLoc = regolith(['parse', '-f', 'json', '--json-include', 'locations', 'examples/sample/policy.rego']);
    expect(withLoc.stdout).toContain('"location"');
  });

  it('prints a tree by default', () => {
    const r = regolith(['parse', 'examples/sample/policy.rego']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('module');
    expect(r.stdout).toContain('string "httpapi"');
  });

  it('reports parse errors in OPA format with exit code 1', () => {
    const f = join(tempDir(), 'bad.rego');
    writeFileSync(f, BROKEN);
    const r = regolith(['parse', f]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^1 error occurred: ${f}:\\d+: rego_parse_error: `));
    const j = regolith(['parse', '-f', 'json', f]);
    expect(j.code).toBe(1);
    const errs = JSON.parse(j.stderr) as { errors: { code: string; location: { file: string } }[] };
    expect(errs.errors[0]).toMatchObject({ code: 'rego_parse_error', location: { file: f } });
  });

  it('fails on a missing file and on wrong usage', () => {
    expect(regolith(['parse', 'nope.rego'])).toMatchObject({ code: 1, stderr: 'error: open nope.rego: no such file or directory\n' });
    expect(regolith(['parse']).code).toBe(1);
    expect(regolith(['parse', '--format', 'yaml', 'examples/sample/policy.rego']).code).toBe(1);
  });
});

describe('regolith check', () => {
  it('passes valid policies silently', () => {
    expect(regolith(['check', 'examples/sample'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('reports every broken file', () => {
    const dir = writeTree({ 'a.rego': BROKEN, 'sub/b.rego': BROKEN, 'ok.rego': 'package ok\n\np := 1\n' });
    const r = regolith(['check', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^2 errors occurred:\n.*a\.rego:\d+: rego_parse_error: .*\n.*sub\/b\.rego:\d+: rego_parse_error: /);
    const j = regolith(['check', '--format', 'json', dir]);
    expect((JSON.parse(j.stderr) as { errors: unknown[] }).errors).toHaveLength(2);
    const limited = regolith(['check', '-m', '1', '-f', 'json', dir]);
    expect((JSON.parse(limited.stderr) as { errors: unknown[] }).errors).toHaveLength(1);
  });

  it('parses v0 syntax only with --v0-compatible', () => {
    const dir = writeTree({ 'old.rego': 'package old\n\nallow { input.x == 1 }\n' });
    expect(regolith(['check', dir]).code).toBe(1);
    expect(regolith(['check', '--v0-compatible', dir]).code).toBe(0);
  });

  it('checks the policies of a bundle with -b', () => {
    expect(regolith(['check', '-b', 'examples/sample']).code).toBe(0);
    expect(regolith(['check', 'no/such/dir']).code).toBe(1);
  });
});

describe('regolith build with invalid Rego', () => {
  it('fails with the parse error and writes nothing', () => {
    const dir = writeTree({ 'bad.rego': BROKEN });
    const out = join(tempDir(), 'o.tar.gz');
    const r = regolith(['build', dir, '-o', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: 1 error occurred: .*bad\.rego:\d+: rego_parse_error: /);
    expect(regolith(['inspect', out]).code).toBe(1);
  });

  it('parses v0 modules of a bundle whose manifest says rego_version 0', () => {
    const dir = writeTree({ '.manifest': '{"rego_version": 0}', 'old.rego': 'package old\n\nallow { true }\n' });
    expect(regolith(['build', '-b', dir, '-o', join(tempDir(), 'o.tar.gz')]).code).toBe(0);
    expect(regolith(['build', dir, '-o', join(tempDir(), 'o.tar.gz')]).code).toBe(1);
  });
});
