// Structural checks shared by the plain manifests' and the Helm chart's tests: they read a
// pod spec as the kubelet and regolith would — the container's args through regolith's own
// `run` flag parser, files through the volume mounts to the ConfigMap's and Secret's keys,
// the configuration through regolith's loader (${ENV}, --set, --set-file) and validator.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { expect } from 'vitest';
import runCommand from '../../src/cli/commands/run.js';
import { applySet, parseConfigText, validateConfig, type Config } from '../../src/plugins/config/index.js';

export type Obj = Record<string, any>;

let scratchDir: string | undefined;
let seq = 0;
function scratch(): string {
  if (!scratchDir) {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-deploy-'));
    scratchDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return scratchDir;
}

export interface RunArgs {
  server: boolean;
  addr: string[];
  diagnosticAddr: string[];
  configFile?: string;
  set: string[];
  setFile: string[];
  authentication: string;
  authorization: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsCaCertFile?: string;
  logLevel: string;
  logFormat: string;
  shutdownGracePeriod: string;
  paths: string[];
}

/** `regolith <args>` through the CLI's real `run` definition (unknown flags throw). */
export function parseRunArgs(args: string[]): RunArgs {
  expect(args[0], 'the subcommand').toBe('run');
  const program = new Command('regolith').exitOverride().enablePositionalOptions();
  const run = runCommand.register(program);
  let captured: RunArgs | undefined;
  run.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  run.action((paths: string[], opts: Omit<RunArgs, 'paths'>) => {
    captured = { ...opts, paths, server: !!opts.server };
  });
  try {
    program.parse(['node', 'regolith', ...args]);
  } catch (e) {
    if (e instanceof CommanderError) throw new Error(`regolith ${args.join(' ')}: ${e.message}`);
    throw e;
  }
  const a = captured!;
  // the checks `regolith run` makes before it starts (src/cli/commands/run.ts)
  expect(['off', 'token', 'tls']).toContain(a.authentication);
  expect(['off', 'basic']).toContain(a.authorization);
  expect(['debug', 'info', 'warn', 'error']).toContain(a.logLevel);
  expect(['json', 'json-pretty', 'text']).toContain(a.logFormat);
  expect(Number(a.shutdownGracePeriod)).toBeGreaterThanOrEqual(0);
  expect(!a.tlsCertFile, '--tls-cert-file and --tls-private-key-file go together').toBe(!a.tlsPrivateKeyFile);
  if (a.tlsCaCertFile) expect(a.tlsCertFile).toBeTruthy();
  if (a.authentication === 'tls') expect(a.tlsCaCertFile).toBeTruthy();
  return a;
}

/** host and port of a listening address ("0.0.0.0:8181", ":8181", "[::1]:8181"). */
export function hostPort(addr: string): { host: string; port: number } {
  const m = /^(\[[^\]]*\]|[^:]*):(\d+)$/.exec(addr);
  if (!m) throw new Error(`not a host:port address: ${addr}`);
  return { host: m[1]!, port: Number(m[2]) };
}

export const isLoopback = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '[::1]';

/** What a file path in the container resolves to through its volume mounts. */
export type Resolved = { kind: 'configMap' | 'secret'; name: string; key: string; readOnly: boolean; content?: string } | { kind: 'emptyDir'; readOnly: boolean };

export class Pod {
  constructor(
    readonly spec: Obj,
    readonly objects: Obj[],
    /** contents of Secrets that are not among the objects (existingSecret) */
    readonly external: Record<string, Record<string, string>> = {},
  ) {}

  container(name: string): Obj {
    const c = (this.spec.containers as Obj[]).find((x) => x.name === name);
    expect(c, `container ${name}`).toBeTruthy();
    return c!;
  }

  volume(name: string): Obj {
    const v = (this.spec.volumes as Obj[]).find((x) => x.name === name);
    expect(v, `volume ${name}`).toBeTruthy();
    return v!;
  }

  object(kind: string, name: string): Obj | undefined {
    return this.objects.find((o) => o.kind === kind && o.metadata?.name === name);
  }

