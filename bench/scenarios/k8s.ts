// Kubernetes validating admission: AdmissionReview requests for Pods and Deployments
// (5-10 KB of JSON each) with several containers, env, probes, volumes and annotations.

import type { Scenario } from './types.js';

interface ContainerOpts {
  name: string;
  image: string;
  privileged?: boolean;
  limits?: { cpu?: string; memory?: string };
  runAsNonRoot?: boolean;
}

function container(o: ContainerOpts, i: number): Record<string, unknown> {
  const sc: Record<string, unknown> = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
  if (o.privileged !== undefined) sc['privileged'] = o.privileged;
  if (o.runAsNonRoot !== undefined) sc['runAsNonRoot'] = o.runAsNonRoot;
  return {
    name: o.name,
    image: o.image,
    imagePullPolicy: 'IfNotPresent',
    args: ['--config=/etc/app/config.yaml', '--log-level=info', `--shard=${i}`],
    ports: [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ],
    env: [
      { name: 'APP_ENV', value: 'production' },
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.observability.svc:4317' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'payments-db', key: 'password' } } },
      { name: 'FEATURE_FLAGS', value: 'checkout-v2,async-refunds,fraud-scoring' },
    ],
    resources: { requests: { cpu: '250m', memory: '256Mi' }, ...(o.limits ? { limits: o.limits } : {}) },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3 },
    readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5, timeoutSeconds: 2 },
    volumeMounts: [
      { name: 'config', mountPath: '/etc/app', readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'tls', mountPath: '/etc/tls', readOnly: true },
    ],
    securityContext: sc,
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

interface ReviewOpts {
  kind: 'Pod' | 'Deployment';
  containers: ContainerOpts[];
  init?: ContainerOpts[];
  labels?: Record<string, string>;
  podRunAsNonRoot?: boolean;
  hostNetwork?: boolean;
}

const LABELS = { 'app.kubernetes.io/name': 'payments-api', 'app.kubernetes.io/version': '2.14.3', team: 'payments', 'cost-center': 'cc-4411', tier: 'backend' };

function review(o: ReviewOpts, i: number): Record<string, unknown> {
  const labels = o.labels ?? LABELS;
  const podSpec: Record<string, unknown> = {
    serviceAccountName: 'payments-api',
    automountServiceAccountToken: false,
    securityContext: { ...(o.podRunAsNonRoot !== undefined ? { runAsNonRoot: o.podRunAsNonRoot } : {}), runAsUser: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } },
    containers: o.containers.map((c, j) => container(c, j)),
    ...(o.init ? { initContainers: o.init.map((c, j) => container(c, 10 + j)) } : {}),
    volumes: [
      { name: 'config', configMap: { name: 'payments-api-config' } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      { name: 'tls', secret: { secretName: 'payments-api-tls' } },
    ],
    nodeSelector: { 'kubernetes.io/os': 'linux', 'node.kubernetes.io/pool': 'general' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'payments', effect: 'NoSchedule' }],
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'payments-api' } }, topologyKey: 'kubernetes.io/hostname' } },
        ],
      },
    },
    ...(o.hostNetwork !== undefined ? { hostNetwork: o.hostNetwork } : {}),
    dnsPolicy: 'ClusterFirst',
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
  };
  const meta = {
    name: o.kind === 'Pod' ? `payments-api-7d9f8c-${i}` : 'payments-api',
    namespace: 'payments',
    uid: `7b0c3f1e-3c1a-4a5e-9d2b-${String(100000000000 + i)}`,
    annotations: {
      'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"payments-api"}}',
      'deployment.kubernetes.io/revision': '42',
      'prometheus.io/scrape': 'true',
    },
  };
  const object =
    o.kind === 'Pod'
      ? { apiVersion: 'v1', kind: 'Pod', metadata: { ...meta, labels }, spec: podSpec }
      : {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { ...meta, labels: LABELS },
          spec: {
            replicas: 3,
            selector: { matchLabels: { 'app.kubernetes.io/name': 'payments-api' } },
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
            template: { metadata: { labels, annotations: { 'prometheus.io/port': '9090' } }, spec: podSpec },
          },
        };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `705ab4f5-6393-11e8-b7cc-${String(420000000000 + i)}`,
      kind: o.kind === 'Pod' ? { group: '', version: 'v1', kind: 'Pod' } : { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: o.kind === 'Pod' ? { group: '', version: 'v1', resource: 'pods' } : { group: 'apps', version: 'v1', resource: 'deployments' },
      requestKind: { group: o.kind === 'Pod' ? '' : 'apps', version: 'v1', kind: o.kind },
      namespace: 'payments',
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:argocd:argocd-application-controller', uid: 'b1d9f0a2', groups: ['system:serviceaccounts', 'system:serviceaccounts:argocd', 'system:authenticated'] },
      object,
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldManager: 'argocd-controller' },
    },
  };
}

const GOOD = 'registry.corp.example.com/payments/api:2.14.3';
const LIM = { cpu: '1', memory: '512Mi' };

