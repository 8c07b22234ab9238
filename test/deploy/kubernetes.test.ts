// deploy/kubernetes: the plain manifests (central service and sidecar), read as the
// kubelet and regolith would read them (see checks.ts), and deploy/Dockerfile, textually
// (docker build is not run here).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { Pod, checkObjectsWellFormed, checkRegolithContainer, checkSelectors, isLoopback, hostPort, parseRunArgs, type Obj } from './checks.js';

const DEPLOY = join(import.meta.dirname, '../../deploy');
const K8S = join(DEPLOY, 'kubernetes');

function loadDir(dir: string): { objects: Obj[]; kustomization: Obj; files: string[] } {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
  const objects: Obj[] = [];
  for (const f of files) {
    for (const d of yaml.loadAll(readFileSync(join(dir, f), 'utf8'))) {
      if (d !== null && d !== undefined) objects.push(d as Obj);
    }
  }
  const kustomization = yaml.load(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Obj;
  return { objects, kustomization, files };
}

const kinds = (objects: Obj[]) => objects.map((o) => o.kind as string).sort();

describe('deploy/kubernetes/central', () => {
  const { objects, kustomization, files } = loadDir(join(K8S, 'central'));
  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  const pod = new Pod(deployment.spec.template.spec, objects);

  it('has the ConfigMap, Secret, Deployment, Service and PodDisruptionBudget, all in the kustomization', () => {
    expect(kinds(objects)).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Secret', 'Service']);
    checkObjectsWellFormed(objects);
    expect(kustomization).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' });
    expect([...kustomization.resources].sort()).toEqual([...files].sort());
  });

  it('runs 3 replicas, with a PodDisruptionBudget that leaves room for a voluntary disruption', () => {
    expect(deployment.spec.replicas).toBe(3);
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget')!;
    expect(pdb.spec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    checkSelectors(objects);
  });

  it('serves the decision API on :8181 through the Service', () => {
    const svc = objects.find((o) => o.kind === 'Service')!;
    expect(svc.spec.ports).toEqual([expect.objectContaining({ port: 8181 })]);
    const { args } = checkRegolithContainer(pod, 'regolith', { localhostOnly: false });
    expect(args.addr).toEqual(['0.0.0.0:8181']);
  });

  it('probes readiness on /health?bundles&plugins and liveness on /health, port 8181', () => {
    const c = pod.container('regolith');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/health?bundles&plugins', port: 8181 });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 8181 });
  });

  it('reads its configuration from the ConfigMap with -c, and a valid one', () => {
    const c = pod.container('regolith');
    const i = c.args.indexOf('-c');
    expect(c.args[i + 1]).toBe('/config/config.yaml');
    expect(pod.resolve(c, '/config/config.yaml')).toMatchObject({ kind: 'configMap', name: 'regolith-config', key: 'config.yaml', readOnly: true });
    const { config } = checkRegolithContainer(pod, 'regolith', { localhostOnly: false });
    expect(Object.keys(config.bundles)).toEqual(['authz']);
    expect(config.bundles['authz']!.signing?.keyid).toBe('bundle-key');
    expect(config.decision_logs?.service).toBe('bundle-server');
    expect(config.status?.service).toBe('bundle-server');
  });

  it('takes the bundle token and the verification key from the Secret mounted read-only at /secrets', () => {
    const c = pod.container('regolith');
    const { config } = checkRegolithContainer(pod, 'regolith', { localhostOnly: false });
    expect(config.services['bundle-server']!.credentials.bearer!.token_path).toBe('/secrets/bundle-token');
    expect(pod.resolve(c, '/secrets/bundle-token')).toMatchObject({ kind: 'secret', name: 'regolith-secrets', readOnly: true });
    expect(parseRunArgs(c.args).setFile).toEqual(['keys.bundle-key.key=/secrets/bundle-key.pem']);
    const secret = objects.find((o) => o.kind === 'Secret')!;
    expect(secret.type).toBe('Opaque');
    // placeholders, never real credentials
    for (const v of Object.values(secret.stringData as Record<string, string>)) expect(v).toMatch(/REPLACE/);
  });

  it('runs as non-root with a read-only root filesystem and no capabilities', () => {
    const c = pod.container('regolith');
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 });
    expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    // the shutdown grace period fits in the pod's termination grace period
    expect(Number(parseRunArgs(c.args).shutdownGracePeriod)).toBeLessThan(pod.spec.terminationGracePeriodSeconds);
  });
});