  /** A ConfigMap's or Secret's keys and contents (Secret data is base64). */
  keys(kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> {
    if (kind === 'Secret' && this.external[name]) return this.external[name]!;
    const o = this.object(kind, name);
    expect(o, `${kind} ${name} is defined`).toBeTruthy();
    const out: Record<string, string> = { ...(o!.stringData ?? {}) };
    for (const [k, v] of Object.entries((o!.data ?? {}) as Record<string, string>)) out[k] = kind === 'Secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
    return out;
  }

  resolve(container: Obj, path: string): Resolved | undefined {
    const mounts = ((container.volumeMounts ?? []) as Obj[]).filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
    if (mounts.length === 0) return undefined;
    const m = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0]!;
    expect(m.subPath, 'subPath mounts do not see updates of the ConfigMap or Secret').toBeUndefined();
    const v = this.volume(m.name);
    const readOnly = m.readOnly === true;
    if (v.emptyDir) return { kind: 'emptyDir', readOnly };
    const rel = path.slice(m.mountPath.length + 1);
    const src = v.configMap ? { kind: 'configMap' as const, name: v.configMap.name as string, items: v.configMap.items as Obj[] | undefined } : v.secret ? { kind: 'secret' as const, name: v.secret.secretName as string, items: v.secret.items as Obj[] | undefined } : undefined;
    if (!src) throw new Error(`volume ${m.name}: only configMap, secret and emptyDir volumes are understood`);
    const key = src.items ? (src.items.find((it) => it.path === rel)?.key as string | undefined) : rel;
    const data = this.keys(src.kind === 'configMap' ? 'ConfigMap' : 'Secret', src.name);
    return { kind: src.kind, name: src.name, key: key ?? rel, readOnly, content: key === undefined ? undefined : data[key] };
  }

  /** The file's content, which must exist in a ConfigMap or Secret volume. */
  read(container: Obj, path: string, kind?: 'configMap' | 'secret'): string {
    const r = this.resolve(container, path);
    expect(r, `${path} is on a volume`).toBeTruthy();
    if (r!.kind === 'emptyDir') throw new Error(`${path} is on an emptyDir`);
    if (kind) expect(r!.kind, `${path} comes from a ${kind}`).toBe(kind);
    expect(r!.readOnly, `${path} is mounted read-only`).toBe(true);
    expect(r!.content, `${path}: key ${r!.key} exists in ${r!.kind} ${r!.name}`).toBeTypeOf('string');
    return r!.content!;
  }

  /** The container's environment as the process sees it (literal values and secretKeyRefs). */
  env(container: Obj): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of (container.env ?? []) as Obj[]) {
      if (e.value !== undefined) out[e.name] = String(e.value);
      else if (e.valueFrom?.secretKeyRef) out[e.name] = this.keys('Secret', e.valueFrom.secretKeyRef.name)[e.valueFrom.secretKeyRef.key]!;
      else if (e.valueFrom?.configMapKeyRef) out[e.name] = this.keys('ConfigMap', e.valueFrom.configMapKeyRef.name)[e.valueFrom.configMapKeyRef.key]!;
    }
    return out;
  }

  /** The container port a probe's port (a number or a name) is. */
  portNumber(container: Obj, port: number | string): number {
    if (typeof port === 'number') return port;
    const p = ((container.ports ?? []) as Obj[]).find((x) => x.name === port);
    expect(p, `named port ${port} on container ${container.name}`).toBeTruthy();
    return p!.containerPort as number;
  }
}

export interface RegolithExpectations {
  /** the decision API listens on loopback only (the sidecar form) */
  localhostOnly: boolean;
  imageRepository?: string;
  imageTag?: string;
}

export interface CheckedRegolith {
  args: RunArgs;
  config: Config;
  configText: string;
  apiPort: number;
}

