// Server options, and the resolved settings every route module shares.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { AccessOptions } from './access/gate.js';
import type { ClusterHooks } from './cluster.js';
import type { Registry } from 'prom-client';
import type { RouteFamily } from './route-table.js';
import { newPlainObject, type Value } from '../value/index.js';
import { ndBuiltinCacheValue } from '../engine/index.js';
import { newDecisionId } from '../engine/decision-id.js';
import { buildInfo, regolithVersion } from '../engine/version.js';
import type { DecisionEvent, Engine, LoggedDecision } from '../engine/index.js';
import { spans } from '../engine/spans.js';
import { DEFAULT_LIMITS, type BodyLimits } from './body.js';
import type { GzipSettings } from './respond.js';
import { dataPathToRef } from './params.js';

export interface PluginStatus {
  /** "OK" is healthy; other states ("NOT_READY", "ERROR", ...) are not. */
  state: string;
  message?: string;
}

export type { DecisionEvent, LoggedDecision };

/** What a route reports; ndCache is the map it gave the engine (ServerContext.ndCache()). */
export type DecisionRecord = Omit<LoggedDecision, 'timestamp' | 'nd_builtin_cache'> & {
  ndCache?: Map<string, Map<string, Value>>;
};

export interface VersionInfo {
  version: string;
  build_commit: string;
  build_timestamp: string;
  build_hostname: string;
}

export interface ServerOptions {
  engine: Engine;
  /** The active configuration (as loaded from the config file and --set). */
  config?: Record<string, unknown>;
  logger?: Logger;
  /** Plugin states for /health?plugins and health policies. */
  pluginStatus?: () => Record<string, PluginStatus | undefined>;
  /** The status plugin's current report for GET /v1/status; undefined when it is not enabled. */
  status?: () => Value | undefined;
  /** Bundle, data adapter and discovery bundle statuses (the status document's parts), with or without the status plugin: the console shows them. */
  bundleStatus?: () => { bundles?: Value; adapters?: Value; discovery?: Value };
  /** Set when decision logging is enabled: responses then carry decision_id. */
  decisionLogger?: (event: LoggedDecision) => void | Promise<void>;
  /**
   * The decision logger takes an event's input from `input_text` when it says `input_partial`
   * (plugins/logs/logged-values.ts): a large body may then be read only where the policy
   * looks, as without logging. Other loggers always get the whole input.
   */
  decisionLoggerReadsBody?: boolean;
  decisionIdFactory?: () => string;
  limits?: Partial<BodyLimits>;
  gzip?: Partial<GzipSettings>;
  /** Registry for /metrics; a fresh one per app by default. */
  registry?: Registry;
  /** Also expose Node process metrics on /metrics (default true). */
  processMetrics?: boolean;
  version?: Partial<VersionInfo>;
  /** --authentication / --authorization: who is asking, and the policy that decides. */
  access?: AccessOptions;
  /** --diagnostic-addr: serve only /health and /metrics, outside the access policy. */
  diagnostic?: boolean;
  /** Event adapters (POST /v1/events/<name>), when the configuration has any. */
  events?: EventHandlers;
  /** In a worker process of `--workers`: what the primary answers, and the switch hold. */
  cluster?: ClusterHooks;
  /** Route families beyond the server's own, mounted after them: the web console (src/console), which the runtime wires in. */
  families?: readonly RouteFamily[];
}

/** What the server needs of the event adapters. */
export interface EventHandlers {
  has(name: string): boolean;
  handle(name: string, ev: { body: Buffer; headers: Record<string, string | undefined> }): Promise<{ status: number; body: unknown }>;
}

export interface ServerContext {
  engine: Engine;
  opts: ServerOptions;
  config: Record<string, unknown>;
  limits: BodyLimits;
  gzip: GzipSettings;
  defaultDecision: Value[];
  version: VersionInfo;
  /** A new decision id, or undefined when decision logging is off. */
  decisionId(): string | undefined;
  /**
   * A fresh map for one decision's non-deterministic built-in answers when they are
   * logged (decision logging on and top-level `nd_builtin_cache: true`), else undefined.
   */
  ndCache(): Map<string, Map<string, Value>> | undefined;
  logDecision(event: DecisionRecord): void;
  logger?: Logger;
}

/** Hono env: requests served by @hono/node-server carry the Node request and response. */
export type Env = { Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse } };
export type App = Hono<Env>;

function get(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && v > 0 ? v : undefined;
}


let stampMs = -1;
let stampText = '';
let stampSecond = NaN;
/** The current second's ISO text up to and with the '.' ("2026-11-26T09:41:07."). */
let stampPrefix = '';

