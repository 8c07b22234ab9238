// Bundles from an OCI registry, as OPA configures them (services.<name>.type: oci, the
// bundle resource a reference), against a real registry (Debian's docker-registry, started
// on loopback; installed by .ci/run) — pushed by `regolith build --push` and by the library
// function it uses; polled, converged on a moved tag, pinned by digest, refused on a wrong
// one; and through a token-auth front like hosted registries have.
// Skipped, with the reason printed, only when no docker-registry binary exists.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { pushBundle } from '../../../src/plugins/bundle/oci-push.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { parseReference } from '../../../src/plugins/services/oci.js';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { BIN, ensureBuilt } from '../../cli/helpers.js';
import { archive, fastTiming, waitFor } from '../../loopback.js';
import { REGISTRY_BIN, startRegistry, tokenFront, type Registry } from './registry.js';

if (!REGISTRY_BIN) console.log('OCI registry tests skipped: no docker-registry binary (apt-get install -y docker-registry)');

const policy = (answer: string) => ({ 'authz/authz.rego': `package authz\n\nallow := ${answer}\n` });
// No header deadline (0, as Go's) anywhere here: none of these tests is about one, and at 20 ms a configured
// second the default 10 s is 200 ms, which a registry on a loaded machine misses.
const client = (url: string, bearer?: { token: string; scheme: string }) =>
  new ServiceClient({ name: 'reg', url, type: 'oci', headers: {}, allow_insecure_tls: false, response_header_timeout_seconds: 0, credentials: bearer ? { bearer } : {} }, 20);

describe('parseReference', () => {
  it('reads host, repository, tag and digest as registries do', () => {
    expect(parseReference('ghcr.io/acme/authz:1.2')).toEqual({ registry: 'ghcr.io', repository: 'acme/authz', tag: '1.2', digest: undefined });
    expect(parseReference('127.0.0.1:5000/p/b')).toEqual({ registry: '127.0.0.1:5000', repository: 'p/b', tag: 'latest', digest: undefined });
    const d = 'sha256:' + 'a'.repeat(64);
    expect(parseReference(`localhost/x@${d}`)).toEqual({ registry: 'localhost', repository: 'x', tag: undefined, digest: d });
    expect(parseReference('acme/authz:v1').registry).toBeUndefined();
    expect(() => parseReference('ghcr.io/Acme/x:1')).toThrow(/not a repository name/);
    expect(() => parseReference('ghcr.io/acme/x@sha256:12')).toThrow(/digest must be/);
    expect(() => parseReference('ghcr.io/acme/x:bad tag')).toThrow(/not a tag/);
  });

  it('knows one service type, oci', () => {
    expect(validateConfig({ services: { r: { url: 'https://ghcr.io', type: 'oci' } } }).services['r']!.type).toBe('oci');
    expect(() => validateConfig({ services: { r: { url: 'https://x.example', type: 's3' } } })).toThrow(/services\.r\.type: unknown service type "s3"/);
  });
});

