// Validating the configuration document into typed settings with OPA's defaults. Every
// unknown key and every value of the wrong type fails with a message naming its dotted key,
// so a typo in a sidecar's config stops start-up instead of silently disabling a feature.

import { type BundleSourceConfig, type Config, type DecisionLogsConfig, type KeyEntry, type ServiceConfig, type StatusConfig } from './types.js';

import { checkService, fail, isObj, polling, Section } from './section.js';
import { adapters } from '../adapters/config.js';
import { discovery } from './discovery.js';
import { ADAPTER_TYPES } from '../adapters/registry.js';
import { PLUGIN_TYPES } from '../plugin-types.js';
import { distributedTracing } from '../tracing/config.js';

function service(name: string, s: Section): ServiceConfig {
  const url = s.reqStr('url');
  try {
    new URL(url);
  } catch {
    fail(`${s.key}.url`, `invalid URL ${JSON.stringify(url)}`);
  }
  const out: ServiceConfig = {
    name,
    url: url.replace(/\/+$/, ''),
    headers: s.strMap('headers'),
    allow_insecure_tls: s.bool('allow_insecure_tls', false),
    response_header_timeout_seconds: s.int('response_header_timeout_seconds') ?? 10,
    credentials: {},
  };
  const type = s.str('type');
  if (type !== undefined && type !== '' && type !== 'oci') fail(`${s.key}.type`, `unknown service type "${type}" (the one type is "oci", for OCI registries)`);
  if (type === 'oci') out.type = 'oci';
  if (s.has('tls')) {
    const t = s.sub('tls');
    out.tls = { ca_cert: t.str('ca_cert'), system_ca_required: t.bool('system_ca_required', false) };
    t.done();
  }
  const c = s.sub('credentials');
  let kinds = 0;
  if (c.has('bearer')) {
    kinds++;
    const b = c.sub('bearer');
    const token = b.str('token');
    const token_path = b.str('token_path');
    if (token === undefined && token_path === undefined) fail(`${b.key}`, 'one of token or token_path is required');
    out.credentials.bearer = { token, token_path, scheme: b.str('scheme') ?? 'Bearer' };
    b.done();
  }
  if (c.has('oauth2')) {
    kinds++;
    const o = c.sub('oauth2');
    const gt = o.str('grant_type') ?? 'client_credentials';
    if (gt !== 'client_credentials') fail(`${o.key}.grant_type`, `grant type "${gt}" is not supported (want "client_credentials")`);
    out.credentials.oauth2 = {
      grant_type: 'client_credentials',
      token_url: o.reqStr('token_url'),
      client_id: o.reqStr('client_id'),
      client_secret: o.reqStr('client_secret'),
      scopes: o.strList('scopes'),
      additional_headers: o.strMap('additional_headers'),
      additional_parameters: o.strMap('additional_parameters'),
    };
    o.done();
  }
  if (c.has('client_tls')) {
    kinds++;
    const t = c.sub('client_tls');
    out.credentials.client_tls = { cert: t.reqStr('cert'), private_key: t.reqStr('private_key'), private_key_passphrase: t.str('private_key_passphrase') };
    // Deprecated location of the CA; still honoured.
    const ca = t.str('ca_cert');
    if (ca) out.tls = { ...out.tls, ca_cert: out.tls?.ca_cert ?? ca };
    t.done();
  }
  if (c.has('s3_signing')) {
    kinds++;
    const a = c.sub('s3_signing');
    if (!a.has('environment_credentials')) fail(a.key, 'only environment_credentials are supported (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION)');
    a.sub('environment_credentials').done();
    for (const k of ['metadata_credentials', 'web_identity_credentials', 'profile_credentials', 'assume_role_credentials', 'ecr_authorization_token'])
      if (a.has(k)) fail(`${a.key}.${k}`, 'this AWS credential source is not supported');
    out.credentials.s3_signing = { environment_credentials: true, service: a.str('service') ?? 's3' };
    a.done();
  }
  for (const other of ['gcp_metadata', 'azure_managed_identity', 'oci', 'plugin']) {
    if (c.has(other)) fail(`${c.key}.${other}`, 'this credential type is not supported');
  }
  if (kinds > 1) fail(c.key, 'a service may use only one kind of credentials');
  c.done();
  s.done();
  return out;
}

