// deploy/helm/regolith: the values schema (with ajv, as helm validates values), and the chart
// rendered by test/deploy/render.ts (`helm template` is not available here) in its central
// and sidecar forms, with TLS and with an existing Secret, then checked as the plain
// manifests are (checks.ts): args through regolith's flag parser, probes, mounts,
// securityContext, and the rendered ConfigMap's configuration through validateConfig.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { Pod, checkObjectsWellFormed, checkRegolithContainer, checkSelectors, parseRunArgs, type Obj } from './checks.js';
import { TemplateError, loadSchemaValidator, mergeValues, renderChart, type RenderOptions } from './render.js';

const CHART = join(import.meta.dirname, '../../deploy/helm/regolith');
const SIDECAR_APP = readFileSync(join(import.meta.dirname, 'fixtures/app-with-sidecar.yaml'), 'utf8');
const defaults = yaml.load(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;

const render = (opts: RenderOptions = {}) => renderChart(CHART, { releaseName: 'authz', ...opts });
const byKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const one = (objects: Obj[], kind: string) => {
  const xs = byKind(objects, kind);
  expect(xs.length, kind).toBe(1);
  return xs[0]!;
};
const kinds = (objects: Obj[]) => objects.map((o) => o.kind as string).sort();

describe('Chart.yaml', () => {
  it('is a v2 chart regolith 0.1.0 with appVersion "0.1.0"', () => {
    const text = readFileSync(join(CHART, 'Chart.yaml'), 'utf8');
    expect(yaml.load(text)).toMatchObject({ apiVersion: 'v2', name: 'regolith', version: '0.1.0', appVersion: '0.1.0', type: 'application' });
    expect(text).toMatch(/^appVersion: "0\.1\.0"$/m); // a string, also for YAML 1.1 readers
  });
});

describe('values.schema.json', () => {
  const validate = loadSchemaValidator(CHART);
  const check = (over: Record<string, unknown>) => validate(mergeValues(defaults, over));

  it('accepts the default values.yaml', () => {
    expect(validate(defaults), JSON.stringify(validate.errors)).toBe(true);
  });

  it('describes every value of values.yaml (additionalProperties is false at the top)', () => {
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8'));
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.additionalProperties).toBe(false);
    for (const k of Object.keys(defaults)) expect(schema.properties, k).toHaveProperty(k);
    for (const k of ['image', 'server', 'probes', 'service', 'pdb']) {
      expect(schema.properties[k].additionalProperties, k).toBe(false);
      for (const sub of Object.keys(defaults[k] as object)) expect(schema.properties[k].properties, `${k}.${sub}`).toHaveProperty(sub);
    }
    // as a subchart it also receives `global`
    expect(check({ global: { imageRegistry: 'x' } })).toBe(true);
  });

  it('accepts the documented variants', () => {
    expect(check({ mode: 'sidecar' })).toBe(true);
    expect(check({ existingSecret: 'mine', secrets: {} })).toBe(true);
    expect(check({ server: { tls: { enabled: true, secretName: 'regolith-tls', clientCA: true }, authentication: 'tls', authorization: 'basic' } }), JSON.stringify(validate.errors)).toBe(true);
    expect(check({ server: { diagnosticPort: null, tls: { enabled: true, secretName: 'regolith-tls' } } })).toBe(true);
    expect(check({ pdb: { enabled: true, minAvailable: '50%' }, image: { tag: 'dev' }, extraArgs: ['--set=default_decision=/a/b'] })).toBe(true);
    expect(check({ nodeSelector: { 'kubernetes.io/os': 'linux' }, tolerations: [{ key: 'k', operator: 'Exists' }], affinity: { podAntiAffinity: {} } })).toBe(true);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['mode not central or sidecar', { mode: 'daemonset' }],
    ['replicaCount as a string', { replicaCount: '3' }],
    ['replicaCount 0', { replicaCount: 0 }],
    ['an unknown top-level key', { replicas: 3 }],
    ['an unknown image key', { image: { name: 'x' } }],
    ['a bad pullPolicy', { image: { pullPolicy: 'Sometimes' } }],
    ['config not an object', { config: 'services: {}' }],
    ['a secret value that is not a string', { secrets: { token: 42 } }],
    ['a secret file name with a slash', { secrets: { 'a/b': 'x' } }],
    ['an unknown server key', { server: { addr: '0.0.0.0:8181' } }],
    ['a port out of range', { server: { port: 70000 } }],
    ['authentication as YAML 1.1 off (false)', { server: { authentication: false } }],
    ['an unknown authentication', { server: { authentication: 'jwt' } }],
    ['tls.enabled as a string', { server: { tls: { enabled: 'true', secretName: 'x' } } }],
    ['TLS without a secretName', { server: { tls: { enabled: true } } }],
    ['client CA without TLS', { server: { tls: { enabled: false, clientCA: true } } }],
    ['authentication=tls without a client CA', { server: { authentication: 'tls', tls: { enabled: true, secretName: 'x' } } }],
    ['authorization=basic without the diagnostic listener', { server: { authorization: 'basic', diagnosticPort: null } }],
    ['the sidecar without the diagnostic listener', { mode: 'sidecar', server: { diagnosticPort: null } }],
    ['a probe path that is not /health', { probes: { readiness: { path: '/v1/data' } } }],
    ['an unknown probe key', { probes: { liveness: { port: 8181 } } }],
    ['periodSeconds as a string', { probes: { readiness: { periodSeconds: '5' } } }],
    ['an unknown service type', { service: { type: 'Ingress' } }],
    ['pdb.minAvailable that is not a number or percentage', { pdb: { minAvailable: 'half' } }],
    ['an unknown pdb key', { pdb: { maxUnavailable: 1 } }],
    ['extraArgs that are not flags', { extraArgs: ['policy.rego'] }],
    ['extraArgs as a string', { extraArgs: '--foo' }],
    ['a resources key that is not requests/limits', { resources: { request: { cpu: '1' } } }],
    ['nodeSelector with a non-string value', { nodeSelector: { zone: 1 } }],
    ['a setFileFromSecret file outside the Secret', { setFileFromSecret: { 'keys.k.key': '../etc/passwd' } }],
  ];
  it.each(invalid)('rejects %s', (_what, over) => {
    expect(check(over)).toBe(false);
  });

  it('values.yaml quotes the scalars YAML 1.1 (helm) would read as booleans', () => {
    const text = readFileSync(join(CHART, 'values.yaml'), 'utf8');
    for (const line of text.split('\n')) {
      if (line.trim().startsWith('#')) continue;
      expect(line, 'unquoted on/off/yes/no').not.toMatch(/:\s+(on|off|yes|no|y|n)\s*(#.*)?$/i);
    }
  });
});

describe('the chart, central form with the default values', () => {
  const r = render();

  it('renders ConfigMap, Secret, Deployment, Service and PodDisruptionBudget', () => {
    expect(kinds(r.objects)).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Secret', 'Service']);
    checkObjectsWellFormed(r.objects);
    checkSelectors(r.objects);
    for (const o of r.objects) expect(o.metadata.name).toMatch(/^authz-regolith(-config|-secrets)?$/);
    for (const o of r.objects) expect(o.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'regolith', 'app.kubernetes.io/instance': 'authz', 'app.kubernetes.io/version': '0.1.0', 'app.kubernetes.io/managed-by': 'Helm' });
  });

  it('runs replicaCount replicas of the image regolith/regolith:<appVersion>', () => {
    const d = one(r.objects, 'Deployment');
    expect(d.spec.replicas).toBe(3);
    const c = d.spec.template.spec.containers[0];
    expect(c.image).toBe('regolith/regolith:0.1.0');
    expect(c.imagePullPolicy).toBe('IfNotPresent');
    expect(one(render({ values: { image: { tag: 'dev', repository: 'registry.example.com/regolith' } } }).objects, 'Deployment').spec.template.spec.containers[0].image).toBe('registry.example.com/regolith:dev');
  });

  it('has a regolith container that passes every structural check, with a valid configuration', () => {
    const d = one(r.objects, 'Deployment');
    const pod = new Pod(d.spec.template.spec, r.objects);
    const { args, config, configText } = checkRegolithContainer(pod, 'regolith', { localhostOnly: false });
    expect(args.addr).toEqual(['0.0.0.0:8181']);
    expect(args.diagnosticAddr).toEqual(['0.0.0.0:8282']);
    expect(args.configFile).toBe('/config/config.yaml');
    expect(args.setFile).toEqual(['keys.bundle-key.key=/secrets/bundle-key.pem']);
    expect(args.authentication).toBe('off');
    // the ConfigMap holds values.config, as YAML
    expect(yaml.load(configText)).toEqual(defaults['config']);
    expect(config.services['bundle-server']!.credentials.bearer!.token_path).toBe('/secrets/bundle-token');
    expect(pod.resolve(pod.container('regolith'), '/secrets/bundle-token')).toMatchObject({ kind: 'secret', name: 'authz-regolith-secrets', readOnly: true });
  });

  it('probes /health?bundles&plugins and /health on the diagnostic port', () => {
    const c = one(r.objects, 'Deployment').spec.template.spec.containers[0];
    expect(c.readinessProbe).toEqual({ httpGet: { path: '/health?bundles&plugins', port: 'diagnostic' }, initialDelaySeconds: 0, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 3 });
    expect(c.livenessProbe).toEqual({ httpGet: { path: '/health', port: 'diagnostic' }, initialDelaySeconds: 5, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 });
    expect(c.ports).toEqual([
      { name: 'http', containerPort: 8181, protocol: 'TCP' },
      { name: 'diagnostic', containerPort: 8282, protocol: 'TCP' },
    ]);
  });

  it('renders the Secret from `secrets`, base64-encoded', () => {
    const s = one(r.objects, 'Secret');
    expect(s.type).toBe('Opaque');
    const decoded = Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    expect(decoded).toEqual(defaults['secrets']);
  });

  it('applies resources, securityContexts and the shutdown grace period from the values', () => {
    const spec = one(r.objects, 'Deployment').spec.template.spec;
    expect(spec.securityContext).toEqual(defaults['podSecurityContext']);
    expect(spec.containers[0].securityContext).toEqual(defaults['securityContext']);
    expect(spec.containers[0].resources).toEqual(defaults['resources']);
    expect(spec.terminationGracePeriodSeconds).toBe(20);
    expect(parseRunArgs(spec.containers[0].args).shutdownGracePeriod).toBe('10');
  });

  it('exposes the API on service.port and keeps minAvailable from pdb', () => {
    expect(one(r.objects, 'Service').spec).toMatchObject({ type: 'ClusterIP', ports: [{ name: 'http', port: 8181, targetPort: 'http' }] });
    expect(one(r.objects, 'PodDisruptionBudget').spec.minAvailable).toBe(1);
    const other = render({ values: { service: { type: 'LoadBalancer', port: 443 }, pdb: { minAvailable: '50%' } } });
    expect(one(other.objects, 'Service').spec).toMatchObject({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'http' }] });
    expect(one(other.objects, 'PodDisruptionBudget').spec.minAvailable).toBe('50%');
    expect(kinds(render({ values: { pdb: { enabled: false } } }).objects)).toEqual(['ConfigMap', 'Deployment', 'Secret', 'Service']);
  });

  it('rolls the pods when the configuration changes (checksum annotation)', () => {
    const ann = (x: ReturnType<typeof render>) => one(x.objects, 'Deployment').spec.template.metadata.annotations;
    const a = ann(r);
    expect(a['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
    expect(ann(render({ values: { config: { labels: { x: 'y' } } } }))['checksum/config']).not.toBe(a['checksum/config']);
    expect(ann(render({ values: { secrets: { 'bundle-token': 'other' } } }))['checksum/secrets']).not.toBe(a['checksum/secrets']);
  });

  it('appends extraArgs and schedules with nodeSelector, tolerations and affinity', () => {
    const x = render({
      values: {
        extraArgs: ['--set=default_decision=/httpapi/authz/allow', '--log-level=debug'],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'policy', effect: 'NoSchedule' }],
        affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
      },
    });
    const spec = one(x.objects, 'Deployment').spec.template.spec;
    const args = parseRunArgs(spec.containers[0].args);
    expect(args.set).toEqual(['default_decision=/httpapi/authz/allow']);
    expect(args.logLevel).toBe('debug');
    expect(spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
    expect(spec.tolerations).toHaveLength(1);
    expect(spec.affinity).toHaveProperty('podAntiAffinity');
    const pod = new Pod(spec, x.objects);
    expect(checkRegolithContainer(pod, 'regolith', { localhostOnly: false }).config.default_decision).toBe('/httpapi/authz/allow');
    // absent when empty
    expect(one(r.objects, 'Deployment').spec.template.spec).not.toHaveProperty('nodeSelector');
  });

  it('keeps ${VAR} in the configuration for regolith to substitute', () => {
    const x = render({ values: { config: { labels: { region: '${REGION}' } } } });
    expect(one(x.objects, 'ConfigMap').data['config.yaml']).toContain('region: ${REGION}');
  });

  it('NOTES.txt names the Service and the readiness path', () => {
    expect(r.notes).toContain('svc/authz-regolith 8181:8181');
    expect(r.notes).toContain('/health?bundles&plugins');
    expect(r.notes).toContain('regolith/regolith:0.1.0');
  });
});

describe('the chart with TLS', () => {
  const tlsValues = { server: { authentication: 'token', authorization: 'basic', tls: { enabled: true, secretName: 'regolith-tls', clientCA: true } } };
  const r = render({ values: tlsValues });
  const d = one(r.objects, 'Deployment');
  // the kubernetes.io/tls Secret is the user's
  const tlsSecret = { 'tls.crt': 'CERT', 'tls.key': 'KEY', 'ca.crt': 'CA' };
  const pod = new Pod(d.spec.template.spec, r.objects, { 'regolith-tls': tlsSecret });

  it('serves TLS with the certificate, key and client CA from the TLS Secret at /tls', () => {
    const { args } = checkRegolithContainer(pod, 'regolith', { localhostOnly: false });
    expect(args).toMatchObject({ tlsCertFile: '/tls/tls.crt', tlsPrivateKeyFile: '/tls/tls.key', tlsCaCertFile: '/tls/ca.crt', authentication: 'token', authorization: 'basic' });
    const c = pod.container('regolith');
    expect(pod.resolve(c, '/tls/tls.key')).toMatchObject({ kind: 'secret', name: 'regolith-tls', readOnly: true, content: 'KEY' });
    expect(pod.volume('regolith-tls').secret.defaultMode).toBe(0o440);
  });

  it('keeps the probes on the plain diagnostic listener (they cannot pass authorization or mTLS)', () => {
    const c = pod.container('regolith');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/health?bundles&plugins', port: 'diagnostic' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'diagnostic' });
  });

  it('probes over HTTPS on the API port when there is no diagnostic listener', () => {
    const x = render({ values: { server: { diagnosticPort: null, tls: { enabled: true, secretName: 'regolith-tls' } } } });
    const p = new Pod(one(x.objects, 'Deployment').spec.template.spec, x.objects, { 'regolith-tls': tlsSecret });
    const { args } = checkRegolithContainer(p, 'regolith', { localhostOnly: false });
    expect(args.diagnosticAddr).toEqual([]);
    expect(args.tlsCaCertFile).toBeUndefined();
    const c = p.container('regolith');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/health?bundles&plugins', port: 8181, scheme: 'HTTPS' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 8181, scheme: 'HTTPS' });
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8181, protocol: 'TCP' }]);
  });

  it('probes plain HTTP on the API port without TLS and without a diagnostic listener', () => {
    const x = render({ values: { server: { diagnosticPort: null } } });
    const p = new Pod(one(x.objects, 'Deployment').spec.template.spec, x.objects);
    checkRegolithContainer(p, 'regolith', { localhostOnly: false });
    expect(p.container('regolith').readinessProbe.httpGet).toEqual({ path: '/health?bundles&plugins', port: 8181 });
  });
});

