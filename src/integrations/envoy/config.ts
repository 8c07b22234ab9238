// plugins.envoy_ext_authz_grpc, read as OPA's Envoy plugin reads it (same keys, same
// defaults): addr, path (or the deprecated query, when it names a document), dry-run,
// enable-reflection, skip-request-body-parse, proto-descriptor, the gRPC message limits and
// the performance metrics. Keys nobody reads fail as everywhere in Regolith's configuration.

import { existsSync } from 'node:fs';
import { Section, fail } from '../../plugins/config/section.js';

export const PLUGIN_NAME = 'envoy_ext_authz_grpc';

export interface EnvoySettings {
  /** As configured: "host:port", ":port", "grpc://host:port" or "unix:///path". */
  addr: string;
  /** The document evaluated, as configured ("envoy/authz/allow"), and as a ref under data. */
  path: string;
  ref: (string | number)[];
  dryRun: boolean;
  enableReflection: boolean;
  skipRequestBodyParse: boolean;
  /** A FileDescriptorSet file for parsing gRPC request bodies. */
  protoDescriptor?: string;
  maxRecvMsgSize: number;
  maxSendMsgSize: number;
  enablePerformanceMetrics: boolean;
  durationBuckets: number[];
}

// OPA's defaults (those of grpc-go for the message sizes).
const DEFAULT_ADDR = ':9191';
const DEFAULT_PATH = 'envoy/authz/allow';
const DEFAULT_MAX_RECV = 4 * 1024 * 1024;
const DEFAULT_MAX_SEND = 2 ** 31 - 1;
const DEFAULT_BUCKETS = [1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 3e-3, 5e-3, 0.1, 1];

/** OPA's stringPathToRef: "/"-separated, empty segments skipped, integer segments as numbers. */
export function pathRef(path: string): (string | number)[] {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (/^-?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s));
}

/** The deprecated `query` is accepted when it is a plain reference into data: data.a.b.c. */
function queryPath(key: string, query: string): string {
  const m = /^\s*data((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*$/.exec(query);
  if (!m) fail(key, `only a reference to a document under data is supported (such as "data.envoy.authz.allow"); use "path"`);
  return m[1]!.slice(1).split('.').join('/');
}

export function validateEnvoy(raw: unknown, key = `plugins.${PLUGIN_NAME}`): EnvoySettings {
  const s = Section.of(key, raw);
  const addr = s.str('addr') || DEFAULT_ADDR;
  const pathSet = s.str('path');
  const query = s.str('query');
  if (pathSet && query) fail(key, 'specify a value for only the "path" field');
  const path = query ? queryPath(`${key}.query`, query) : pathSet || DEFAULT_PATH;
  const protoDescriptor = s.str('proto-descriptor') || undefined;
  if (protoDescriptor !== undefined && !existsSync(protoDescriptor)) fail(`${key}.proto-descriptor`, `open ${protoDescriptor}: no such file or directory`);
  const recv = s.int('grpc-max-recv-msg-size') ?? DEFAULT_MAX_RECV;
  const send = s.int('grpc-max-send-msg-size') ?? DEFAULT_MAX_SEND;
  const bucketsRaw = s.raw('grpc-request-duration-seconds-buckets');
  let durationBuckets = DEFAULT_BUCKETS;
  if (bucketsRaw !== undefined) {
    if (!Array.isArray(bucketsRaw) || bucketsRaw.some((b) => typeof b !== 'number')) fail(`${key}.grpc-request-duration-seconds-buckets`, 'expected a list of numbers');
    durationBuckets = bucketsRaw as number[];
  }
  const out: EnvoySettings = {
    addr,
    path,
    // frozen: the engine keeps the plan of a frozen ref without building its text per decision
    ref: Object.freeze(pathRef(path)) as (string | number)[],
    dryRun: s.bool('dry-run', false),
    enableReflection: s.bool('enable-reflection', false),
    skipRequestBodyParse: s.bool('skip-request-body-parse', false),
    protoDescriptor,
    maxRecvMsgSize: recv,
    maxSendMsgSize: send,
    enablePerformanceMetrics: s.bool('enable-performance-metrics', false),
    durationBuckets,
  };
  s.done();
  listenTarget(addr, `${key}.addr`);
  return out;
}

/** The address as @grpc/grpc-js binds it: ":9191" on every IPv4 interface, unix sockets as unix:<path>. */
export function listenTarget(addr: string, key = `plugins.${PLUGIN_NAME}.addr`): string {
  const withScheme = addr.includes('://') ? addr : `grpc://${addr}`;
  const scheme = withScheme.slice(0, withScheme.indexOf('://'));
  const rest = withScheme.slice(scheme.length + 3);
  if (scheme === 'unix') {
    if (rest === '') fail(key, 'missing socket path');
    return `unix:${rest}`;
  }
  if (scheme !== 'grpc') fail(key, `invalid url scheme "${scheme}"`);
  const m = /^(.*):(\d+)$/.exec(rest);
  if (!m) fail(key, `address ${rest}: missing port in address`);
  return `${m[1] === '' ? '0.0.0.0' : m[1]}:${m[2]}`;
}