function services(v: unknown): Record<string, ServiceConfig> {
  const out: Record<string, ServiceConfig> = {};
  if (v === undefined || v === null) return out;
  // OPA accepts a map (name -> service) or a list of services with a `name` each.
  if (Array.isArray(v)) {
    v.forEach((e, i) => {
      const s = Section.of(`services[${i}]`, e);
      const name = s.reqStr('name');
      if (out[name]) fail(`services[${i}].name`, `duplicate service name "${name}"`);
      out[name] = service(name, s);
    });
    return out;
  }
  if (!isObj(v)) fail('services', 'expected an object or a list');
  for (const [name, e] of Object.entries(v)) {
    const s = Section.of(`services.${name}`, e);
    s.str('name');
    out[name] = service(name, s);
  }
  return out;
}

const KEY_ALGS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512']);

function keys(v: unknown): Record<string, KeyEntry> {
  const out: Record<string, KeyEntry> = {};
  const top = Section.of('keys', v);
  for (const name of Object.keys(top.obj)) {
    const s = top.sub(name);
    const algorithm = s.str('algorithm') ?? 'RS256';
    if (!KEY_ALGS.has(algorithm)) fail(`keys.${name}.algorithm`, `unsupported algorithm "${algorithm}"`);
    const e: KeyEntry = { algorithm, key: s.str('key'), private_key: s.str('private_key'), scope: s.str('scope') };
    if (e.key === undefined && e.private_key === undefined) fail(`keys.${name}`, 'one of key or private_key is required');
    s.done();
    out[name] = e;
  }
  return out;
}

function bundles(v: unknown, svcs: Record<string, ServiceConfig>, ks: Record<string, KeyEntry>): Record<string, BundleSourceConfig> {
  const out: Record<string, BundleSourceConfig> = {};
  const top = Section.of('bundles', v);
  for (const name of Object.keys(top.obj)) {
    const s = top.sub(name);
    const resource = s.str('resource') ?? `bundles/${name}`;
    const isFile = resource.startsWith('file://');
    const b: BundleSourceConfig = {
      name,
      service: isFile ? s.str('service') : checkService(`bundles.${name}.service`, s.str('service'), svcs),
      resource,
      polling: polling(s.sub('polling')),
      persist: s.bool('persist', false),
      size_limit_bytes: s.int('size_limit_bytes'),
      trigger: s.trigger('trigger'),
    };
    if (!isFile && b.service === undefined) fail(`bundles.${name}.service`, 'no service configured for the bundle');
    if (s.has('signing')) {
      const g = s.sub('signing');
      b.signing = { keyid: g.str('keyid'), scope: g.str('scope'), exclude_files: g.strList('exclude_files') };
      if (b.signing.keyid !== undefined && !ks[b.signing.keyid]) fail(`bundles.${name}.signing.keyid`, `key "${b.signing.keyid}" not found in keys`);
      g.done();
    }
    s.done();
    out[name] = b;
  }
  return out;
}

function decisionLogs(v: unknown, svcs: Record<string, ServiceConfig>): DecisionLogsConfig | undefined {
  if (v === undefined || v === null) return undefined;
  const s = Section.of('decision_logs', v);
  const r = s.sub('reporting');
  const min = r.int('min_delay_seconds') ?? 300;
  const max = r.int('max_delay_seconds') ?? 600;
  if (min > max) fail('decision_logs.reporting', 'minimum polling interval must be less than or equal to the maximum');
  const bufferType = r.str('buffer_type') ?? 'size';
  if (bufferType !== 'size') fail('decision_logs.reporting.buffer_type', `buffer type "${bufferType}" is not supported (want "size")`);
  const out: DecisionLogsConfig = {
    service: s.has('service') ? checkService('decision_logs.service', s.str('service'), svcs) : undefined,
    resource: s.str('resource') ?? '/logs',
    partition_name: s.str('partition_name'),
    console: s.bool('console', false),
    reporting: {
      min_delay_seconds: min,
      max_delay_seconds: max,
      upload_size_limit_bytes: r.int('upload_size_limit_bytes') ?? 32768,
      buffer_size_limit_bytes: r.int('buffer_size_limit_bytes'),
      max_decisions_per_second: ((): number | undefined => {
        const x = r.raw('max_decisions_per_second');
        if (x === undefined) return undefined;
        if (typeof x !== 'number' || !(x > 0)) fail('decision_logs.reporting.max_decisions_per_second', 'expected a positive number');
        return x;
      })(),
      trigger: r.trigger('trigger'),
    },
    mask_decision: s.str('mask_decision') ?? '/system/log/mask',
    drop_decision: s.str('drop_decision') ?? '/system/log/drop',
  };
  r.done();
  // A named service, or the only service when logging is not console-only.
  if (!out.service && !out.console && Object.keys(svcs).length > 0 && !s.has('plugin')) out.service = Object.keys(svcs)[0];
  if (s.has('plugin')) fail('decision_logs.plugin', 'custom decision log plugins are not supported');
  s.raw('request_context');
  s.done();
  if (!out.service && !out.console) fail('decision_logs', 'no service and console logging disabled');
  return out;
}