describe('deploy/kubernetes/sidecar', () => {
  const { objects, kustomization, files } = loadDir(join(K8S, 'sidecar'));
  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  const pod = new Pod(deployment.spec.template.spec, objects);

  it('has the ConfigMap, Secret and the application Deployment, all in the kustomization', () => {
    expect(kinds(objects)).toEqual(['ConfigMap', 'Deployment', 'Secret']);
    checkObjectsWellFormed(objects);
    expect([...kustomization.resources].sort()).toEqual([...files].sort());
    checkSelectors(objects);
  });

  it('runs regolith next to the application, its decision API on 127.0.0.1 only', () => {
    expect((pod.spec.containers as Obj[]).map((c) => c.name)).toEqual(['app', 'regolith']);
    const { args } = checkRegolithContainer(pod, 'regolith', { localhostOnly: true });
    expect(args.addr).toEqual(['127.0.0.1:8181']);
    // the application talks to it over loopback
    const app = pod.container('app');
    expect(app.env.find((e: Obj) => e.name === 'POLICY_URL').value).toMatch(/^http:\/\/127\.0\.0\.1:8181\//);
    // every non-loopback listener is the diagnostic one (health and metrics only)
    const diag = args.diagnosticAddr.map(hostPort);
    expect(diag).toEqual([{ host: '0.0.0.0', port: 8282 }]);
    for (const a of args.addr) expect(isLoopback(hostPort(a).host)).toBe(true);
  });

  it('probes readiness and liveness on the diagnostic listener', () => {
    const c = pod.container('regolith');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/health?bundles&plugins', port: 'diagnostic' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'diagnostic' });
    expect(pod.portNumber(c, 'diagnostic')).toBe(8282);
  });

  it('reads a valid configuration from its ConfigMap and the token from its Secret', () => {
    const c = pod.container('regolith');
    const { config, args } = checkRegolithContainer(pod, 'regolith', { localhostOnly: true });
    expect(args.configFile).toBe('/config/config.yaml');
    expect(pod.resolve(c, args.configFile!)).toMatchObject({ kind: 'configMap', name: 'example-app-regolith-config' });
    const tokenPath = config.services['control']!.credentials.bearer!.token_path!;
    expect(tokenPath.startsWith('/secrets/')).toBe(true);
    expect(pod.resolve(c, tokenPath)).toMatchObject({ kind: 'secret', name: 'example-app-regolith-secrets', key: 'bundle-token', readOnly: true });
  });
});

describe('deploy/Dockerfile', () => {
  const text = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
  // instructions, with continuation lines joined and comments dropped
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages = instructions.filter((l) => /^FROM /i.test(l));
  const final = instructions.slice(instructions.lastIndexOf(stages[stages.length - 1]!));

  it('builds on node:20-slim and installs only production dependencies', () => {
    for (const s of stages) expect(s).toMatch(/^FROM node:20-slim\b/);
    expect(instructions.some((l) => /^RUN .*npm ci --omit=dev/.test(l))).toBe(true);
    expect(final.some((l) => /^COPY .*dist/.test(l))).toBe(true);
    expect(final.some((l) => /^COPY .*policies/.test(l))).toBe(true);
    expect(existsSync(join(import.meta.dirname, '../../package-lock.json')), 'npm ci needs the lockfile').toBe(true);
  });

  it('runs as the numeric non-root user the manifests expect', () => {
    const users = final.filter((l) => /^USER /i.test(l));
    expect(users.length).toBe(1);
    expect(users[0]).toMatch(/^USER 10001(:10001)?$/);
  });

  it('starts regolith: ENTRYPOINT node /app/dist/cli/main.js, CMD run --server --addr 0.0.0.0:8181', () => {
    const entry = final.find((l) => /^ENTRYPOINT /.test(l))!;
    expect(JSON.parse(entry.slice('ENTRYPOINT '.length))).toEqual(['node', '/app/dist/cli/main.js']);
    const cmd = final.find((l) => /^CMD /.test(l))!;
    const args = JSON.parse(cmd.slice('CMD '.length)) as string[];
    expect(args).toEqual(['run', '--server', '--addr', '0.0.0.0:8181']);
    expect(parseRunArgs(args).addr).toEqual(['0.0.0.0:8181']);
    expect(final.some((l) => /^WORKDIR \/app$/.test(l))).toBe(true);
  });
});

describe('the structural checks catch broken manifests', () => {
  const { objects } = loadDir(join(K8S, 'central'));
  // a mutated copy of the central manifests; the checks must reject it
  const broken = (mutate: (d: Obj, all: Obj[]) => void, localhostOnly = false) => () => {
    const all = structuredClone(objects);
    const d = all.find((o) => o.kind === 'Deployment')!;
    mutate(d, all);
    checkRegolithContainer(new Pod(d.spec.template.spec, all), 'regolith', { localhostOnly });
  };
  const container = (d: Obj) => d.spec.template.spec.containers[0] as Obj;
  const configMap = (all: Obj[]) => all.find((o) => o.kind === 'ConfigMap')!;

  it('accepts the unmodified copy', () => {
    expect(broken(() => {})).not.toThrow();
  });

  const cases: [string, (d: Obj, all: Obj[]) => void, boolean?][] = [
    ['readiness on /health', (d) => (container(d).readinessProbe.httpGet.path = '/health')],
    ['liveness on the readiness path', (d) => (container(d).livenessProbe.httpGet.path = '/health?bundles&plugins')],
    ['a probe on a port nothing listens on', (d) => (container(d).livenessProbe.httpGet.port = 9999)],
    ['a writable secrets mount', (d) => (container(d).volumeMounts[1].readOnly = false)],
    ['a world-readable Secret', (d) => (d.spec.template.spec.volumes[1].secret.defaultMode = 0o444)],
    ['a writable root filesystem', (d) => (container(d).securityContext.readOnlyRootFilesystem = false)],
    ['capabilities kept', (d) => delete container(d).securityContext.capabilities],
    ['running as root allowed', (d) => (delete container(d).securityContext.runAsNonRoot, delete d.spec.template.spec.securityContext.runAsNonRoot)],
    ['an unknown flag', (d) => container(d).args.push('--no-such-flag')],
    ['no --server', (d) => (container(d).args = container(d).args.filter((a: string) => a !== '--server'))],
    ['a config file outside the ConfigMap', (d) => (container(d).args[container(d).args.indexOf('-c') + 1] = '/etc/config.yaml')],
    ['a config file key missing from the ConfigMap', (d) => (container(d).args[container(d).args.indexOf('-c') + 1] = '/config/other.yaml')],
    ['an invalid configuration', (_d, all) => (configMap(all).data['config.yaml'] += 'bundels: {}\n')],
    ['an inline token', (_d, all) => (configMap(all).data['config.yaml'] = configMap(all).data['config.yaml'].replace('token_path: /secrets/bundle-token', 'token: s3cr3t'))],
    ['a token_path outside the Secret', (_d, all) => (configMap(all).data['config.yaml'] = configMap(all).data['config.yaml'].replace('/secrets/bundle-token', '/config/bundle-token'))],
    ['a token_path to a missing Secret key', (_d, all) => (configMap(all).data['config.yaml'] = configMap(all).data['config.yaml'].replace('/secrets/bundle-token', '/secrets/other-token'))],
    ['persisted bundles on the read-only root filesystem', (_d, all) => (configMap(all).data['config.yaml'] = configMap(all).data['config.yaml'].replace('persistence_directory: /var/lib/regolith', ''))],
    ['authorization with probes on the API port', (d) => container(d).args.push('--authorization=basic')],
    ['a central API on loopback', (d) => (container(d).args[2] = '--addr=127.0.0.1:8181')],
    ['a sidecar API on every interface', () => {}, true],
    ['a Secret that does not exist', (_d, all) => all.splice(all.findIndex((o) => o.kind === 'Secret'), 1)],
  ];
  it.each(cases)('rejects %s', (_what, mutate, localhostOnly) => {
    expect(broken(mutate, localhostOnly)).toThrow();
  });
});
