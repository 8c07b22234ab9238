// `regolith run` without --server starts OPA's interactive shell: driven through piped stdin
// (no prompts, as OPA's line reader when input is redirected) and through a pseudo-terminal
// (`script`), over the paths given as the server loads them; history kept across sessions.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { rsaKeys, tempDir, writeTree } from '../../bundle/helpers.js';
import { BIN, ROOT, ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const BANNER_ANYWHERE = /Regolith \S+ \(an OPA-compatible policy engine\)\n\nRun 'help' to see a list of commands\.\n/;
const BANNER = /^Regolith \S+ \(an OPA-compatible policy engine\)\n\nRun 'help' to see a list of commands\.\n\n/;

function policyDir(): string {
  return writeTree({
    'authz.rego': 'package authz\n\nallow if input.user == data.admins[_]\n',
    'data.json': '{"admins": ["alice"]}',
    'input.json': '{"user": "alice"}',
  });
}

describe('regolith run (interactive shell) through piped stdin', () => {
  it('loads the paths, evaluates queries and rules, and ends at end of input', () => {
    const dir = policyDir();
    const history = join(tempDir(), 'history');
    const r = regolith(['run', '-H', history, join(dir, 'authz.rego'), join(dir, 'data.json'), `repl.input:${join(dir, 'input.json')}`], {
      input: 'data.authz.allow\nx := 2\nx * 21\nq if {\n  x > 1\n}\n\nq\ndata.admins[i]\nnope\n',
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(BANNER);
    const lines = r.stdout.replace(BANNER, '').split('\n');
    expect(lines.slice(0, 5)).toEqual(['true', "Rule 'x' defined in package repl. Type 'show' to see rules.", '42', "Rule 'q' defined in package repl. Type 'show' to see rules.", 'true']);
    expect(r.stdout).toContain('| 0 | "alice"        |');
    expect(r.stdout).toContain('1 error occurred: 1:1: rego_unsafe_var_error: var nope is unsafe\n\n');
    // The typed lines are the history for the next session (empty lines left out).
    expect(readFileSync(history, 'utf8')).toBe('data.authz.allow\nx := 2\nx * 21\nq if {\n  x > 1\n}\nq\ndata.admins[i]\nnope\n');
    const again = regolith(['run', '--history', history], { input: 'exit\n' });
    expect(again.code).toBe(0);
    expect(readFileSync(history, 'utf8')).toBe('data.authz.allow\nx := 2\nx * 21\nq if {\n  x > 1\n}\nq\ndata.admins[i]\nnope\nexit\n');
  });

  it('prints JSON with --format json, and stops at exit', () => {
    const r = regolith(['run', '--history', join(tempDir(), 'h'), '--format', 'json'], { input: '1 + 1\nexit\n2 + 2\n' });
    expect(r.code).toBe(0);
    const body = r.stdout.replace(BANNER, '');
    expect(JSON.parse(body)).toEqual({ result: [{ expressions: [{ value: 2, text: '1 + 1', location: { row: 1, col: 1 } }] }] });
  });

  it('loads signed bundles with -b --verification-key, and refuses a wrong key or paths that do not compile', () => {
    const dir = writeTree({ '.manifest': '{"roots": ["authz"]}', 'authz/p.rego': 'package authz\n\nallow := true\n' });
    const keys = rsaKeys();
    const k = tempDir();
    writeFileSync(join(k, 'private.pem'), keys.priv);
    writeFileSync(join(k, 'public.pem'), keys.pub);
    writeFileSync(join(k, 'other.pem'), rsaKeys().pub);
    expect(regolith(['sign', '-b', dir, '--signing-key', join(k, 'private.pem'), '-o', dir]).code).toBe(0);
    const ok = regolith(['run', '--history', join(k, 'h'), '-b', dir, '--verification-key', join(k, 'public.pem')], { input: 'data.authz.allow\n' });
    expect(ok.stderr).toBe('');
    expect(ok.stdout.replace(BANNER, '')).toBe('true\n\n');
    const bad = regolith(['run', '--history', join(k, 'h'), '-b', dir, '--verification-key', join(k, 'other.pem')], { input: 'data.authz.allow\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('failed to verify bundle signature');
    const broken = writeTree({ 'x.rego': 'package x\n\np if { y }\n' });
    const r = regolith(['run', broken], { input: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rego_unsafe_var_error: var y is unsafe');
    expect(regolith(['run', '--format', 'yaml'], { input: '' }).stderr).toContain('invalid argument "yaml" for "-f, --format" flag: must be one of {pretty, json}');
  });
});

describe('regolith run (interactive shell) on a terminal', () => {
  it.skipIf(!hasScript)('prompts with "> " and "| " while a block is open', () => {
    const history = join(tempDir(), 'history');
    const r = spawnSync('sh', ['-c', `script -qec "${process.execPath} ${BIN} run --history ${history}" /dev/null`], {
      cwd: ROOT,
      input: 'p if {\n  true\n}\n\np\nexit\n',
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', TERM: 'xterm' },
      timeout: 60_000,
    });
    const out = r.stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '');
    // The terminal echoes the typed lines; the shell draws its prompts ("| " inside the block).
    expect(out).toMatch(BANNER_ANYWHERE);
    expect(out).toMatch(/\| Rule 'p' defined in package repl\. Type 'show' to see rules\.\n/);
    expect(out).toMatch(/> true\n/);
    expect(readFileSync(history, 'utf8')).toContain('p if {\n');
  });
});
