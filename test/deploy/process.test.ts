// The deployment files run for real: the Regolith container of the plain central manifest,
// the plain sidecar manifest and the Helm chart's central Deployment is started as the built
// binary with its own args, its ConfigMap and Secret written where their volumes would be
// mounted (under a temporary root), and a loopback bundle service in place of the example
// URL (`--set services.<name>.url=...`). The probes' paths answer as Kubernetes expects:
// liveness 200 at once, readiness 500 until the (signed) bundle is activated, then 200; the
// bundle service sees the token from the Secret; SIGTERM stops the server cleanly.

import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../cli/helpers.js';
import { archive, httpServer, waitFor, type TestHTTPServer } from '../loopback.js';
import { Pod, hostPort, parseRunArgs, type Obj } from './checks.js';
import { renderChart } from './render.js';

const POLICY = `package httpapi.authz

default allow := false

allow if input.user == "alice"
`;

let root: string;
beforeAll(() => {
  ensureBuilt();
  root = mkdtempSync(join(tmpdir(), 'regolith-deploy-run-'));
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const loadObjects = (dir: string): Obj[] =>
  ['configmap.yaml', 'secret.yaml', 'deployment.yaml'].flatMap((f) => yaml.loadAll(readFileSync(join(ROOT, 'deploy/kubernetes', dir, f), 'utf8')) as Obj[]);

/** Real credentials in place of the placeholders, as a user would put them in the Secret. */
function withCredentials(objects: Obj[], token: string): Obj[] {
  return objects.map((o) => {
    if (o.kind !== 'Secret') return o;
    const plain: Record<string, string> = { ...(o.stringData ?? {}) };
    for (const [k, v] of Object.entries((o.data ?? {}) as Record<string, string>)) plain[k] = Buffer.from(v, 'base64').toString('utf8');
    plain['bundle-token'] = token;
    if ('bundle-key.pem' in plain) plain['bundle-key.pem'] = PUBLIC_PEM;
    const { data: _data, ...rest } = o;
    return { ...rest, stringData: plain };
  });
}

interface Started {
  child: ChildProcess;
  api: string;
  diagnostic?: string;
  output: () => string;
  exit: Promise<number | null>;
}

/**
 * Starts the pod's regolith container: volumes materialised under a fresh directory, paths
 * in the args and the configuration moved there, listeners on 127.0.0.1:0.
 */
async function startContainer(pod: Pod, name: string, serviceName: string, serviceUrl: string): Promise<Started> {
  const c = pod.container(name);
  const base = mkdtempSync(join(root, 'pod-'));
  const mounts = (c.volumeMounts as Obj[]).map((m) => m.mountPath as string);
  // a mount path at the start of a path (not inside another one), followed by / or its end;
  // one pass, so that a moved path is not moved again by another mount (/tmp)
  const esc = (m: string) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const mountRe = new RegExp(`(?<![\\w/.-])(${[...mounts].sort((a, b) => b.length - a.length).map(esc).join('|')})(?=/|$|\\s|")`, 'gm');
  const move = (s: string) => s.replace(mountRe, (m) => `${base}${m}`);
  for (const m of c.volumeMounts as Obj[]) {
    mkdirSync(join(base, m.mountPath), { recursive: true });
    const v = pod.volume(m.name);
    const src = v.configMap ? pod.keys('ConfigMap', v.configMap.name) : v.secret ? pod.keys('Secret', v.secret.secretName) : {};
    for (const [k, text] of Object.entries(src)) {
      const p = join(base, m.mountPath, k);
      mkdirSync(dirname(p), { recursive: true });
      // the configuration's absolute paths point into the mounts, which moved
      writeFileSync(p, k.endsWith('.yaml') ? move(text) : text);
    }
  }
  const args = (c.args as string[]).map((a) => {
    if (/^--(addr|diagnostic-addr)=/.test(a)) return a.replace(/=.*/, '=127.0.0.1:0');
    return move(a);
  });
  expect(args.filter((a) => a.startsWith('--addr=')).length, 'the args use --addr=host:port').toBe(1);
  args.push(`--set=services.${serviceName}.url=${serviceUrl}`);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: base, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const wantDiagnostic = args.some((a) => a.startsWith('--diagnostic-addr='));
  const urls = await waitFor(
    'the server to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`regolith exited with ${child.exitCode}:\n${out}`);
      const api = /"addrs":\["(http:\/\/[^"]+)"\],"msg":"Initializing server\."/.exec(out)?.[1];
      const diag = /"addrs":\["(http:\/\/[^"]+)"\],"msg":"Initializing diagnostic server\."/.exec(out)?.[1];
      return api && (diag || !wantDiagnostic) ? { api, diagnostic: diag } : undefined;
    },
    60_000,
  );
  return { child, ...urls, output: () => out, exit };
}