function status(v: unknown, svcs: Record<string, ServiceConfig>): StatusConfig | undefined {
  if (v === undefined || v === null) return undefined;
  const s = Section.of('status', v);
  const out: StatusConfig = {
    service: s.has('service') ? checkService('status.service', s.str('service'), svcs) : undefined,
    partition_name: s.str('partition_name'),
    console: s.bool('console', false),
    prometheus: s.bool('prometheus', false),
    trigger: s.trigger('trigger'),
  };
  if (s.has('plugin')) fail('status.plugin', 'custom status plugins are not supported');
  s.raw('prometheus_config');
  s.done();
  if (!out.service && !out.console && Object.keys(svcs).length > 0) out.service = Object.keys(svcs)[0];
  return out;
}

/** The server section; returns server.workers (a count, or 'auto' for one per core). */
function server(v: unknown): number | 'auto' | undefined {
  const s = Section.of('server', v);
  let workers: number | 'auto' | undefined;
  const w = s.raw('workers');
  if (w === 'auto') workers = 'auto';
  else if (w !== undefined) {
    if (typeof w !== 'number' || !Number.isInteger(w) || w < 1 || w > 256) fail('server.workers', 'must be a whole number from 1 to 256, or "auto" (one per core)');
    workers = w;
  }
  const enc = s.sub('encoding');
  const gz = enc.sub('gzip');
  const min = gz.int('min_length');
  if (min === 0) fail('server.encoding.gzip.min_length', 'must be greater than 0');
  const level = gz.int('compression_level');
  if (level !== undefined && level > 9) fail('server.encoding.gzip.compression_level', 'must be between 0 and 9');
  gz.done();
  enc.done();
  const dec = s.sub('decoding');
  dec.int('max_length');
  const dgz = dec.sub('gzip');
  dgz.int('max_length');
  dgz.done();
  dec.done();
  s.raw('metrics');
  s.bool('ui', true); // the web console under /ui (read by the server from the raw document)
  s.done();
  return workers;
}

/** Regolith's own `builtins: {modules: [...]}`: JavaScript modules of custom built-ins (src/runtime/custom-builtins.ts). */
function builtins(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  const s = Section.of('builtins', v);
  const modules = s.strList('modules') ?? [];
  s.done();
  return modules;
}

/** Validates the raw document; throws ConfigError naming the first bad key. */
export function validateConfig(raw: Record<string, unknown>): Config {
  const top = Section.of('', raw);
  const svcs = services(top.raw('services'));
  const ks = keys(top.raw('keys'));
  const labels = top.strMap('labels');
  const cfg: Config = {
    services: svcs,
    labels,
    keys: ks,
    bundles: bundles(top.raw('bundles'), svcs, ks),
    decision_logs: decisionLogs(top.raw('decision_logs'), svcs),
    status: status(top.raw('status'), svcs),
    default_decision: top.str('default_decision') ?? '/system/main',
    default_authorization_decision: top.str('default_authorization_decision') ?? '/system/authz/allow',
    persistence_directory: top.str('persistence_directory'),
    adapters: adapters(top.raw('adapters'), svcs, ADAPTER_TYPES),
    plugins: (() => {
      const p = top.raw('plugins');
      if (p !== undefined && !isObj(p)) fail('plugins', 'expected an object');
      // a copy: the validated settings replace the raw sections below, raw stays as written
      return { ...(p ?? {}) } as Record<string, unknown>;
    })(),
    raw,
  };
  cfg.workers = server(top.raw('server'));
  cfg.discovery = discovery(top.raw('discovery'), svcs, ks);
  cfg.builtins = builtins(top.raw('builtins'));
  cfg.distributed_tracing = distributedTracing(top.raw('distributed_tracing'));
  if (top.has('bundle')) fail('bundle', 'the legacy "bundle" section is not supported; use "bundles"');
  // Sections OPA knows that are read from cfg.raw elsewhere (nd_builtin_cache: the server's
  // decision events) or accepted without acting on them.
  top.done(['caching', 'nd_builtin_cache', 'storage']);
  // Registered plugin types (src/plugins/plugin-types.ts) read their own settings.
  for (const [name, raw] of Object.entries(cfg.plugins)) {
    const type = PLUGIN_TYPES[name];
    if (!type) fail(`plugins.${name}`, 'unknown plugin');
    cfg.plugins[name] = type.validate(raw, `plugins.${name}`);
  }
  return cfg;
}
