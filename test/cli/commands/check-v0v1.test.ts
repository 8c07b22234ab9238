// `regolith check --v0-v1` (opa check's): every module must read as Rego v0 and as v1 —
// v1 keywords with `import rego.v1`, nothing v0-only.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { cli } from '../run-in-process.js';

describe('check --v0-v1', () => {
  const dir = writeTree({
    'both.rego': 'package x\n\nimport rego.v1\n\np if true\n',
    'v1only.rego': 'package y\n\np if true\n',
    'v0only.rego': 'package z\n\np { true }\n',
  });

  it('passes a module both versions read', async () => {
    expect(await cli(['check', '--v0-v1', join(dir, 'both.rego')])).toMatchObject({ code: 0, stderr: '' });
  });

  it('fails a v1 module without import rego.v1 (v0 cannot read it), which plain check accepts', async () => {
    expect((await cli(['check', join(dir, 'v1only.rego')])).code).toBe(0);
    const r = await cli(['check', '--v0-v1', join(dir, 'v1only.rego')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'v1only.rego')}:3: rego_parse_error`);
  });

  it('fails a v0-only module', async () => {
    const r = await cli(['check', '--v0-v1', join(dir, 'v0only.rego')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('`if` keyword is required before rule body');
  });
});
