import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  buildBundle,
  canonicalJSON,
  hashBundleFile,
  readBundle,
  readBundleFromBytes,
  readTarballEntries,
  packEntries,
  writeBundle,
  type VerificationConfig,
} from '../../src/bundle/index.js';
import { POLICY, ecKeys, rsaKeys, tempDir, writeTree } from './helpers.js';

const rsa = rsaKeys();

async function signedBundle(signing: { key: string; algorithm?: string; keyid?: string; claims?: Record<string, unknown> }) {
  const dir = writeTree({
    '.manifest': JSON.stringify({ revision: 'v1', roots: ['authz', 'roles'] }),
    'authz/policy.rego': POLICY,
    'roles/data.json': '{"admins": ["alice"]}',
  });
  const b = await buildBundle([dir], { bundleMode: true });
  return writeBundle(b, { keyid: 'default', ...signing });
}

const rsaConfig: VerificationConfig = { keys: { default: { key: rsa.pub, algorithm: 'RS256' } } };

describe('structured-file hashing', () => {
  it('sorts keys, drops whitespace and keeps number literals as OPA does', () => {
    expect(canonicalJSON('{ "b": 1.0, "a": ["<x>", {"z": null, "y": true}] }')).toBe('{"a":["<x>",{"y":true,"z":null}],"b":1.0}');
    expect(canonicalJSON('"\\u2028\\u00e9"')).toBe('"\\u2028é"');
  });

  it('hashes data.json by content, policies by bytes', () => {
    const a = hashBundleFile('x/data.json', Buffer.from('{"a":1,"b":2}'));
    const b = hashBundleFile('x/data.json', Buffer.from('{\n  "b": 2,\n  "a": 1\n}\n'));
    expect(a).toBe(b);
    expect(hashBundleFile('p.rego', Buffer.from('package a\n'))).not.toBe(hashBundleFile('p.rego', Buffer.from('package a \n')));
    // SHA-256 of the raw bytes, as `sha256sum` prints it.
    expect(hashBundleFile('p.rego', Buffer.from('package a\n'))).toBe(
      execFileSync('sha256sum', { input: 'package a\n', encoding: 'utf8' }).split(' ')[0],
    );
  });
});

