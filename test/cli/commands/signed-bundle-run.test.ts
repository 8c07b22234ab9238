// A bundle signed by `regolith build` is served by `regolith run -b --verification-key`
// (OPA's run flags), and refused with a wrong key, an unsigned bundle, a scope mismatch, or
// a key without -b. --skip-verify serves it without checking.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rsaKeys, tempDir } from '../../bundle/helpers.js';
import { BIN, ROOT, ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts `regolith run` and resolves with its URL once it logs "Initializing server.". */
function serve(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  children.push(child);
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${err}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const line = err.split('\n').find((l) => l.includes('Initializing server.'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { addrs: string[] }).addrs[0]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${err}`));
    });
  });
}

function signedBundle(): { dir: string; signed: string; unsigned: string } {
  const dir = tempDir();
  const keys = rsaKeys();
  writeFileSync(join(dir, 'private.pem'), keys.priv);
  writeFileSync(join(dir, 'public.pem'), keys.pub);
  writeFileSync(join(dir, 'other.pem'), rsaKeys().pub);
  writeFileSync(join(dir, 'claims.json'), '{"scope": "write"}');
  const signed = join(dir, 'signed.tar.gz');
  const unsigned = join(dir, 'unsigned.tar.gz');
  const b = regolith(['build', '-b', 'examples/sample', '--signing-key', join(dir, 'private.pem'), '--claims-file', join(dir, 'claims.json'), '-o', signed]);
  expect(b.stderr).toBe('');
  expect(regolith(['build', '-b', 'examples/sample', '-o', unsigned]).code).toBe(0);
  return { dir, signed, unsigned };
}

describe('regolith run -b with bundle signature verification', () => {
  it('serves a bundle signed by regolith build when the key and scope verify it', async () => {
    const { dir, signed } = signedBundle();
    const url = await serve(['-s', '-a', '127.0.0.1:0', '-b', signed, '--verification-key', join(dir, 'public.pem'), '--scope', 'write']);
    const res = await fetch(`${url}/v1/data/httpapi/authz/allow`, {
      method: 'POST',
      body: JSON.stringify({ input: { method: 'GET', path: ['finance', 'salary', 'alice'], user: 'alice' } }),
    });
    expect(await res.json()).toEqual({ result: true });
  }, 90_000);

  it('refuses to start on a wrong key, an unsigned bundle, a scope mismatch, or a key without -b', () => {
    const { dir, signed, unsigned } = signedBundle();
    const cases: [string[], RegExp][] = [
      [['-b', signed, '--verification-key', join(dir, 'other.pem'), '--scope', 'write'], /failed to verify bundle signature/],
      [['-b', unsigned, '--verification-key', join(dir, 'public.pem')], /bundle missing \.signatures\.json file/],
      [['-b', signed, '--verification-key', join(dir, 'public.pem')], /scope mismatch/],
      [['-b', signed, '--verification-key', 'secret', '--signing-alg', 'HS256', '--scope', 'write'], /failed to verify bundle signature/],
      [[signed, '--verification-key', join(dir, 'public.pem')], /enable bundle mode \(ie\. --bundle\)/],
    ];
    for (const [args, message] of cases) {
      const r = regolith(['run', '-s', '-a', '127.0.0.1:0', ...args]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
    }
  }, 90_000);

  it('--skip-verify serves a signed bundle without a key check', async () => {
    const { dir, signed } = signedBundle();
    const url = await serve(['-s', '-a', '127.0.0.1:0', '-b', signed, '--verification-key', join(dir, 'other.pem'), '--skip-verify']);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  }, 90_000);

  it('lists the verification flags in run --help, and build uses OPA\'s --exclude-files-verify', () => {
    const help = regolith(['run', '--help']).stdout;
    for (const flag of ['--verification-key', '--verification-key-id', '--signing-alg', '--scope', '--exclude-files-verify', '--skip-verify']) {
      expect(help).toContain(flag);
    }
    expect(regolith(['build', '--help']).stdout).toContain('--exclude-files-verify <glob>');
  });
});