export function k8sHandWritten(): (json: string) => string[] {
  const TRUSTED = ['registry.corp.example.com/', 'gcr.io/acme-prod/', 'public.ecr.aws/acme/'];
  const REQUIRED = ['app.kubernetes.io/name', 'app.kubernetes.io/version', 'team', 'cost-center'];
  const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);
  const q = (s: unknown) => JSON.stringify(s);
  const truthy = (v: unknown) => v !== undefined && v !== false;
  return (json) => {
    const input = JSON.parse(json);
    const req = input.request;
    const kind = req?.kind?.kind;
    let spec: any;
    let labels: any;
    if (kind === 'Pod') {
      spec = req.object?.spec;
      labels = req.object?.metadata?.labels;
    } else if (WORKLOADS.has(kind)) {
      spec = req.object?.spec?.template?.spec;
      labels = req.object?.spec?.template?.metadata?.labels;
    }
    const out = new Set<string>();
    const containers = [...(Array.isArray(spec?.containers) ? spec.containers : []), ...(Array.isArray(spec?.initContainers) ? spec.initContainers : [])];
    const podNonRoot = spec?.securityContext?.runAsNonRoot === true;
    for (const c of containers) {
      const name = c?.name;
      const image = c?.image;
      const sc = c?.securityContext;
      if (typeof image === 'string' && name !== undefined) {
        if (!TRUSTED.some((p) => image.startsWith(p))) out.add(`container ${q(name)} uses image ${q(image)} from an untrusted registry`);
        if (image.endsWith(':latest')) out.add(`container ${q(name)} uses the :latest tag`);
      }
      if (name === undefined) continue;
      if (sc?.privileged === true) out.add(`container ${q(name)} must not be privileged`);
      for (const r of ['cpu', 'memory']) if (!truthy(c?.resources?.limits?.[r])) out.add(`container ${q(name)} has no ${r} limit`);
      const nonRoot = sc?.runAsNonRoot === true || (podNonRoot && sc?.runAsNonRoot !== false);
      if (!nonRoot) out.add(`container ${q(name)} must set runAsNonRoot`);
    }
    for (const f of ['hostNetwork', 'hostPID', 'hostIPC']) if (spec?.[f] === true) out.add(`pod must not use ${f}`);
    for (const l of REQUIRED) if (!truthy(labels?.[l])) out.add(`missing required label ${q(l)}`);
    return [...out].sort();
  };
}

export function k8sScenario(): Scenario {
  const three = (over: Partial<ContainerOpts>[] = [{}, {}, {}]): ContainerOpts[] =>
    over.map((o, j) => ({ name: ['api', 'sidecar-proxy', 'log-shipper'][j]!, image: GOOD, limits: LIM, ...o }));
  const fixed: [ReviewOpts, number][] = [
    [{ kind: 'Deployment', containers: three(), podRunAsNonRoot: true }, 0],
    [{ kind: 'Pod', containers: three(), podRunAsNonRoot: true, init: [{ name: 'migrate', image: 'gcr.io/acme-prod/migrate:1.2', limits: LIM }] }, 0],
    [{ kind: 'Deployment', containers: three([{}, { privileged: true }, {}]), podRunAsNonRoot: true }, 1],
    [{ kind: 'Deployment', containers: three([{ image: 'docker.io/library/nginx:latest' }, {}, {}]), podRunAsNonRoot: true }, 2],
    [{ kind: 'Pod', containers: three([{ limits: { cpu: '1' } }, { limits: undefined }, {}]), podRunAsNonRoot: true }, 3],
    [{ kind: 'Pod', containers: three([{ runAsNonRoot: true }, { runAsNonRoot: false }, {}]) }, 2], // no pod-level default
    [{ kind: 'Deployment', containers: three([{}, { runAsNonRoot: false }, {}]), podRunAsNonRoot: true }, 1],
    [{ kind: 'Pod', containers: three(), podRunAsNonRoot: true, hostNetwork: true }, 1],
    [{ kind: 'Pod', containers: three(), podRunAsNonRoot: true, labels: { 'app.kubernetes.io/name': 'x', team: 'y' } }, 2],
    [
      {
        kind: 'Deployment',
        containers: three([{ image: 'quay.io/evil/miner:latest', privileged: true, limits: undefined }, { image: 'gcr.io/acme-prod/envoy:1.29' }, {}]),
        init: [{ name: 'init-perms', image: 'busybox:1.36', privileged: true }],
        labels: { team: 'payments' },
        hostNetwork: true,
      },
      0, // counted by both implementations, not by hand
    ],
  ];
  const cases: Scenario['cases'] = fixed.map(([o, n], i) => ({ json: JSON.stringify(review(o, i)), expect: i === fixed.length - 1 ? undefined : n }));
  return {
    name: 'Kubernetes admission (AdmissionReview)',
    policy: 'k8s-admission.rego',
    query: 'data.k8s.admission.deny',
    packagePath: 'k8s/admission',
    data: {},
    cases,
    handWritten: k8sHandWritten,
    undefinedAs: [],
  };
}
