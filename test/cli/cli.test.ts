import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBundleFromBytes, readTarballEntries } from '../../src/bundle/index.js';
import { POLICY, rsaKeys, tempDir, writeTree } from '../bundle/helpers.js';
import { ROOT, ensureBuilt, regolith } from './helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

describe('regolith (top level)', () => {
  it('lists the subcommands in --help with examples', () => {
    const r = regolith(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['build', 'capabilities', 'inspect', 'version']) expect(r.stdout).toMatch(new RegExp(`^\\s+${c}\\b`, 'm'));
    expect(r.stdout).toContain('Examples:');
  });

  it('refuses an unknown command with exit code 1', () => {
    const r = regolith(['frobnicate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    expect(r.stdout).toBe('');
  });

  it('has no colour codes when output is not a terminal', () => {
    const r = regolith(['build', '--nope', 'x'], { env: { NO_COLOR: '' } });
    expect(r.stderr).not.toMatch(/\x1b\[/);
  });
});

describe('regolith version', () => {
  it('prints version and build information', () => {
    const r = regolith(['version']);
    expect(r.code).toBe(0);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(r.stdout).toContain(`Version: ${version}\n`);
    expect(r.stdout).toMatch(/^Rego Version: v1$/m);
    expect(r.stdout).toMatch(/^Platform: \w+\/\w+$/m);
  });
});

describe('regolith capabilities', () => {
  it('prints the current capabilities document', () => {
    const r = regolith(['capabilities', '--current']);
    expect(r.code).toBe(0);
    const caps = JSON.parse(r.stdout) as { builtins: { name: string; decl: { type: string } }[]; wasm_abi_versions: unknown[]; features: string[] };
    expect(caps.wasm_abi_versions).toEqual([]);
    expect(caps.features).toContain('rego_v1');
    const names = caps.builtins.map((b) => b.name);
    expect(names).toEqual([...names].sort());
    const eq = caps.builtins.find((b) => b.name === 'eq') as { infix?: string } | undefined;
    if (eq) expect(eq.infix).toBe('=');
    expect(caps.builtins.every((b) => b.decl.type === 'function')).toBe(true);
    expect(Object.keys(caps)).toEqual(['builtins', 'future_keywords', 'wasm_abi_versions', 'features']);
  });

  it('lists versions without flags and reads a capabilities file', () => {
    expect(regolith(['capabilities']).stdout.trim()).toMatch(/^v\d+\.\d+\.\d+$/);
    const f = join(tempDir(), 'caps.json');
    writeFileSync(f, '{"builtins": [{"name": "plus"}]}');
    expect(JSON.parse(regolith(['capabilities', '--file', f]).stdout)).toEqual({ builtins: [{ name: 'plus' }] });
    const missing = regolith(['capabilities', '--file', '/no/such/caps.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('/no/such/caps.json');
  });
});

describe('regolith build', () => {
  it('builds the sample into an OPA-layout bundle', async () => {
    const out = join(tempDir(), 'bundle.tar.gz');
    const r = regolith(['build', '-b', 'examples/sample', '-r', 'rev-7', '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const entries = await readTarballEntries(readFileSync(out));
    expect(entries.map((e) => e.path)).toEqual(['data.json', 'policy.rego', '.manifest']);
    const b = await readBundleFromBytes(readFileSync(out));
    expect(b.manifest).toMatchObject({ revision: 'rev-7', roots: [''], rego_version: 1 });
    expect(b.modules[0]!.packagePath).toEqual(['httpapi', 'authz']);
    expect((b.data.users as Record<string, unknown>).alice).toBeTruthy();
  });

  it('writes bundle.tar.gz in the current directory by default, and --v0-compatible sets rego_version 0', async () => {
    const cwd = writeTree({ 'p.rego': 'package p\nallow { true }\n', 'x/y.json': '{"z": 1}' });
    const r = regolith(['build', '--v0-compatible', 'p.rego', 'x'], { cwd });
    expect(r.code).toBe(0);
    const b = await readBundleFromBytes(readFileSync(join(cwd, 'bundle.tar.gz')));
    expect(b.manifest.rego_version).toBe(0);
    expect(b.data).toEqual({ z: 1 });
    expect(b.modules.map((m) => m.path)).toEqual(['p.rego']);
  });

  it('honours --ignore', async () => {
    const dir = writeTree({ 'a.rego': POLICY, 'a_test.rego': 'package authz\n', '.git/config.json': '{}' });
    const out = join(tempDir(), 'b.tar.gz');
    const r = regolith(['build', '--ignore', '*_test.rego', '--ignore', '.*', '-o', out, dir]);
    expect(r.code).toBe(0);
    const names = (await readTarballEntries(readFileSync(out))).map((e) => e.path);
    expect(names.some((n) => n.endsWith('a.rego'))).toBe(true);
    expect(names.some((n) => n.includes('_test') || n.includes('.git'))).toBe(false);
  });

  it('signs with --signing-key and the bundle verifies with the public key', async () => {
    const keys = rsaKeys();
    const dir = tempDir();
    writeFileSync(join(dir, 'private.pem'), keys.priv);
    writeFileSync(join(dir, 'public.pem'), keys.pub);
    writeFileSync(join(dir, 'claims.json'), '{"scope": "write", "iss": "ci"}');
    const out = join(dir, 'signed.tar.gz');
    const r = regolith(['build', '-b', 'examples/sample', '--signing-key', join(dir, 'private.pem'), '-o', out]);
    expect(r.code).toBe(0);
    const gz = readFileSync(out);
    await expect(
      readBundleFromBytes(gz, { verification: { keys: { default: { key: keys.pub, algorithm: 'RS256' } } } }),
    ).resolves.toBeTruthy();

    // Re-building the signed bundle verifies it first: a wrong key is refused.
    const other = rsaKeys();
    writeFileSync(join(dir, 'other.pem'), other.pub);
    const again = regolith(['build', '-b', out, '--verification-key', join(dir, 'other.pem'), '-o', join(dir, 'x.tar.gz')]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: failed to verify bundle signature/m);
    const ok = regolith(['build', '-b', out, '--verification-key', join(dir, 'public.pem'), '--signing-key', join(dir, 'private.pem'),
      '--claims-file', join(dir, 'claims.json'), '-o', join(dir, 'y.tar.gz')]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const inspected = JSON.parse(regolith(['inspect', '-f', 'json', join(dir, 'y.tar.gz')]).stdout) as { signatures_config: { signatures: string[] } };
    const payload = JSON.parse(Buffer.from(inspected.signatures_config.signatures[0]!.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload).toMatchObject({ scope: 'write', iss: 'ci' });
  });

  it('requires -b to sign', () => {
    const r = regolith(['build', 'examples/sample', '--signing-key', 'secret', '--signing-alg', 'HS256', '-o', join(tempDir(), 'o.tar.gz')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('enable bundle mode (ie. --bundle) to verify or sign bundle files or directories');
  });

  it('fails clearly on wrong usage', () => {
    const noArgs = regolith(['build']);
    expect(noArgs.code).toBe(1);
    expect(noArgs.stderr).toContain("missing required argument 'path'");

    const badFlag = regolith(['build', '--frobnicate', 'examples/sample']);
    expect(badFlag.code).toBe(1);
    expect(badFlag.stderr).toContain("unknown option '--frobnicate'");

    const missing = regolith(['build', '-o', join(tempDir(), 'o.tar.gz'), 'does/not/exist.rego']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('error: stat does/not/exist.rego: no such file or directory\n');

    const roots = writeTree({ '.manifest': '{"roots": ["a"]}', 'b/data.json': '{}' , 'b/x/data.json': '{"k": 1}' });
    const r = regolith(['build', '-b', roots, '-o', join(tempDir(), 'o.tar.gz')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/manifest roots \[a\] do not permit data at path '\/b/);
  });

  it('warns when a .manifest is ignored without -b', () => {
    const dir = writeTree({ '.manifest': '{"roots": ["x"]}', 'p.rego': 'package x\n' });
    const r = regolith(['build', dir, '-o', join(tempDir(), 'o.tar.gz')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('.manifest file found in');
  });

  it('shows examples in --help', () => {
    const r = regolith(['build', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--signing-key');
    expect(r.stdout).toContain('Examples:');
  });
});

describe('regolith inspect', () => {
  it('prints manifest and namespaces as tables', () => {
    const dir = writeTree({
      '.manifest': JSON.stringify({ revision: 'r9', roots: ['authz', 'roles'], metadata: { owner: 'sec' } }),
      'authz/policy.rego': POLICY,
      'roles/data.json': '{"a": 1}',
    });
    const out = join(tempDir(), 'b.tar.gz');
    expect(regolith(['build', '-b', dir, '-o', out]).code).toBe(0);
    const r = regolith(['inspect', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('MANIFEST:');
    expect(r.stdout).toMatch(/\| Revision +\| r9 +\|/);
    expect(r.stdout).toMatch(/\| Roots +\| authz +\|\n\| +\| roles +\|/);
    expect(r.stdout).toMatch(/\| Metadata +\| \{"owner":"sec"\} +\|/);
    expect(r.stdout).toMatch(/\| data\.authz +\| \/authz\/policy\.rego +\|/);
    expect(r.stdout).toMatch(/\| data +\| \/data\.json +\|/);
  });

  it('prints OPA-shaped JSON', () => {
    const r = regolith(['inspect', '--format', 'json', 'examples/sample']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout) as { manifest: unknown; namespaces: Record<string, string[]> };
    expect(info.manifest).toEqual({ revision: '', roots: [''] });
    expect(info.namespaces).toEqual({ data: ['examples/sample/data.json'], 'data.httpapi.authz': ['examples/sample/policy.rego'] });
  });

  it('fails on a missing path, a corrupt archive and a bad format', () => {
    expect(regolith(['inspect', 'nope.tar.gz'])).toMatchObject({ code: 1, stderr: 'error: stat nope.tar.gz: no such file or directory\n' });
    const bad = join(tempDir(), 'bad.tar.gz');
    writeFileSync(bad, 'not a gzip');
    const r = regolith(['inspect', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: bundle read failed/);
    expect(regolith(['inspect', '-f', 'xml', 'examples/sample'])).toMatchObject({ code: 1 });
    expect(regolith(['inspect'])).toMatchObject({ code: 1 });
  });
});
