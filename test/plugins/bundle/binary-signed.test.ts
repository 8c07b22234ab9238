// Black box: a bundle built and signed by the `regolith build` binary, served by a loopback
// bundle service, is verified and activated by a `regolith run` process configured (config
// file) with the matching public key; a tampered copy of that bundle is rejected, the
// error shows in /v1/status and the last good bundle keeps serving.

import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packEntries, readTarballEntries } from '../../../src/bundle/index.js';
import { ensureBuilt, regolith } from '../../cli/helpers.js';
import { httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../../loopback.js';
import { startRun, type RunProcess } from '../../runtime/run-process.js';

type Doc = Record<string, any>;

const POLICY = `package authz

default allow := false

allow if input.user in data.authz.admins
`;

let dir: string;
let service: TestHTTPServer;
let run: RunProcess | undefined;
const files: BundleFiles = {};

beforeAll(() => {
  ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regolith-signed-'));
}, 300_000);

afterAll(async () => {
  await run?.kill('SIGTERM');
  await service?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function getJSON(url: string): Promise<{ status: number; json: Doc }> {
  const res = await fetch(url);
  return { status: res.status, json: (await res.json()) as Doc };
}

async function allow(user: string): Promise<unknown> {
  const res = await fetch(`${run!.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) });
  return ((await res.json()) as Doc).result;
}

describe('regolith build --signing-key, then regolith run with the public key', () => {
  it('activates the signed bundle and rejects a tampered copy', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    fs.writeFileSync(path.join(dir, 'private.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const src = path.join(dir, 'src');
    fs.mkdirSync(path.join(src, 'authz'), { recursive: true });
    fs.writeFileSync(path.join(src, '.manifest'), JSON.stringify({ roots: ['authz'] }));
    fs.writeFileSync(path.join(src, 'authz', 'policy.rego'), POLICY);
    fs.writeFileSync(path.join(src, 'authz', 'data.json'), JSON.stringify({ admins: ['alice'] }));

    const out = path.join(dir, 'signed.tar.gz');
    const built = regolith(['build', '-b', src, '-o', out, '-r', 'rev-signed', '--signing-key', path.join(dir, 'private.pem'), '--signing-alg', 'RS256']);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    const signed = fs.readFileSync(out);
    const entries = await readTarballEntries(signed);
    expect(entries.map((e) => e.path)).toContain('.signatures.json');

    // The same files and signature, with the policy changed: every admin check passes.
    const tampered = packEntries(
      entries.map((e) => (e.path.endsWith('policy.rego') ? { path: e.path, bytes: Buffer.from(POLICY.replace('default allow := false', 'default allow := true')) } : e)),
    );

    files['/bundles/authz.tar.gz'] = { body: signed, etag: '"signed"' };
    const serve = serveBundles(files);
    service = await httpServer((req, res) => {
      if (req.url === '/status') {
        res.statusCode = 200;
        return void res.end();
      }
      return serve(req, res);
    });

    const config = {
      services: { acme: { url: service.url } },
      keys: { verifier: { algorithm: 'RS256', key: publicKey.export({ type: 'spki', format: 'pem' }).toString() } },
      bundles: { authz: { service: 'acme', resource: 'bundles/authz.tar.gz', signing: { keyid: 'verifier' }, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } },
      status: { service: 'acme' },
    };
    const configFile = path.join(dir, 'config.json');
    fs.writeFileSync(configFile, JSON.stringify(config));
    run = await startRun(['-c', configFile]);

    await waitFor('activation of the signed bundle', async () => (await getJSON(`${run!.url}/health?bundles=true`)).status === 200, 60_000);
    expect(await allow('alice')).toBe(true);
    expect(await allow('mallory')).toBe(false);
    const st = (await getJSON(`${run.url}/v1/status`)).json.result;
    expect(st.bundles.authz).toMatchObject({ name: 'authz', active_revision: 'rev-signed' });

    // The tampered bundle is downloaded, fails verification and never replaces the good one.
    files['/bundles/authz.tar.gz'] = { body: tampered, etag: '"tampered"' };
    const failed = await waitFor(
      'the verification error in /v1/status',
      async () => {
        const b = (await getJSON(`${run!.url}/v1/status`)).json.result.bundles.authz;
        return b.code === 'bundle_error' ? b : undefined;
      },
      60_000,
    );
    expect(failed.message).toMatch(/policy\.rego/);
    expect(failed.active_revision).toBe('rev-signed');
    expect(await allow('mallory')).toBe(false);
    expect(await allow('alice')).toBe(true);
  }, 180_000);
});
