// `regolith sign`: .signatures.json as `opa sign --bundle` writes it (one JWT, a files
// claim of name/hash/algorithm, OPA's file names), read back by the bundle loader with the
// matching key, and refused with another key or a changed file.

import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashBundleFile, readBundle } from '../../../src/bundle/index.js';
import { signBundles } from '../../../src/cli/commands/sign.js';
import { rsaKeys, tempDir, writeTree } from '../../bundle/helpers.js';

function decode(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = token.split('.');
  return { header: JSON.parse(Buffer.from(h!, 'base64url').toString()), payload: JSON.parse(Buffer.from(p!, 'base64url').toString()) };
}

function bundleDir(): string {
  return writeTree({
    '.manifest': '{"revision": "r1", "roots": ["authz"]}',
    'authz/policy.rego': 'package authz\n\nallow if input.user == "alice"\n',
    'authz/data.json': '{ "b": 2, "a": 1 }',
  });
}

describe('signBundles', () => {
  it('writes one RS256 JWT listing every file with its SHA-256 digest, named as OPA names them', async () => {
    const dir = bundleDir();
    const out = tempDir();
    const keys = rsaKeys();
    writeFileSync(join(out, 'key.pem'), keys.priv);
    const file = await signBundles([dir], { bundle: true, signingKey: join(out, 'key.pem'), outputFilePath: out });
    expect(file).toBe(join(out, '.signatures.json'));
    const text = readFileSync(file, 'utf8');
    // Go's json.MarshalIndent with a one-space indent, no trailing newline.
    expect(text).toMatch(/^\{\n "signatures": \[\n  "[^"]+"\n \]\n\}$/);
    const { header, payload } = decode((JSON.parse(text) as { signatures: string[] }).signatures[0]!);
    expect(header).toEqual({ alg: 'RS256' });
    const prefix = dir.replace(/^\//, '');
    expect(payload).toEqual({
      files: [
        { name: `${prefix}/.manifest`, hash: hashBundleFile('.manifest', readFileSync(join(dir, '.manifest'))), algorithm: 'SHA-256' },
        { name: `${prefix}/authz/data.json`, hash: hashBundleFile('data.json', Buffer.from('{"a":1,"b":2}')), algorithm: 'SHA-256' },
        { name: `${prefix}/authz/policy.rego`, hash: hashBundleFile('p.rego', readFileSync(join(dir, 'authz/policy.rego'))), algorithm: 'SHA-256' },
      ],
    });
  });

  it('names files relative to the directory when signing "." from inside it, and skips an earlier signature file', async () => {
    const dir = bundleDir();
    writeFileSync(join(dir, '.signatures.json'), '{"signatures": []}');
    const prev = process.cwd();
    process.chdir(dir);
    try {
      await signBundles(['.'], { bundle: true, signingKey: 'secret', signingAlg: 'HS256' });
    } finally {
      process.chdir(prev);
    }
    const { header, payload } = decode((JSON.parse(readFileSync(join(dir, '.signatures.json'), 'utf8')) as { signatures: string[] }).signatures[0]!);
    expect(header).toEqual({ alg: 'HS256' });
    expect((payload.files as { name: string }[]).map((f) => f.name)).toEqual(['.manifest', 'authz/data.json', 'authz/policy.rego']);
  });

  it('adds the claims file to the payload (files always from the bundle)', async () => {
    const dir = bundleDir();
    const claims = join(tempDir(), 'claims.json');
    writeFileSync(claims, '{"scope": "write", "iss": "ci", "files": "ignored"}');
    await signBundles([dir], { bundle: true, signingKey: 'secret', signingAlg: 'HS512', claimsFile: claims, outputFilePath: dir });
    const { payload } = decode((JSON.parse(readFileSync(join(dir, '.signatures.json'), 'utf8')) as { signatures: string[] }).signatures[0]!);
    expect(payload.scope).toBe('write');
    expect(payload.iss).toBe('ci');
    expect(Array.isArray(payload.files)).toBe(true);
  });

  it('a directory signed in place verifies with the public key; another key or a changed file is refused', async () => {
    const dir = bundleDir();
    const keys = rsaKeys();
    const keyFile = join(tempDir(), 'key.pem');
    writeFileSync(keyFile, keys.priv);
    await signBundles([dir], { bundle: true, signingKey: keyFile, outputFilePath: dir });
    const verification = (pub: string) => ({ keys: { default: { key: pub, algorithm: 'RS256' } }, keyid: 'default' });
    const b = await readBundle(dir, { verification: verification(keys.pub) });
    expect(b.manifest.revision).toBe('r1');
    await expect(readBundle(dir, { verification: verification(rsaKeys().pub) })).rejects.toThrow(/failed to verify bundle signature/);
    writeFileSync(join(dir, 'authz/data.json'), '{"a": 2}');
    await expect(readBundle(dir, { verification: verification(keys.pub) })).rejects.toThrow(/digest mismatch/);
  });

  it('signs the files of a bundle archive by their paths in the archive', async () => {
    const { packEntries } = await import('../../../src/bundle/index.js');
    const dir = tempDir();
    const gz = join(dir, 'b.tar.gz');
    writeFileSync(gz, await packEntries([{ path: 'x/data.json', bytes: Buffer.from('{"k": true}') }]));
    await signBundles([gz], { bundle: true, signingKey: 'secret', signingAlg: 'HS256', outputFilePath: dir });
    const { payload } = decode((JSON.parse(readFileSync(join(dir, '.signatures.json'), 'utf8')) as { signatures: string[] }).signatures[0]!);
    expect(payload.files).toEqual([{ name: 'x/data.json', hash: hashBundleFile('x/data.json', Buffer.from('{"k":true}')), algorithm: 'SHA-256' }]);
  });

  it("refuses with OPA's messages: no path, no key, no --bundle, missing path, bad key", async () => {
    await expect(signBundles([], { bundle: true, signingKey: 'k' })).rejects.toThrow('specify atleast one path containing policy and/or data files');
    await expect(signBundles(['x'], { bundle: true })).rejects.toThrow('specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)');
    await expect(signBundles(['x'], { signingKey: 'k' })).rejects.toThrow('enable bundle mode (ie. --bundle) to sign bundle files or directories');
    await expect(signBundles(['/no/such/dir'], { bundle: true, signingKey: 'k' })).rejects.toThrow('stat /no/such/dir: no such file or directory');
    const out = tempDir();
    await expect(signBundles([bundleDir()], { bundle: true, signingKey: 'not a pem', outputFilePath: out })).rejects.toThrow(/PEM/);
    expect(existsSync(join(out, '.signatures.json'))).toBe(false);
  });
});
