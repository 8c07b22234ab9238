// The `adapters:` section: the keys every adapter has (type, service, root, polling,
// persist, trigger, retry, and for event adapters the rule, authentication and the data
// adapters to refresh) read here once; the rest is the adapter type's own, read by it.

import { checkService, fail, polling, Section } from '../config/section.js';
import type { PollingConfig, ServiceConfig, Trigger } from '../config/types.js';
import { DEFAULT_RETRY, type RetryPolicy } from './http.js';
import type { SignatureConfig } from './secret.js';
import type { AdapterType } from './types.js';

export interface AdapterConfig {
  name: string;
  type: string;
  kind: 'data' | 'event';
  service?: string;
  /** Data adapters: the data path their document is served at. */
  root: string[];
  polling: PollingConfig;
  persist: boolean;
  trigger: Trigger;
  retry: RetryPolicy;
  /** Event adapters: the rule deciding each event (a path like decision paths: a/b/c). */
  rule?: string;
  /** Event adapters: the shared secret a sender presents, and the header it comes in. */
  token?: string;
  token_path?: string;
  token_header: string;
  /** Event adapters: deliveries signed with the secret (an HMAC of the body) are accepted too. */
  signature?: SignatureConfig;
  /** Event adapters: the secret may come as the last path segment (POST /v1/events/<name>/<token>). */
  token_in_path: boolean;
  /** Event adapters: data adapters that read what an event concerns before it is decided, and read again after. */
  refresh: string[];
  /** Event adapters: how long the reads before a decision may take (the event is decided on the data as it is after). */
  decide_within_seconds: number;
  /** Data adapters with watch support: where the API is to send change notifications. */
  push?: PushConfig;
  /** The type's own settings, as its settings() returned them. */
  settings: unknown;
}

export interface PushConfig {
  /** The URL of this server's POST /v1/events/<name>, as the API reaches it. */
  address: string;
  token?: string;
  token_path?: string;
  /** The header the API echoes the token in. */
  token_header: string;
  ttl_seconds: number;
}

function pushConfig(s: Section, name: string, t: AdapterType): PushConfig | undefined {
  if (!s.has('push')) return undefined;
  if (!t.data || t.pushTokenHeader === undefined) fail(`adapters.${name}.push`, 'this adapter type has no push notifications');
  const p = s.sub('push');
  const address = p.reqStr('address');
  try {
    const u = new URL(address);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
  } catch {
    fail(`adapters.${name}.push.address`, `"${address}" is not an http(s) URL`);
  }
  const out: PushConfig = { address, token: p.str('token'), token_path: p.str('token_path'), token_header: p.str('token_header') ?? t.pushTokenHeader!, ttl_seconds: p.int('ttl_seconds') ?? 3600 };
  if (out.token === undefined && out.token_path === undefined) fail(`adapters.${name}.push`, 'push needs token or token_path: notifications are accepted only with it');
  p.done();
  return out;
}

function signatureConfig(s: Section, name: string): SignatureConfig | undefined {
  if (!s.has('signature')) return undefined;
  const g = s.sub('signature');
  const algorithm = g.str('algorithm') ?? 'sha256';
  if (!['sha1', 'sha256', 'sha512'].includes(algorithm)) fail(`adapters.${name}.signature.algorithm`, `"${algorithm}" is not one of sha1, sha256, sha512`);
  const encoding = g.str('encoding') ?? 'hex';
  if (encoding !== 'hex' && encoding !== 'base64') fail(`adapters.${name}.signature.encoding`, `"${encoding}" is not one of hex, base64`);
  const out: SignatureConfig = {
    header: g.reqStr('header'),
    algorithm: algorithm as SignatureConfig['algorithm'],
    encoding,
    prefix: g.str('prefix') ?? '',
    timestamp_header: g.str('timestamp_header'),
    replay_window_seconds: g.int('replay_window_seconds') ?? 300,
  };
  g.done();
  return out;
}

/** Validates `adapters:` against the known types; errors name the dotted key. */
export function adapters(v: unknown, svcs: Record<string, ServiceConfig>, types: Record<string, AdapterType>): Record<string, AdapterConfig> {
  const out: Record<string, AdapterConfig> = {};
  const top = Section.of('adapters', v);
  for (const name of Object.keys(top.obj)) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) fail(`adapters.${name}`, 'adapter names are letters, digits, "_" and "-"');
    const s = top.sub(name);
    const type = s.reqStr('type');
    const t = types[type];
    if (!t) fail(`adapters.${name}.type`, `unknown adapter type "${type}" (known: ${Object.keys(types).sort().join(', ')})`);
    const rootText = s.str('root') ?? t.defaultRoot ?? name;
    const root = rootText.split(/[./]/).filter((x) => x !== '');
    if (t.kind === 'data' && !root.length) fail(`adapters.${name}.root`, 'an adapter cannot own the whole data document');
    if (root[0] === 'system') fail(`adapters.${name}.root`, 'data.system is reserved');
    const r = s.sub('retry');
    const retry: RetryPolicy = {
      maxRetries: r.int('max_retries') ?? DEFAULT_RETRY.maxRetries,
      maxDelaySeconds: r.int('max_delay_seconds') ?? DEFAULT_RETRY.maxDelaySeconds,
      maxResponseBytes: r.int('max_response_bytes') ?? DEFAULT_RETRY.maxResponseBytes,
    };
    r.done();
    const c: AdapterConfig = {
      name,
      type,
      kind: t.kind,
      service: t.kind === 'data' || s.has('service') ? checkService(`adapters.${name}.service`, s.str('service'), svcs) : undefined,
      root,
      polling: polling(s.sub('polling'), 300, 600),
      persist: s.bool('persist', false),
      trigger: s.trigger('trigger'),
      retry,
      rule: t.kind === 'event' ? s.reqStr('rule').replace(/^data\./, '').replace(/\./g, '/') : undefined,
      token: s.str('token'),
      token_path: s.str('token_path'),
      token_header: s.str('token_header') ?? 'authorization',
      signature: t.kind === 'event' ? signatureConfig(s, name) : undefined,
      token_in_path: t.kind === 'event' ? s.bool('token_in_path', false) : false,
      refresh: s.strList('refresh') ?? [],
      decide_within_seconds: t.kind === 'event' ? (s.int('decide_within_seconds') ?? 5) : 0,
      push: pushConfig(s, name, t),
      settings: undefined,
    };
    if (t.kind === 'data' && c.service === undefined) fail(`adapters.${name}.service`, 'no service configured for the adapter');
    if (t.kind === 'event' && c.token === undefined && c.token_path === undefined) {
      fail(`adapters.${name}`, 'an event adapter needs token or token_path: anyone who can reach the server could send events otherwise');
    }
    c.settings = t.settings(s);
    s.done();
    out[name] = c;
  }
  for (const c of Object.values(out)) {
    for (const x of c.refresh) if (out[x]?.kind !== 'data') fail(`adapters.${c.name}.refresh`, `"${x}" is not a data adapter`);
  }
  return out;
}