describe('the chart with an existing Secret', () => {
  const r = render({ values: { existingSecret: 'my-regolith-secrets' } });

  it('renders no Secret and mounts the named one at /secrets', () => {
    expect(kinds(r.objects)).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Service']);
    const pod = new Pod(one(r.objects, 'Deployment').spec.template.spec, r.objects, {
      'my-regolith-secrets': { 'bundle-token': 't0k3n', 'bundle-key.pem': '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n' },
    });
    checkRegolithContainer(pod, 'regolith', { localhostOnly: false });
    expect(pod.volume('regolith-secrets').secret.secretName).toBe('my-regolith-secrets');
    expect(r.notes).not.toContain('replace the placeholders');
  });

  it('mounts no secrets volume when there are neither secrets nor an existing Secret', () => {
    const x = render({ values: { secrets: null, setFileFromSecret: null, config: { services: null, keys: null, bundles: null, decision_logs: { service: null, reporting: null, console: true }, status: null } } });
    expect(kinds(x.objects)).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Service']);
    const spec = one(x.objects, 'Deployment').spec.template.spec;
    expect(spec.volumes.map((v: Obj) => v.name)).toEqual(['regolith-config', 'regolith-data', 'regolith-tmp']);
    checkRegolithContainer(new Pod(spec, x.objects), 'regolith', { localhostOnly: false });
  });
});

