// http.send: validates the request object as OPA does, answers from the per-query cache
// (one network call per distinct request in a query) or the inter-query cache (cache /
// force_cache, honouring Cache-Control), and otherwise waits on the network through
// ctx.awaitIO so the evaluation is suspended, never the event loop.

import fs from 'node:fs';
import { registerBuiltins, type BuiltinContext, type BuiltinImpl } from '../registry.js';
import { BuiltinError, builtinError, operandError } from '../errors.js';
import {
  RObject,
  isNumber,
  isPlainObject,
  newPlainObject,
  objectEntries,
  toJSONText,
  toRegoString,
  type PlainObject,
  type Value,
} from '../../../value/index.js';
import { parseDuration } from '../time/index.js';
import { send, type SendOptions } from './client.js';

const ALLOWED = new Set([
  'method', 'url', 'body', 'enable_redirect', 'force_json_decode', 'force_yaml_decode', 'headers', 'raw_body',
  'tls_use_system_certs', 'tls_ca_cert', 'tls_ca_cert_file', 'tls_ca_cert_env_variable', 'tls_client_cert',
  'tls_client_cert_file', 'tls_client_cert_env_variable', 'tls_client_key', 'tls_client_key_file',
  'tls_client_key_env_variable', 'tls_insecure_skip_verify', 'tls_server_name', 'timeout', 'cache', 'force_cache',
  'force_cache_duration_seconds', 'raise_error', 'caching_mode', 'max_retry_attempts', 'cache_ignored_headers',
]);

const DEFAULT_TIMEOUT_MS = 5000;

class InternalError extends Error {}

function setText(keys: string[]): string {
  return '{' + keys.sort().map((k) => JSON.stringify(k)).join(', ') + '}';
}

function bool(o: PlainObject, k: string): boolean {
  const v = o[k];
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new InternalError(`invalid value for "${k}" field`);
  return v;
}