describe('bundle signatures', () => {
  it('signs every file and verifies with the public key', async () => {
    const gz = await signedBundle({ key: rsa.priv });
    const entries = await readTarballEntries(gz);
    expect(entries.map((e) => e.path)).toEqual(['data.json', 'authz/policy.rego', '.signatures.json', '.manifest']);
    const sigs = JSON.parse(Buffer.from(entries.find((e) => e.path === '.signatures.json')!.bytes).toString());
    expect(sigs.signatures).toHaveLength(1);
    const token = sigs.signatures[0] as string;
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: 'default' });
    const payload = decodeJwt(token) as { files: { name: string; algorithm: string }[]; keyid: string };
    expect(payload.keyid).toBe('default');
    expect(payload.files.map((f) => f.name).sort()).toEqual(['.manifest', 'authz/policy.rego', 'data.json']);
    expect(payload.files.every((f) => f.algorithm === 'SHA-256')).toBe(true);

    const b = await readBundleFromBytes(gz, { verification: rsaConfig });
    expect(b.manifest.revision).toBe('v1');
    expect(b.data).toEqual({ roles: { admins: ['alice'] } });
  });

  it('rejects a tampered file', async () => {
    const gz = await signedBundle({ key: rsa.priv });
    const entries = await readTarballEntries(gz);
    const tampered = entries.map((e) =>
      e.path === 'authz/policy.rego' ? { ...e, bytes: Buffer.from(POLICY.replace('"admin"', '"mallory"')) } : e,
    );
    await expect(readBundleFromBytes(packEntries(tampered), { verification: rsaConfig })).rejects.toThrow(
      /authz\/policy\.rego: digest mismatch \(want: [0-9a-f]{64}, got: [0-9a-f]{64}\)/,
    );
  });

  it('accepts reformatted JSON data (hash is over the JSON content)', async () => {
    const gz = await signedBundle({ key: rsa.priv });
    const entries = await readTarballEntries(gz);
    const pretty = entries.map((e) =>
      e.path === 'data.json' ? { ...e, bytes: Buffer.from(JSON.stringify(JSON.parse(Buffer.from(e.bytes).toString()), null, 4)) } : e,
    );
    await expect(readBundleFromBytes(packEntries(pretty), { verification: rsaConfig })).resolves.toBeTruthy();
  });

  it('rejects an added file and a removed file', async () => {
    const entries = await readTarballEntries(await signedBundle({ key: rsa.priv }));
    const added = [...entries, { path: 'authz/extra.rego', url: '', bytes: Buffer.from('package authz\n') }];
    await expect(readBundleFromBytes(packEntries(added), { verification: rsaConfig })).rejects.toThrow(
      'file authz/extra.rego not included in bundle signature',
    );
    const removed = entries.filter((e) => e.path !== 'data.json');
    await expect(readBundleFromBytes(packEntries(removed), { verification: rsaConfig })).rejects.toThrow(
      'file(s) [data.json] specified in bundle signatures but not found in the target bundle',
    );
  });

  it('honours exclude_files', async () => {
    const entries = await readTarballEntries(await signedBundle({ key: rsa.priv }));
    const added = [...entries, { path: 'notes/readme.txt', url: '', bytes: Buffer.from('hello') }];
    const cfg = { ...rsaConfig, exclude_files: ['notes/*'] };
    await expect(readBundleFromBytes(packEntries(added), { verification: cfg })).resolves.toBeTruthy();
  });

  it('rejects the wrong key, an unknown key id and a missing signature', async () => {
    const gz = await signedBundle({ key: rsa.priv });
    const other = rsaKeys();
    await expect(
      readBundleFromBytes(gz, { verification: { keys: { default: { key: other.pub, algorithm: 'RS256' } } } }),
    ).rejects.toThrow(/failed to verify bundle signature/);
    await expect(readBundleFromBytes(gz, { verification: { keys: { other: { key: rsa.pub } } } })).rejects.toThrow(
      'verification key corresponding to ID default not found',
    );
    await expect(readBundleFromBytes(gz)).rejects.toThrow('verification key not provided');
    const unsigned = await writeBundle(await buildBundle([writeTree({ 'p.rego': POLICY })], { bundleMode: true }));
    await expect(readBundleFromBytes(unsigned, { verification: rsaConfig })).rejects.toThrow('bundle missing .signatures.json file');
    // Tools that do not verify can still read a signed bundle.
    await expect(readBundleFromBytes(gz, { skipVerify: true })).resolves.toBeTruthy();
  });

  it('checks the scope claim', async () => {
    const gz = await signedBundle({ key: rsa.priv, claims: { scope: 'write', iss: 'ci' } });
    const token = JSON.parse(
      Buffer.from((await readTarballEntries(gz)).find((e) => e.path === '.signatures.json')!.bytes).toString(),
    ).signatures[0];
    expect(decodeJwt(token)).toMatchObject({ scope: 'write', iss: 'ci' });
    await expect(readBundleFromBytes(gz, { verification: { ...rsaConfig, scope: 'write' } })).resolves.toBeTruthy();
    await expect(readBundleFromBytes(gz, { verification: { ...rsaConfig, scope: 'read' } })).rejects.toThrow('scope mismatch');
  });

  it.each([
    ['ES256', () => ecKeys('P-256')],
    ['ES384', () => ecKeys('P-384')],
    ['PS256', () => rsa],
    ['RS512', () => rsa],
  ])('signs and verifies with %s', async (alg, keys) => {
    const k = keys();
    const gz = await signedBundle({ key: k.priv, algorithm: alg });
    const b = await readBundleFromBytes(gz, { verification: { keys: { default: { key: k.pub, algorithm: alg } } } });
    expect(b.modules).toHaveLength(1);
    await expect(
      readBundleFromBytes(gz, { verification: { keys: { default: { key: k.pub, algorithm: alg === 'RS512' ? 'RS256' : 'RS512' } } } }),
    ).rejects.toThrow();
  });

  it('signs with an HMAC secret and a key file path', async () => {
    const gz = await signedBundle({ key: 'my-secret', algorithm: 'HS256' });
    await expect(
      readBundleFromBytes(gz, { verification: { keys: { default: { key: 'my-secret', algorithm: 'HS256' } } } }),
    ).resolves.toBeTruthy();
    await expect(
      readBundleFromBytes(gz, { verification: { keys: { default: { key: 'wrong', algorithm: 'HS256' } } } }),
    ).rejects.toThrow(/failed to verify/);
    const keyFile = join(tempDir(), 'key.pem');
    writeFileSync(keyFile, rsa.priv);
    await expect(readBundleFromBytes(await signedBundle({ key: keyFile }), { verification: rsaConfig })).resolves.toBeTruthy();
  });

  it('verifies a signed bundle directory', async () => {
    const gz = await signedBundle({ key: rsa.priv });
    const dir = tempDir();
    for (const e of await readTarballEntries(gz)) {
      mkdirSync(join(dir, e.path, '..'), { recursive: true });
      writeFileSync(join(dir, e.path), e.bytes);
    }
    await expect(readBundle(dir, { verification: rsaConfig })).resolves.toBeTruthy();
    writeFileSync(join(dir, 'data.json'), '{"roles": {"admins": ["mallory"]}}');
    await expect(readBundle(dir, { verification: rsaConfig })).rejects.toThrow(/^data\.json: digest mismatch/);
    expect(readFileSync(join(dir, '.signatures.json'), 'utf8')).toContain('"signatures"');
  });
});