/** The URL the kubelet's probe reaches: the probe's port is the API's or the diagnostic listener's. */
function probeURL(pod: Pod, c: Obj, s: Started, probe: Obj): string {
  const args = parseRunArgs(c.args);
  const port = pod.portNumber(c, probe.httpGet.port);
  const isDiag = args.diagnosticAddr.some((a) => hostPort(a).port === port);
  return `${isDiag ? s.diagnostic : s.api}${probe.httpGet.path}`;
}

async function exercise(pod: Pod, serviceName: string, signed: boolean, token: string): Promise<void> {
  const bundle = await archive({ revision: 'r1', roots: ['httpapi'], modules: { 'httpapi/authz/policy.rego': POLICY } }, signed ? { key: PRIVATE_PEM, algorithm: 'RS256', keyid: 'bundle-key' } : undefined);
  let serving = false;
  const svc: TestHTTPServer = await httpServer((req, res) => {
    if (req.url.startsWith('/bundles/') && serving) {
      res.statusCode = 200;
      return void res.end(bundle);
    }
    res.statusCode = req.url.startsWith('/bundles/') ? 404 : 200;
    res.end();
  });
  const c = pod.container('regolith');
  const s = await startContainer(pod, 'regolith', serviceName, svc.url);
  try {
    const liveness = probeURL(pod, c, s, c.livenessProbe);
    const readiness = probeURL(pod, c, s, c.readinessProbe);
    expect((await fetch(liveness)).status, `liveness ${liveness}`).toBe(200);
    // no bundle yet: alive, not ready
    await waitFor('a bundle download attempt', () => svc.requests.some((r) => r.url.startsWith('/bundles/')), 30_000);
    expect((await fetch(readiness)).status, `readiness ${readiness} before the bundle`).toBe(500);
    serving = true;
    await waitFor('readiness', async () => (await fetch(readiness)).status === 200, 60_000);
    // the token came from the Secret, through token_path
    const got = svc.requests.find((r) => r.url.startsWith('/bundles/'))!;
    expect(got.headers.authorization).toBe(`Bearer ${token}`);
    // the decision API answers with the bundle's policy
    const res = await fetch(`${s.api}/v1/data/httpapi/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) });
    expect(await res.json()).toMatchObject({ result: true });
    if (s.diagnostic) expect((await fetch(`${s.diagnostic}/v1/data`)).status, 'the diagnostic listener serves no data').toBe(404);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- regolith output:\n${s.output().slice(-4000)}`);
  } finally {
    s.child.kill('SIGTERM');
    expect(await s.exit, 'a clean exit on SIGTERM').toBe(0);
    await svc.close();
  }
}

describe('the deployment files, run', () => {
  it('central manifest: probes, Secret token, signed bundle via --set-file key', async () => {
    const objects = withCredentials(loadObjects('central'), 'central-t0ken');
    const d = objects.find((o) => o.kind === 'Deployment')!;
    await exercise(new Pod(d.spec.template.spec, objects), 'bundle-server', true, 'central-t0ken');
  }, 120_000);

  it('sidecar manifest: probes on the diagnostic listener, Secret token', async () => {
    const objects = withCredentials(loadObjects('sidecar'), 'sidecar-t0ken');
    const d = objects.find((o) => o.kind === 'Deployment')!;
    await exercise(new Pod(d.spec.template.spec, objects), 'control', false, 'sidecar-t0ken');
  }, 120_000);

  it('Helm chart, central form with the default values', async () => {
    const r = renderChart(join(ROOT, 'deploy/helm/regolith'), { releaseName: 'authz' });
    const objects = withCredentials(r.objects, 'chart-t0ken');
    const d = objects.find((o) => o.kind === 'Deployment')!;
    await exercise(new Pod(d.spec.template.spec, objects), 'bundle-server', true, 'chart-t0ken');
  }, 120_000);
});
