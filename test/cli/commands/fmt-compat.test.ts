// `regolith fmt --v0-v1` / `--rego-v1` (OPA 1.x: one flag, two names): modules written so
// that both Rego versions read them — v1 keywords with `import rego.v1` in place of the
// future.keywords imports; v0 read by default, v1 with --v1-compatible; plain v1 with
// --drop-v0-imports. Also --check-result=<bool> and the exit code of an unformattable file.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { cli } from '../run-in-process.js';

const V0 = 'package legacy\n\nimport future.keywords.in\nimport data.lib\n\ndefault allow = false\n\nallow {\n\tinput.x in ["a"]\n}\n\nnames[n] {\n\tn := input.names[_]\n}\n';
const BOTH = 'package legacy\n\nimport data.lib\nimport rego.v1\n\ndefault allow := false\n\nallow if {\n\tinput.x in ["a"]\n}\n\nnames contains n if {\n\tn := input.names[_]\n}\n';

describe('fmt --v0-v1 / --rego-v1', () => {
  it('writes v0 modules for both versions: v1 keywords, import rego.v1, no future.keywords import', async () => {
    const file = join(writeTree({ 'old.rego': V0 }), 'old.rego');
    for (const flag of ['--v0-v1', '--rego-v1']) {
      const r = await cli(['fmt', flag, file]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(BOTH);
    }
    // the result reads (unchanged) as v0 and as v1
    expect(await cli(['fmt', '--v0-compatible', '--fail', '-l', join(writeTree({ 'b.rego': BOTH }), 'b.rego')])).toMatchObject({ code: 0, stdout: '' });
    expect((await cli(['fmt', '--fail', join(writeTree({ 'b.rego': BOTH }), 'b.rego')])).stdout).toBe(BOTH);
  });

  it('with --v1-compatible reads v1 and adds import rego.v1', async () => {
    const file = join(writeTree({ 'new.rego': 'package x\n\nallow if input.ok\n' }), 'new.rego');
    expect((await cli(['fmt', '--v0-v1', '--v1-compatible', file])).stdout).toBe('package x\n\nimport rego.v1\n\nallow if input.ok\n');
    // without it, v1 input is read as v0 and rejected
    expect((await cli(['fmt', '--v0-v1', file])).code).toBe(2);
  });

  it('with --drop-v0-imports writes plain v1 (-w rewrites the file)', async () => {
    const file = join(writeTree({ 'old.rego': V0 }), 'old.rego');
    expect((await cli(['fmt', '--v0-v1', '--drop-v0-imports', '-w', file])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(BOTH.replace('import rego.v1\n', ''));
  });
});

describe('fmt --check-result and exit codes', () => {
  it('--check-result=false is accepted, a value that is not a boolean is refused', async () => {
    const file = join(writeTree({ 'a.rego': 'package x\n\np := 1\n' }), 'a.rego');
    expect((await cli(['fmt', '--check-result=false', file])).stdout).toBe('package x\n\np := 1\n');
    expect((await cli(['fmt', '--check-result=true', file])).code).toBe(0);
    const bad = await cli(['fmt', '--check-result=maybe', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid argument "maybe" for "--check-result" flag');
  });

  it('a file that does not parse exits 2, as opa fmt', async () => {
    const file = join(writeTree({ 'bad.rego': 'package x\n\nallow if {\n' }), 'bad.rego');
    const r = await cli(['fmt', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('failed to format Rego source file: 1 error occurred:');
  });
});

describe('fmt --capabilities', () => {
  it('is accepted (the formatter reads every keyword)', async () => {
    const file = join(writeTree({ 'a.rego': 'package x\n\np := 1\n' }), 'a.rego');
    expect(await cli(['fmt', '--capabilities', 'caps.json', file])).toMatchObject({ code: 0, stdout: 'package x\n\np := 1\n' });
  });
});