/** Every documented property of a Regolith container in a pod; returns what it found. */
export function checkRegolithContainer(pod: Pod, name: string, want: RegolithExpectations): CheckedRegolith {
  const c = pod.container(name);

  // image
  const [repo, tag] = String(c.image).split(':');
  expect(repo).toBe(want.imageRepository ?? 'regolith/regolith');
  expect(tag).toBe(want.imageTag ?? '0.1.0');
  expect(c.command, 'the image ENTRYPOINT runs node dist/cli/main.js').toBeUndefined();

  // args: run --server, the addresses, the config file
  const args = parseRunArgs(c.args as string[]);
  expect(args.server).toBe(true);
  expect(args.paths, 'policies come from bundles, not from paths').toEqual([]);
  expect(args.addr.length).toBe(1);
  const api = hostPort(args.addr[0]!);
  if (want.localhostOnly) {
    expect(isLoopback(api.host), `sidecar API address ${args.addr[0]} is loopback`).toBe(true);
    for (const p of (c.ports ?? []) as Obj[]) expect(p.containerPort, 'the API port is not exposed').not.toBe(api.port);
  } else {
    expect(api.host).toBe('0.0.0.0');
    expect(((c.ports ?? []) as Obj[]).map((p) => p.containerPort)).toContain(api.port);
  }
  const diagnostics = args.diagnosticAddr.map(hostPort);
  for (const d of diagnostics) expect(d.port).not.toBe(api.port);

  // probes: readiness on /health?bundles&plugins, liveness on /health, on a listener the
  // kubelet reaches (not loopback), which answers without authorization and client certificates
  const probeTarget = (probe: Obj, path: string) => {
    expect(probe?.httpGet, 'an httpGet probe').toBeTruthy();
    expect(probe.httpGet.path).toBe(path);
    expect(probe.httpGet.host, 'probes go to the pod IP').toBeUndefined();
    const port = pod.portNumber(c, probe.httpGet.port);
    const diag = diagnostics.find((d) => d.port === port);
    if (diag) {
      expect(isLoopback(diag.host)).toBe(false);
      expect(probe.httpGet.scheme ?? 'HTTP', 'the diagnostic listener is plain HTTP').toBe('HTTP');
    } else {
      expect(port, 'the probe targets the API or the diagnostic port').toBe(api.port);
      expect(isLoopback(api.host), 'the kubelet cannot reach a loopback listener').toBe(false);
      expect(args.authorization, 'probes cannot pass the authorization policy').toBe('off');
      expect(args.tlsCaCertFile, 'probes cannot present a client certificate').toBeUndefined();
      expect(probe.httpGet.scheme ?? 'HTTP').toBe(args.tlsCertFile ? 'HTTPS' : 'HTTP');
    }
    expect(probe.periodSeconds).toBeGreaterThan(0);
    expect(probe.timeoutSeconds).toBeGreaterThan(0);
    expect(probe.failureThreshold).toBeGreaterThan(0);
  };
  probeTarget(c.readinessProbe, '/health?bundles&plugins');
  probeTarget(c.livenessProbe, '/health');

  // resources
  expect(c.resources?.requests?.cpu).toBeTruthy();
  expect(c.resources?.requests?.memory).toBeTruthy();
  expect(c.resources?.limits?.memory).toBeTruthy();

  // securityContext: non-root, read-only root filesystem, no capabilities, no escalation
  const sc = c.securityContext ?? {};
  const psc = pod.spec.securityContext ?? {};
  expect(sc.runAsNonRoot ?? psc.runAsNonRoot).toBe(true);
  expect(sc.runAsUser ?? psc.runAsUser ?? 10001, 'a non-root uid').toBeGreaterThan(0);
  expect(sc.readOnlyRootFilesystem).toBe(true);
  expect(sc.allowPrivilegeEscalation).toBe(false);
  expect(sc.privileged ?? false).toBe(false);
  expect(sc.capabilities?.drop ?? [], 'capabilities.drop').toContain('ALL');
  expect(sc.capabilities?.add ?? []).toEqual([]);

  // every ConfigMap and Secret volume is mounted read-only; the Secrets' files are readable
  // by the non-root user only through the pod's fsGroup
  for (const m of (c.volumeMounts ?? []) as Obj[]) {
    const v = pod.volume(m.name);
    if (v.secret || v.configMap) expect(m.readOnly, `volume ${m.name} mounted read-only`).toBe(true);
    if (v.secret && v.secret.defaultMode !== undefined) {
      expect(v.secret.defaultMode & 0o007, `secret ${m.name} is not world-readable`).toBe(0);
      if ((v.secret.defaultMode & 0o004) === 0) expect(psc.fsGroup, 'fsGroup lets the non-root user read the Secret').toBeTruthy();
    }
  }
  // /tmp is writable (an emptyDir) despite the read-only root filesystem
  expect(pod.resolve(c, '/tmp/x')?.kind).toBe('emptyDir');

  // the configuration: a file from the ConfigMap, given with -c
  expect(args.configFile, 'a configuration file is given with -c').toBeTruthy();
  const configText = pod.read(c, args.configFile!, 'configMap');

  // loaded as regolith loads it: ${ENV} from the container's environment, --set, --set-file
  // with files from the mounted Secret
  const doc = parseConfigText(configText, pod.env(c));
  for (const s of args.set) applySet(doc, s, false);
  for (const s of args.setFile) {
    for (const pair of s.split(',')) {
      const eq = pair.indexOf('=');
      const file = pair.slice(eq + 1);
      expect(pod.resolve(c, file)?.kind, `--set-file ${file} comes from a Secret`).toBe('secret');
      // regolith reads the file: give it the Secret's content at a local path
      const local = join(scratch(), `f${seq++}`);
      writeFileSync(local, pod.read(c, file, 'secret'));
      applySet(doc, `${pair.slice(0, eq)}=${local}`, true);
    }
  }
  let config: Config | undefined;
  expect(() => {
    config = validateConfig(doc);
  }, 'the configuration is valid').not.toThrow();

  // credentials are files in the Secret mount, not inline
  for (const [name, svc] of Object.entries(config!.services)) {
    const bearer = svc.credentials.bearer;
    if (bearer) {
      expect(bearer.token, `services.${name}: the token is not inline`).toBeUndefined();
      const token = pod.read(c, bearer.token_path!, 'secret');
      expect(token.length).toBeGreaterThan(0);
    }
    if (svc.credentials.client_tls) {
      pod.read(c, svc.credentials.client_tls.cert, 'secret');
      pod.read(c, svc.credentials.client_tls.private_key, 'secret');
    }
  }
  for (const [name, key] of Object.entries(config!.keys)) {
    expect(key.private_key, `keys.${name}: no private keys in a decision server`).toBeUndefined();
    expect(key.key, `keys.${name}.key is a PEM from the Secret`).toMatch(/-----BEGIN PUBLIC KEY-----/);
    expect(configText, `keys.${name}: the PEM is not in the ConfigMap`).not.toContain('BEGIN PUBLIC KEY');
  }
  for (const [name, b] of Object.entries(config!.bundles)) {
    if (b.persist) {
      const dir = config!.persistence_directory;
      expect(dir, `bundles.${name}.persist needs a persistence_directory (the working directory is read-only)`).toBeTruthy();
      const r = pod.resolve(c, `${dir}/bundles`);
      expect(r?.kind, `${dir} is a writable emptyDir`).toBe('emptyDir');
      expect(r!.readOnly).toBe(false);
    }
  }

  // TLS files come from a Secret
  if (args.tlsCertFile) {
    expect(pod.read(c, args.tlsCertFile, 'secret')).toBeTypeOf('string');
    expect(pod.resolve(c, args.tlsPrivateKeyFile!)?.kind).toBe('secret');
  }
  if (args.tlsCaCertFile) expect(pod.resolve(c, args.tlsCaCertFile)?.kind).toBe('secret');

  return { args, config: config!, configText, apiPort: api.port };
}

