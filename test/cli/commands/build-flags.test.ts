// `regolith build` compiles the modules as `opa build` does before writing the bundle:
// compile errors fail the build, and --capabilities limits the built-ins the policies may
// call (OPA's 'undefined function'); --debug lists what goes into the bundle.

import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { cli } from '../run-in-process.js';

function fixture(policy: string): { src: string; out: string; caps: string } {
  const root = writeTree({ 'src/p.rego': policy, 'src/data.json': '{"x": 1}' });
  const caps = join(root, 'caps.json');
  writeFileSync(caps, JSON.stringify({ builtins: [{ name: 'eq' }, { name: 'equal' }, { name: 'count' }] }));
  return { src: join(root, 'src'), out: join(root, 'out.tar.gz'), caps };
}

describe('build --capabilities', () => {
  it('fails on a call to a built-in the capabilities file does not list, and writes nothing', async () => {
    const { src, out, caps } = fixture('package p\n\nallow if startswith(input.a, "b")\n');
    const r = await cli(['build', '--capabilities', caps, '-o', out, src]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rego_type_error: undefined function startswith');
    expect(existsSync(out)).toBe(false);
  });

  it('builds when every call is listed, or without the flag', async () => {
    const { src, out, caps } = fixture('package p\n\nallow if count(input.a) == 1\n');
    expect((await cli(['build', '--capabilities', caps, '-o', out, src])).code).toBe(0);
    expect(existsSync(out)).toBe(true);
    rmSync(out);
    const other = fixture('package p\n\nallow if startswith(input.a, "b")\n');
    expect((await cli(['build', '-o', other.out, other.src])).code).toBe(0);
  });
});

describe('build compiles the modules', () => {
  it('a compile error (unsafe variable) fails the build as opa build does', async () => {
    const { src, out } = fixture('package p\n\nallow if z\n');
    const r = await cli(['build', '-o', out, src]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rego_unsafe_var_error: var z is unsafe');
    expect(existsSync(out)).toBe(false);
  });
});

describe('build --debug', () => {
  it('lists the modules, data files and manifest on stderr', async () => {
    const { src, out } = fixture('package p\n\nallow := true\n');
    const r = await cli(['build', '--debug', '-r', 'v7', '-o', out, src]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`module: /${join(src, 'p.rego').replace(/^\//, '')}`);
    expect(r.stderr).toContain('data: /');
    expect(r.stderr).toContain('"revision":"v7"');
  });
});