describe('the chart, sidecar form', () => {
  const r = render({ values: { mode: 'sidecar' }, extraTemplates: { 'app-with-sidecar.yaml': SIDECAR_APP } });
  const app = r.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'authz-app')!;
  const pod = new Pod(app.spec.template.spec, r.objects);

  it('renders only the ConfigMap and the Secret itself (no Deployment, Service or PDB)', () => {
    const own = render({ values: { mode: 'sidecar' } });
    expect(kinds(own.objects)).toEqual(['ConfigMap', 'Secret']);
    expect(own.notes).toContain('regolith.sidecarContainer');
    expect(own.notes).toContain('http://127.0.0.1:8181');
  });

  it('gives a pod that includes regolith.sidecarContainer a regolith listening on 127.0.0.1 only', () => {
    expect(app.spec.template.spec.containers.map((c: Obj) => c.name)).toEqual(['app', 'regolith']);
    const { args, config } = checkRegolithContainer(pod, 'regolith', { localhostOnly: true });
    expect(args.addr).toEqual(['127.0.0.1:8181']);
    expect(args.diagnosticAddr).toEqual(['0.0.0.0:8282']);
    expect(pod.container('regolith').ports).toEqual([{ name: 'diagnostic', containerPort: 8282, protocol: 'TCP' }]);
    expect(config.bundles['authz']!.service).toBe('bundle-server');
  });

  it('mounts the release\'s ConfigMap and Secret through regolith.sidecarVolumes', () => {
    const c = pod.container('regolith');
    expect(pod.resolve(c, '/config/config.yaml')).toMatchObject({ kind: 'configMap', name: 'authz-regolith-config' });
    expect(pod.resolve(c, '/secrets/bundle-token')).toMatchObject({ kind: 'secret', name: 'authz-regolith-secrets', readOnly: true });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/health?bundles&plugins', port: 'diagnostic' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'diagnostic' });
  });

  it('is refused without the diagnostic listener (the kubelet cannot reach 127.0.0.1)', () => {
    expect(() => render({ values: { mode: 'sidecar', server: { diagnosticPort: null } } })).toThrow(/schema/);
  });
});