/** Labels selecting the pods: Deployment selector ⊆ pod labels, Service/PDB selectors too. */
export function checkSelectors(objects: Obj[]): void {
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  for (const d of deployments) {
    const podLabels = d.spec.template.metadata.labels as Record<string, string>;
    expect(podLabels).toMatchObject(d.spec.selector.matchLabels);
  }
  for (const o of objects.filter((x) => x.kind === 'Service' || x.kind === 'PodDisruptionBudget')) {
    const sel = (o.kind === 'Service' ? o.spec.selector : o.spec.selector.matchLabels) as Record<string, string>;
    expect(Object.keys(sel).length).toBeGreaterThan(0);
    const matched = deployments.filter((d) => Object.entries(sel).every(([k, v]) => d.spec.template.metadata.labels[k] === v));
    expect(matched.length, `${o.kind} ${o.metadata.name} selects a Deployment's pods`).toBe(1);
    if (o.kind === 'Service') {
      const c = (matched[0]!.spec.template.spec.containers as Obj[]).find((x) => x.name === 'regolith')!;
      for (const p of o.spec.ports as Obj[]) {
        const target = typeof p.targetPort === 'string' ? c.ports.find((x: Obj) => x.name === p.targetPort)?.containerPort : (p.targetPort ?? p.port);
        expect(target, `Service port ${p.name} reaches a container port`).toBeTruthy();
        expect(hostPort(parseRunArgs(c.args).addr[0]!).port, 'the Service reaches the decision API').toBe(target);
      }
    }
  }
}

/** Names and kinds every object has. */
export function checkObjectsWellFormed(objects: Obj[]): void {
  for (const o of objects) {
    expect(o.apiVersion, JSON.stringify(o).slice(0, 80)).toBeTypeOf('string');
    expect(o.kind).toBeTypeOf('string');
    expect(o.metadata?.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    expect(o.metadata.namespace, 'no hard-coded namespace').toBeUndefined();
    if (o.kind === 'Secret') expect(o.type).toBe('Opaque');
    if (o.kind === 'Deployment') expect(o.apiVersion).toBe('apps/v1');
    if (o.kind === 'PodDisruptionBudget') expect(o.apiVersion).toBe('policy/v1');
  }
}
