// `regolith fmt` end to end: the built binary on temporary files, as a user runs it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const UGLY = 'package x\nallow   if {\n    input.user == "admin"\n}\np := 1\n';
const PRETTY = 'package x\n\nallow if {\n\tinput.user == "admin"\n}\n\np := 1\n';
const V0 = 'package legacy\n\nimport future.keywords.in\n\ndefault allow = false\n\nallow {\n\tinput.x in ["a"]\n}\n\nnames[n] {\n\tn := input.names[_]\n}\n';
const V0_AS_V1 = 'package legacy\n\nimport rego.v1\n\ndefault allow := false\n\nallow if {\n\tinput.x in ["a"]\n}\n\nnames contains n if {\n\tn := input.names[_]\n}\n';

describe('regolith fmt', () => {
  it('prints the formatted file on stdout and leaves the file alone', () => {
    const dir = writeTree({ 'a.rego': UGLY });
    const r = regolith(['fmt', join(dir, 'a.rego')]);
    expect(r).toMatchObject({ code: 0, stdout: PRETTY, stderr: '' });
    expect(readFileSync(join(dir, 'a.rego'), 'utf8')).toBe(UGLY);
  });

  it('formats stdin when no path is given', () => {
    expect(regolith(['fmt'], { input: UGLY })).toMatchObject({ code: 0, stdout: PRETTY });
  });

  it('-w rewrites files in place, walking directories for .rego files only', () => {
    const dir = writeTree({ 'a.rego': UGLY, 'sub/b.rego': UGLY, 'sub/c.rego': PRETTY, 'notes.txt': UGLY });
    const r = regolith(['fmt', '-w', dir]);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(dir, 'a.rego'), 'utf8')).toBe(PRETTY);
    expect(readFileSync(join(dir, 'sub/b.rego'), 'utf8')).toBe(PRETTY);
    expect(readFileSync(join(dir, 'sub/c.rego'), 'utf8')).toBe(PRETTY);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe(UGLY);
    // Formatting formatted files changes nothing.
    expect(regolith(['fmt', '-l', dir])).toMatchObject({ code: 0, stdout: '' });
  });

  it('-l lists the files whose formatting differs; --fail makes that an error', () => {
    const dir = writeTree({ 'a.rego': UGLY, 'b.rego': PRETTY, 'sub/c.rego': UGLY });
    const r = regolith(['fmt', '-l', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${join(dir, 'a.rego')}\n${join(dir, 'sub/c.rego')}\n`);
    const f = regolith(['fmt', '-l', '--fail', dir]);
    expect(f.code).not.toBe(0);
    expect(f.stdout).toBe(`${join(dir, 'a.rego')}\n`);
    expect(f.stderr).toContain('unexpected diff');
    expect(regolith(['fmt', '--fail', join(dir, 'b.rego')])).toMatchObject({ code: 0, stdout: PRETTY });
    expect(regolith(['fmt', '--fail', join(dir, 'a.rego')]).code).not.toBe(0);
  });

  it('-d prints a unified diff', () => {
    const dir = writeTree({ 'a.rego': UGLY, 'b.rego': PRETTY });
    const file = join(dir, 'a.rego');
    const r = regolith(['fmt', '-d', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [`--- a/${file}`, `+++ b/${file}`, '@@ -1,5 +1,7 @@', ' package x', '-allow   if {', '-    input.user == "admin"', '+', '+allow if {', '+\tinput.user == "admin"', ' }', '+', ' p := 1', ''].join('\n'),
    );
    expect(regolith(['fmt', '-d', join(dir, 'b.rego')])).toMatchObject({ code: 0, stdout: '' });
    expect(regolith(['fmt', '-d', '--fail', file]).code).not.toBe(0);
  });

  it('--v0-compatible formats v0 policies as v0; v0 is rejected by default', () => {
    const dir = writeTree({ 'old.rego': V0 });
    const file = join(dir, 'old.rego');
    expect(regolith(['fmt', '--v0-compatible', file])).toMatchObject({ code: 0, stdout: V0 });
    const r = regolith(['fmt', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`rego_parse_error: \`if\` keyword is required before rule body`);
  });

  it('--v0-v1 converts v0 policies to syntax both versions read (import rego.v1 instead of future imports)', () => {
    const dir = writeTree({ 'old.rego': V0 });
    const file = join(dir, 'old.rego');
    expect(regolith(['fmt', '--v0-v1', file])).toMatchObject({ code: 0, stdout: V0_AS_V1 });
    expect(regolith(['fmt', '--v0-v1', '-w', file]).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(V0_AS_V1);
    expect(regolith(['fmt', '--fail', file])).toMatchObject({ code: 0, stdout: V0_AS_V1 });
  });

  it('reports parse errors as OPA prints them, with exit code 2 for a file (1 for stdin)', () => {
    const dir = writeTree({ 'bad.rego': 'package x\n\nallow if {\n' });
    const file = join(dir, 'bad.rego');
    const r = regolith(['fmt', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(`failed to format Rego source file: 1 error occurred: ${file}:`)).toBe(true);
    expect(r.stderr).toMatch(/:\d+: rego_parse_error: unexpected eof token\n$/);
    const s = regolith(['fmt'], { input: 'package x\n\nallow if {\n' });
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/^1 error occurred: stdin:\d+: rego_parse_error: unexpected eof token/);
  });

  it('fails on a missing path and on unknown flags', () => {
    const r = regolith(['fmt', 'nope.rego']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nope.rego: no such file or directory');
    expect(regolith(['fmt', '--bogus']).code).toBe(1);
    expect(regolith(['fmt', '--help']).stdout).toContain('--v0-v1');
  });
});