function str(o: PlainObject, k: string): string | undefined {
  const v = o[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new InternalError(`invalid value for "${k}" field`);
  return v;
}

function fromSources(o: PlainObject, base: string): string | undefined {
  const inline = str(o, base);
  if (inline) return inline;
  const file = str(o, base + '_file');
  if (file) return fs.readFileSync(file, 'utf8');
  const env = str(o, base + '_env_variable');
  if (env) return process.env[env];
  return undefined;
}

/** OPA's validateHTTPRequestOperand plus the option parsing of createHTTPRequest. */
function parseRequest(req: PlainObject): SendOptions & { cache: boolean; forceCache: boolean; forceSecs: number } {
  const keys = Object.keys(req);
  const bad = keys.filter((k) => !ALLOWED.has(k));
  if (bad.length) throw new InternalError(`invalid request parameters(s): ${setText(bad)}`);
  const missing = ['method', 'url'].filter((k) => !keys.includes(k));
  if (missing.length) throw new InternalError(`missing required request parameters(s): ${setText(missing)}`);
  const method = str(req, 'method')!.toUpperCase();
  const url = str(req, 'url')!;
  const headers: Record<string, string> = {};
  const h = req.headers;
  if (h !== undefined) {
    if (!isPlainObject(h)) throw new InternalError('invalid type for headers key');
    for (const [k, v] of Object.entries(h)) {
      if (typeof v !== 'string') throw new InternalError('invalid type for headers value');
      headers[k] = v;
    }
  }
  let body: string | undefined;
  if (req.raw_body !== undefined) body = str(req, 'raw_body');
  else if (req.body !== undefined) {
    body = toJSONText(req.body);
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  const t = req.timeout;
  if (t !== undefined) {
    if (typeof t === 'string') {
      try {
        timeoutMs = Number(parseDuration(t)) / 1e6;
      } catch (e) {
        throw new InternalError((e as Error).message);
      }
    } else if (isNumber(t)) timeoutMs = Number(t) / 1e6;
    else throw new InternalError('invalid timeout value');
    if (timeoutMs === 0) timeoutMs = 2 ** 31 - 1; // 0 means no timeout in Go
  }
  const forceCache = bool(req, 'force_cache');
  let forceSecs = 0;
  if (forceCache) {
    const s = req.force_cache_duration_seconds;
    if (s === undefined) throw new InternalError("'force_cache' set but 'force_cache_duration_seconds' parameter is missing");
    if (!isNumber(s)) throw new InternalError('invalid value for "force_cache_duration_seconds" field');
    forceSecs = Number(s);
  }
  const retries = req.max_retry_attempts;
  return {
    method,
    url,
    headers,
    body,
    timeoutMs,
    enableRedirect: bool(req, 'enable_redirect'),
    forceJson: bool(req, 'force_json_decode'),
    forceYaml: bool(req, 'force_yaml_decode'),
    caCert: fromSources(req, 'tls_ca_cert'),
    clientCert: fromSources(req, 'tls_client_cert'),
    clientKey: fromSources(req, 'tls_client_key'),
    insecure: bool(req, 'tls_insecure_skip_verify'),
    serverName: str(req, 'tls_server_name'),
    useSystemCerts: req.tls_use_system_certs === undefined ? true : bool(req, 'tls_use_system_certs'),
    maxRetries: isNumber(retries) ? Number(retries) : 0,
    cache: bool(req, 'cache'),
    forceCache,
    forceSecs,
  };
}

interface CacheEntry {
  response: PlainObject;
  expires: number;
}

/** The inter-query cache: responses kept across queries while fresh. */
const interQuery = new Map<string, CacheEntry>();
const INTER_QUERY_MAX = 1000;

/** Clears the inter-query cache (tests, configuration reloads). */
export function clearHttpSendCache(): void {
  interQuery.clear();
}

/** Seconds a response may be reused for, from Cache-Control / Expires; 0 = not storable. */
function freshness(headers: Record<string, string[]>, nowMs: number): number {
  const cc = (headers['cache-control'] ?? []).join(',').toLowerCase();
  const directives = new Map<string, string>();
  for (const part of cc.split(',')) {
    const [k, v] = part.trim().split('=');
    if (k) directives.set(k, (v ?? '').replace(/"/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const maxAge = directives.get('max-age');
  if (maxAge !== undefined) return Math.max(0, Number(maxAge) || 0);
  const expires = headers['expires']?.[0];
  if (expires) {
    const date = headers['date']?.[0] ? Date.parse(headers['date'][0]) : nowMs;
    const e = Date.parse(expires);
    if (!Number.isNaN(e)) return Math.max(0, (e - (Number.isNaN(date) ? nowMs : date)) / 1000);
  }
  return 0;
}

function storeInterQuery(key: string, entry: CacheEntry): void {
  if (interQuery.size >= INTER_QUERY_MAX) interQuery.delete(interQuery.keys().next().value!);
  interQuery.set(key, entry);
}

function errorResult(code: string, message: string): PlainObject {
  const err = newPlainObject();
  err.code = code;
  err.message = message;
  const o = newPlainObject();
  o.status_code = 0;
  o.error = err;
  return o;
}

/** OPA's verifyURLHost: with capabilities' allow_net, a URL's host (port dropped) must be listed. */
function unallowedHost(allowNet: readonly string[] | undefined, url: string): string | undefined {
  if (!allowNet) return undefined;
  let host: string;
  try {
    host = new URL(url).host.split(':')[0]!;
  } catch {
    return undefined;
  }
  return allowNet.includes(host) ? undefined : `unallowed host: ${host}`;
}

function httpSend(args: Value[], ctx: BuiltinContext): Value {
  const arg = args[0]!;
  if (!isPlainObject(arg)) {
    if (arg instanceof RObject) {
      const k = objectEntries(arg).find(([x]) => typeof x !== 'string')![0];
      throw builtinError(`invalid request parameters(s): {${toRegoString(k)}}`);
    }
    throw operandError(1, 'object', arg);
  }
  const raiseError = arg.raise_error === undefined ? true : arg.raise_error !== false;
  const key = toJSONText(arg);
  // One answer per query comes from the registry's nd-cache wrapper; this is the
  // inter-query cache's key.
  const remember = (v: Value): Value => v;
  let opts: ReturnType<typeof parseRequest>;
  try {
    opts = parseRequest(arg);
  } catch (e) {
    if (!(e instanceof InternalError)) throw e;
    if (raiseError) throw builtinError(e.message);
    return remember(errorResult('eval_http_send_internal_error', e.message));
  }
  const denied = unallowedHost(ctx.allowNet, opts.url);
  if (denied) {
    if (raiseError) throw builtinError(denied);
    return errorResult('eval_http_send_internal_error', denied);
  }
  const cacheable = opts.cache || opts.forceCache;
  if (cacheable) {
    const hit = interQuery.get(key);
    if (hit && hit.expires > Date.now()) return remember(hit.response);
    if (hit) interQuery.delete(key);
  }
  const r = ctx.awaitIO('http.send:' + key, async (): Promise<Value> => {
    const res = await send(opts);
    if (res.error) return { error: res.error.message, timeout: res.error.timeout };
    if (cacheable) {
      const secs = opts.forceCache ? opts.forceSecs : freshness(res.headers!, Date.now());
      if (secs > 0) storeInterQuery(key, { response: res.response as PlainObject, expires: Date.now() + secs * 1000 });
    }
    return { response: res.response as PlainObject };
  }) as PlainObject;
  if (typeof r.error === 'string') {
    if (raiseError) {
      // OPA reports client timeouts generically.
      const msg = r.timeout ? `${opts.method.charAt(0)}${opts.method.slice(1).toLowerCase()} ${opts.url}: request timed out` : r.error;
      throw new BuiltinError(msg, 'eval_builtin_error');
    }
    return remember(errorResult('eval_http_send_network_error', r.error));
  }
  return remember(r.response!);
}

const defs: BuiltinImpl[] = [
  {
    name: 'http.send',
    impure: true,
    fn: httpSend,
  },
];

registerBuiltins(defs);