/**
 * Now in RFC 3339 (milliseconds), as Date.toISOString writes it. toISOString costs ~1 µs, as
 * much as the rest of the event's fields: it runs once per second, and each millisecond
 * appends its three digits to that second's text.
 */
function timestamp(): string {
  const now = Date.now();
  if (now === stampMs) return stampText;
  const ms = now % 1000;
  const second = now - ms;
  if (second !== stampSecond) {
    stampSecond = second;
    const iso = new Date(second).toISOString();
    stampPrefix = iso.slice(0, iso.length - 4);
  }
  stampMs = now;
  stampText = stampPrefix + (ms < 10 ? '00' : ms < 100 ? '0' : '') + ms + 'Z';
  return stampText;
}

export function resolveContext(opts: ServerOptions): ServerContext {
  const config = opts.config ?? {};
  const limits: BodyLimits = {
    maxLength: opts.limits?.maxLength ?? positive(get(config, 'server', 'decoding', 'max_length')) ?? DEFAULT_LIMITS.maxLength,
    gzipMaxLength:
      opts.limits?.gzipMaxLength ??
      positive(get(config, 'server', 'decoding', 'gzip', 'max_length')) ??
      DEFAULT_LIMITS.gzipMaxLength,
    maxDepth: opts.limits?.maxDepth ?? DEFAULT_LIMITS.maxDepth,
  };
  const level = get(config, 'server', 'encoding', 'gzip', 'compression_level');
  const gzip: GzipSettings = {
    minLength: opts.gzip?.minLength ?? positive(get(config, 'server', 'encoding', 'gzip', 'min_length')) ?? 1024,
    level: opts.gzip?.level ?? (typeof level === 'number' ? level : 9),
  };
  // default_decision and nd_builtin_cache are read per request: discovery rewrites the
  // configuration object in place and OPA applies both without a restart.
  let ddText: string | undefined;
  let ddRef: Value[] = [];
  const defaultDecision = (): Value[] => {
    const dd = get(config, 'default_decision');
    const text = typeof dd === 'string' ? dd : '/system/main';
    if (text !== ddText) [ddText, ddRef] = [text, dataPathToRef(text)];
    return ddRef;
  };
  const build = buildInfo();
  const version: VersionInfo = {
    version: opts.version?.version ?? regolithVersion(),
    build_commit: opts.version?.build_commit ?? build.commit,
    build_timestamp: opts.version?.build_timestamp ?? build.timestamp,
    build_hostname: opts.version?.build_hostname ?? build.hostname,
  };
  const logger = opts.logger;
  return {
    engine: opts.engine,
    opts,
    config,
    limits,
    gzip,
    get defaultDecision() {
      return defaultDecision();
    },
    version,
    logger,
    decisionId: () => {
      if (!opts.decisionLogger) return undefined;
      const id = (opts.decisionIdFactory ?? newDecisionId)();
      // as OPA's annotateSpan: the request's server span carries the decision id it logs
      spans()?.annotate('opa.decision_id', id);
      return id;
    },
    ndCache: () => (opts.decisionLogger && config['nd_builtin_cache'] === true ? new Map() : undefined),
    logDecision: (r) => {
      const sink = opts.decisionLogger;
      if (!sink || !r.decision_id) return;
      try {
        // Field by field (one object shape, no rest/spread copies); the input is passed on, never copied.
        const full: LoggedDecision = {
          decision_id: r.decision_id,
          path: r.path,
          query: r.query,
          input: r.input,
          result: r.result,
          result_json: r.result_json,
          input_text: r.input_text,
          input_partial: r.input_partial,
          error: r.error,
          timestamp: timestamp(),
          metrics: r.metrics,
          requested_by: r.requested_by,
          req_id: r.req_id,
          trace_id: undefined,
          span_id: undefined,
        };
        // the traced request's ids (OPA's trace_id/span_id); with tracing off, one undefined check
        const ids = spans()?.ids();
        if (ids) {
          full.trace_id = ids.trace_id;
          full.span_id = ids.span_id;
        }
        // OPA logs the cache whenever it is enabled: {} when no such built-in ran.
        if (r.ndCache) full.nd_builtin_cache = ndBuiltinCacheValue(r.ndCache) ?? newPlainObject();
        const p = sink(full);
        if (p && typeof (p as Promise<void>).catch === 'function') {
          (p as Promise<void>).catch((e: unknown) => logger?.error({ err: e }, 'decision log failed'));
        }
      } catch (e) {
        logger?.error({ err: e }, 'decision log failed');
      }
    },
  };
}