describe('the test renderer (render.ts)', () => {
  // a chart of one template, rendered through renderChart with the real values and schema
  const tpl = (text: string, values: Record<string, unknown> = {}) => renderChart(CHART, { values, extraTemplates: { 'zz-test.txt': text } }).files['zz-test.txt'];

  it('implements the Go template behaviour the chart relies on', () => {
    expect(tpl('a  {{- " b" }}  {{- " c" -}}  \n d')).toBe('a b cd');
    expect(tpl('{{ range $k, $v := .Values.secrets }}[{{ $k }}]{{ end }}', { secrets: { b: '1', a: '2', c: '3' } })).toBe('[a][b][bundle-key.pem][bundle-token][c]');
    expect(tpl('{{ .Values.image.tag | default .Chart.AppVersion }}')).toBe('0.1.0');
    expect(tpl('{{ .Values.image.tag | default "x" | quote }}', { image: { tag: 'v"1' } })).toBe('"v\\"1"');
    expect(tpl('x:{{ toYaml .Values.pdb | nindent 2 }}')).toBe('x:\n  enabled: true\n  minAvailable: 1');
    expect(tpl('{{ if .Values.tolerations }}yes{{ else }}no{{ end }}')).toBe('no');
    expect(tpl('{{ if not .Values.affinity }}A{{ end }}{{ if eq .Values.mode "central" }}B{{ end }}{{ if ne 1 1 }}C{{ end }}')).toBe('AB');
    expect(tpl('{{ "ab" | b64enc }} {{ printf "%s-%v" "a" 3 }} {{ add 1 2 }} {{ or "" "z" }}')).toBe('YWI= a-3 3 z');
    expect(tpl('{{ include "regolith.fullname" . }}')).toBe('release-name-regolith');
  });

  const unsupported: [string, RegExp][] = [
    ['{{ with .Values.image }}{{ .tag }}{{ end }}', /unsupported keyword "with"/],
    ['{{ tpl "x" . }}', /unsupported function or keyword "tpl"/],
    ['{{ .Values.image.tag | upper }}', /unsupported function or keyword "upper"/],
    ['{{ if .Values.mode }}a{{ else if .Values.x }}b{{ end }}', /else if/],
    ['{{ range .Values.extraArgs }}a{{ else }}b{{ end }}', /range-else/],
    ['{{ $x := 1 }}', /variable assignment/],
    ['{{ if .Values.mode }}', /unclosed/],
    ['{{ end }}', /unexpected \{\{ end \}\}/],
    ['{{ .Values.nosuchvalue }}', /has no value/],
    ['{{ .Values.nosuch.deeper }}', /nil pointer/],
    ['{{ .Values.config }}', /toYaml/],
    ['{{ printf "%d" .Values.replicaCount }}', /%d is not supported/],
    ['{{ include "regolith.nosuch" . }}', /no template "regolith.nosuch"/],
    ['{{ template "regolith.fullname" . }}', /unsupported keyword "template"/],
    ['{{ `raw` }}', /raw string/],
    ['{{ .Values.image.tag', /unclosed action/],
    ['{{ required "need it" .Values.existingSecret }}', /need it/],
  ];
  it.each(unsupported)('fails loudly on %s', (text, err) => {
    expect(() => tpl(text)).toThrow(TemplateError);
    expect(() => tpl(text)).toThrow(err);
  });

  it('refuses values that break the schema before rendering, as helm does', () => {
    expect(() => render({ values: { mode: 'both' } })).toThrow(/schema/);
  });
});

describe('deploy/README.md', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../deploy/README.md'), 'utf8');

  it('documents the same sidecar include calls the test renders', () => {
    const calls = (text: string) => [...text.matchAll(/include "regolith\.sidecar(?:Container|Volumes)" \(dict[^\n]*?\)\) \| nindent/g)].map((m) => m[0]);
    const documented = calls(readme);
    expect(documented).toHaveLength(2);
    // the fixture stands in for a parent chart: its .Values are the subchart's .Values.regolith
    expect(calls(SIDECAR_APP).map((c) => c.replace('"Values" .Values ', '"Values" .Values.regolith '))).toEqual(documented);
  });

  it('describes every top-level value', () => {
    for (const k of Object.keys(defaults)) expect(readme, k).toContain(`\`${k}`);
  });
});
