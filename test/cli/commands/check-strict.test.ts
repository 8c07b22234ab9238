import { beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const LOOSE = 'package loose\n\nimport data.unused\n\nf(a, b) := a\n\np if {\n  y := 1\n  true\n}\n';

describe('regolith check: compile errors and --strict', () => {
  it('reports compile errors, not only parse errors, in OPA format', () => {
    const dir = writeTree({ 'p.rego': 'package p\n\nallow if {\n  x := 1\n  x := 2\n}\n' });
    const r = regolith(['check', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^1 error occurred: .*p\.rego:5: rego_compile_error: var x assigned above$/);
  });

  it('prints type errors with their have/want lines, and OPA JSON', () => {
    const dir = writeTree({ 't.rego': 'package t\n\nn := count(1)\n' });
    const r = regolith(['check', dir]);
    expect(r.stderr).toContain('rego_type_error: count: invalid argument(s)\n\thave: (number)\n\twant: (any<string, array[any], object[any: any], set[any]>)');
    const j = JSON.parse(regolith(['check', '-f', 'json', dir]).stderr) as { errors: { code: string; message: string; location: { row: number; col: number } }[] };
    expect(j.errors).toMatchObject([{ code: 'rego_type_error', message: 'count: invalid argument(s)', location: { row: 3, col: 6 } }]);
  });

  it('--strict adds unused imports, args and assigned vars', () => {
    const dir = writeTree({ 'l.rego': LOOSE });
    expect(regolith(['check', dir]).code).toBe(0);
    const r = regolith(['check', '--strict', '-f', 'json', dir]);
    expect(r.code).toBe(1);
    // OPA stops at the first failing stage: unused imports are found while resolving refs.
    expect((JSON.parse(r.stderr) as { errors: { message: string }[] }).errors.map((e) => e.message)).toEqual(['import data.unused unused']);
    const noImport = writeTree({ 'l.rego': LOOSE.replace('import data.unused\n\n', '') });
    const r2 = regolith(['check', '-S', noImport]);
    expect(r2.stderr).toMatch(/^2 errors occurred:\n.*l\.rego:3: rego_compile_error: unused argument b\. \(hint: use _ \(wildcard variable\) instead\)\n.*l\.rego:6: rego_compile_error: assigned var y unused/);
  });

  it('--strict applies v1 checks to v0 modules (shadowing, deprecated built-ins)', () => {
    const dir = writeTree({ 'o.rego': 'package o\n\np { re_match("a", input.x) }\n' });
    expect(regolith(['check', '--v0-compatible', dir]).code).toBe(0);
    const r = regolith(['check', '--v0-compatible', '--strict', dir]);
    expect(r.stderr).toContain('rego_type_error: deprecated built-in function calls in expression: re_match');
  });
});