describe.skipIf(!REGISTRY_BIN)('bundles from an OCI registry', () => {
  let reg: Registry;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    reg = await startRegistry();
  }, 30_000);
  // the build the two build --push cases run, waited for in a hook of its own (inside a test, the
  // wait for another helper's build counted against the test's 30 s)
  beforeAll(() => ensureBuilt(), 300_000);
  afterAll(async () => {
    await reg?.stop();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function serve(service: Record<string, unknown>, resource: string, bundle: Record<string, unknown> = {}) {
    const config = validateConfig({
      services: { reg: { type: 'oci', response_header_timeout_seconds: 0, ...service } },
      bundles: { authz: { service: 'reg', resource, polling: { min_delay_seconds: 1, max_delay_seconds: 1 }, ...bundle } },
      status: { console: true },
    });
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config, engine, timing: fastTiming(), id: 'oci-test', version: '0', console: pino({ level: 'silent' }) });
    await manager.start();
    const server: RunningServer = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
    cleanups.push(async () => {
      await server.close();
      await manager.stop();
    });
    const get = async (p: string) => {
      const r = await fetch(server.url + p);
      return { status: r.status, body: (await r.json()) as any };
    };
    return { manager, get };
  }

  it('regolith build --push publishes a bundle that a server configured like OPA pulls and serves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-push-'));
    mkdirSync(join(dir, 'b', 'authz'), { recursive: true });
    writeFileSync(join(dir, 'b', 'authz', 'authz.rego'), 'package authz\n\nallow if input.user == "alice"\n');
    const ref = `${reg.host}/policies/cli:v1`;
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      const p = spawn(process.execPath, [BIN, 'build', '-b', join(dir, 'b'), '-r', 'cli-1', '-o', join(dir, 'bundle.tar.gz'), '--push', ref, '--plain-http']);
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.stderr.on('data', (c: Buffer) => (out += c.toString()));
      p.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(new RegExp(`pushed ${reg.host}/policies/cli:v1@sha256:[0-9a-f]{64}`));
    // the layout OPA reads: an OCI image manifest whose tar+gzip layer is the bundle
    const m = (await (await fetch(`${reg.url}/v2/policies/cli/manifests/v1`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } })).json()) as any;
    expect(m.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(m.config.mediaType).toBe('application/vnd.oci.image.config.v1+json');
    expect(m.layers).toHaveLength(1);
    expect(m.layers[0]).toMatchObject({ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', annotations: { 'org.opencontainers.image.title': 'bundle.tar.gz' } });

    const s = await serve({ url: reg.url }, ref);
    await waitFor('activation', async () => (await s.get('/health?bundles')).status === 200, 10_000);
    expect((await s.get('/v1/status')).body.result.bundles.authz.active_revision).toBe('cli-1');
  }, 60_000);

  it('converges when the tag moves, and keeps the last good bundle on errors', async () => {
    const ref = `${reg.host}/policies/authz:live`;
    await pushBundle(client(reg.url), ref, await archive({ revision: 'r1', modules: policy('false') }));
    const s = await serve({ url: reg.url }, ref);
    await waitFor('r1', async () => (await s.get('/v1/status')).body.result?.bundles?.authz?.active_revision === 'r1', 10_000);
    expect((await s.get('/v1/data/authz/allow')).body.result).toBe(false);
    await pushBundle(client(reg.url), ref, await archive({ revision: 'r2', modules: policy('true') }));
    await waitFor('r2', async () => (await s.get('/v1/data/authz/allow')).body.result === true, 10_000);
    expect((await s.get('/v1/status')).body.result.bundles.authz.active_revision).toBe('r2');
    // a manifest whose layer is not a bundle: an error, r2 stays
    await pushBundle(client(reg.url), ref, Buffer.from('not a tarball'));
    await waitFor('the error', async () => (await s.get('/v1/status')).body.result.bundles.authz.code === 'bundle_error', 10_000);
    expect((await s.get('/v1/data/authz/allow')).body.result).toBe(true);
    expect((await s.get('/v1/status')).body.result.bundles.authz.active_revision).toBe('r2');
  }, 30_000);

  it('pins a bundle by digest, and reports a missing tag with the registry\'s error', async () => {
    const ref = `${reg.host}/policies/pinned:v1`;
    const first = await pushBundle(client(reg.url), ref, await archive({ revision: 'p1', modules: policy('"one"') }));
    await pushBundle(client(reg.url), ref, await archive({ revision: 'p2', modules: policy('"two"') }));
    const s = await serve({ url: reg.url }, `${reg.host}/policies/pinned@${first.digest}`);
    await waitFor('p1', async () => (await s.get('/v1/data/authz/allow')).body.result === 'one', 10_000);
    const missing = await serve({ url: reg.url }, `${reg.host}/policies/nothing:v9`, { trigger: 'manual' });
    await missing.manager.trigger();
    const st = (await missing.get('/v1/status')).body.result.bundles.authz;
    expect(st).toMatchObject({ code: 'bundle_error', http_code: '404' });
    expect(st.message).toMatch(/manifest policies\/nothing:v9: the registry answered 404: (MANIFEST_UNKNOWN|NAME_UNKNOWN)/);
    const wrongHost = await serve({ url: reg.url }, 'ghcr.io/acme/authz:v1', { trigger: 'manual' });
    await wrongHost.manager.trigger();
    expect((await wrongHost.get('/v1/status')).body.result.bundles.authz.message).toMatch(/names registry ghcr\.io, but service reg is 127\.0\.0\.1:\d+/);
  }, 30_000);

  it('enforces size_limit_bytes before downloading the layer', async () => {
    const ref = `${reg.host}/policies/big:v1`;
    await pushBundle(client(reg.url), ref, await archive({ revision: 'big', modules: policy('true'), data: { blob: randomBytes(30_000).toString('base64') } }));
    const s = await serve({ url: reg.url }, ref, { trigger: 'manual', size_limit_bytes: 1000 });
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.bundles.authz.message).toMatch(/bundle layer of \d+ bytes exceeds the size limit of 1000 bytes/);
  });

  it('goes through a registry\'s token auth with the configured Basic credentials, and refuses wrong ones', async () => {
    const front = await tokenFront(reg, 'ci', 's3cret');
    cleanups.push(() => front.stop());
    const ref = `${front.host}/policies/private:v1`;
    const basic = { token: Buffer.from('ci:s3cret').toString('base64'), scheme: 'Basic' };
    await pushBundle(client(front.url, basic), ref, await archive({ revision: 'priv', modules: policy('"private"') }));
    const s = await serve({ url: front.url, credentials: { bearer: basic } }, ref);
    await waitFor('activation through the token front', async () => (await s.get('/v1/data/authz/allow')).body.result === 'private', 10_000);
    // one token per repository and action, reused across polls; an unchanged layer digest is
    // "not modified": polls read the manifest only
    const issued = front.tokensIssued;
    const blobs = () => front.seen.filter((r) => r.method === 'GET' && r.path.includes('/blobs/')).length;
    const manifests = () => front.seen.filter((r) => r.method === 'GET' && r.path.includes('/manifests/')).length;
    const [b0, m0] = [blobs(), manifests()];
    // four polls more, however long a loaded machine takes for them (200 ms was not always enough)
    await waitFor('four more polls', () => manifests() > m0 + 3, 10_000);
    expect(front.tokensIssued).toBe(issued);
    expect(blobs()).toBe(b0);
    const wrong = await serve({ url: front.url, credentials: { bearer: { token: Buffer.from('ci:nope').toString('base64'), scheme: 'Basic' } } }, ref, { trigger: 'manual' });
    await wrong.manager.trigger();
    const st = (await wrong.get('/v1/status')).body.result.bundles.authz;
    expect(st).toMatchObject({ code: 'bundle_error', http_code: '401' });
    expect(st.message).toMatch(/token service .* answered 401/);
  }, 30_000);

  it('regolith build --push with --registry-user pushes through the token front', async () => {
    const front = await tokenFront(reg, 'ci', 's3cret');
    cleanups.push(() => front.stop());
    const dir = mkdtempSync(join(tmpdir(), 'regolith-push-'));
    writeFileSync(join(dir, 'p.rego'), 'package p\n\nx := 1\n');
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        const p = spawn(process.execPath, [BIN, 'build', join(dir, 'p.rego'), '-o', join(dir, 'b.tar.gz'), '--push', `${front.host}/policies/cli-auth:v1`, '--plain-http', '--registry-user', 'ci'], { env: { ...process.env, ...env } });
        let out = '';
        p.stdout.on('data', (c: Buffer) => (out += c.toString()));
        p.stderr.on('data', (c: Buffer) => (out += c.toString()));
        p.on('close', (code) => resolve({ code: code ?? -1, out }));
      });
    expect((await run({ REGOLITH_REGISTRY_PASSWORD: 's3cret' })).code).toBe(0);
    const bad = await run({ REGOLITH_REGISTRY_PASSWORD: 'wrong' });
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/push .*: the registry's token service .* answered 401/);
    const none = await run({});
    expect(none.out).toMatch(/REGOLITH_REGISTRY_PASSWORD/);
  }, 60_000);
});
