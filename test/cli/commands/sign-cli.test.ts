// `regolith sign` end to end: the signatures file it writes is shown by `regolith inspect`
// and verified by `regolith build -b --verification-key` (and `run -b`, see repl-cli.test.ts).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { rsaKeys, tempDir, writeTree } from '../../bundle/helpers.js';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

describe('regolith sign', () => {
  it('signs a bundle directory that inspect shows and build verifies', () => {
    const dir = writeTree({ '.manifest': '{"revision": "7"}', 'authz/p.rego': 'package authz\n\nallow := true\n', 'authz/data.json': '{"k": 1}' });
    const keys = rsaKeys();
    const k = tempDir();
    writeFileSync(join(k, 'private.pem'), keys.priv);
    writeFileSync(join(k, 'public.pem'), keys.pub);
    const r = regolith(['sign', '--bundle', dir, '--signing-key', join(k, 'private.pem'), '--output-file-path', dir]);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const token = (JSON.parse(readFileSync(join(dir, '.signatures.json'), 'utf8')) as { signatures: string[] }).signatures[0]!;
    const inspected = regolith(['inspect', '--format', 'json', dir]);
    expect(JSON.parse(inspected.stdout).signatures_config).toEqual({ signatures: [token] });
    const built = regolith(['build', '-b', dir, '--verification-key', join(k, 'public.pem'), '-o', join(k, 'out.tar.gz')]);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    writeFileSync(join(dir, 'authz/data.json'), '{"k": 2}');
    const tampered = regolith(['build', '-b', dir, '--verification-key', join(k, 'public.pem'), '-o', join(k, 'out2.tar.gz')]);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('digest mismatch');
  });

  it("fails with OPA's messages and exit code 1", () => {
    expect(regolith(['sign', '-b', '--signing-key', 'k'])).toMatchObject({ code: 1, stderr: 'error: specify atleast one path containing policy and/or data files\n' });
    expect(regolith(['sign', '-b', 'x'])).toMatchObject({ code: 1, stderr: 'error: specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)\n' });
    expect(regolith(['sign', '--signing-key', 'k', 'x'])).toMatchObject({ code: 1, stderr: 'error: enable bundle mode (ie. --bundle) to sign bundle files or directories\n' });
  });
});
