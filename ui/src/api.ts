// Fetch wrappers for the console API under /ui/api (same origin as the page). The
// playground's request is declared once, beside the server's check of it.

import type { EvalRequest, ExplainMode } from '../../src/console/playground/wire.js';
import type { DiffOp } from '../../src/console/impact/diff.js';
import { authorization, refused } from './auth.js';
import { eventParser } from './sse.js';

export type { DiffOp, EvalRequest, ExplainMode };

export interface Location { file: string; row: number; col: number }

export interface ApiError { code: string; message: string; location?: Location }

/** A non-2xx reply: the body's OPA-shaped error, with its per-location errors. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: ApiError[] = [],
  ) {
    super(message);
  }
}

export interface TraceEvent { op: string; depth: number; message: string; location?: Location }

export interface EvalResponse {
  result?: { expressions: { value: unknown; text: string; location?: Location }[]; bindings?: Record<string, unknown> }[];
  explanation?: TraceEvent[];
  coverage?: Record<string, { covered: number[]; not_covered: number[] }>;
  partial?: { queries: string[]; support: string[] };
  metrics?: Record<string, number>;
  /** print() output, line by line. */
  printed?: string[];
}

export interface DecisionEvent {
  decision_id: string;
  path?: string;
  query?: string;
  input?: unknown;
  result?: unknown;
  timestamp: string;
  bundles?: Record<string, { revision?: string }>;
  labels?: Record<string, string>;
  [k: string]: unknown;
}

export type DecisionCounters =
  | { enabled: false; hint: string }
  | { enabled: true; available: false }
  | { enabled: true; available: true; uploaded: number; buffered: number; dropped: { buffer_size_limit: number; rate_limit: number; event_too_large: number }; error?: { code: string; message: string } };

export type DecisionsResponse = { enabled: true; events: DecisionEvent[] } | { enabled: false; hint: string };

export interface ImpactCandidate { bundle_base64?: string; bundle_url?: string; modules?: Record<string, string> }

export type ChangeKind = 'allow->deny' | 'deny->allow' | 'value';

export interface ImpactChange {
  decision_id: string;
  path: string;
  kind: ChangeKind;
  timestamp?: string;
  input?: unknown;
  before?: unknown;
  after?: unknown;
  /** The live policy answers as the candidate today: the change is not the candidate's. */
  live_agrees?: true;
}

export interface FileDiff { file: string; status: 'added' | 'removed' | 'changed' | 'same'; lines?: { op: ' ' | '-' | '+'; text: string }[] }

export interface ImpactReport {
  total: number;
  replayed: number;
  skipped: Record<string, number>;
  changed: number;
  by_path: { path: string; total: number; changed: number; allow_to_deny: number; deny_to_allow: number; value_changed: number }[];
  examples: {
    decision_id: string;
    path: string;
    kind: ChangeKind;
    input: unknown;
    before: unknown;
    after: unknown;
    diff: DiffOp[];
    rules: string[];
    live_agrees?: true;
  }[];
  /** Every changed decision (up to the server's limit). */
  changes?: ImpactChange[];
  changes_truncated?: boolean;
  /** How many changes the live policy answers as the candidate does today (data or policies changed since). */
  changed_since?: number;
  /** Which decisions were replayed. */
  decisions?: { source: 'recent' | 'upload'; count: number; from?: string; to?: string };
  /** The candidate against the live policy, file by file. */
  policy_diff?: FileDiff[];
}

/** GET /ui/api/replay: the server's modules (bundle-relative names), base data and bundle revisions. */
export interface ReplayResponse {
  modules: Record<string, string>;
  data: unknown;
  bundles: Record<string, { revision?: string }>;
  /** The Rego version the server parses its policies with. */
  rego_version?: 'v0' | 'v1';
  /** When the server's policies or data (outside data.system) last changed, if they did since the console started. */
  changed_at?: string;
}

export interface StatusResponse {
  bundles?: Record<string, Record<string, unknown>>;
  /** Bundles the command line loaded (-b): their manifests' revision and roots. */
  local_bundles?: Record<string, { revision?: string; roots?: string[] }>;
  plugins?: Record<string, { state: string; message?: string }>;
  decisions?: { per_path?: Record<string, number> };
  latency?: { p50?: number | null; p90?: number | null; p99?: number | null };
  memory?: Record<string, number>;
  uptime_s?: number;
  version?: { version: string; build_commit?: string; build_timestamp?: string; build_hostname?: string };
  labels?: Record<string, string>;
  /** The active configuration, redacted. */
  config?: Record<string, unknown>;
  bundle_errors?: { time: string; kind: string; name: string; code: string; message: string }[];
  history?: {
    interval_ms: number;
    samples: { t: number; decisions_per_s: number; latency: { p50: number | null; p90: number | null; p99: number | null }; rss: number; heap_used: number }[];
  };
  [k: string]: unknown;
}

/** The OPA-shaped error of a non-2xx reply. */
async function failure(res: Response): Promise<RequestError> {
  const text = await res.text().catch(() => '');
  let e: { code?: string; message?: string; errors?: ApiError[] } = {};
  try {
    e = (text ? JSON.parse(text) : {}) as typeof e;
  } catch {
    // not JSON: the text itself is the message
  }
  return new RequestError(res.status, e.code ?? `http_${res.status}`, e.message ?? (text || res.statusText), e.errors ?? []);
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorization() };
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(path, init);
  if (!res.ok) {
    const e = await failure(res);
    // the server's authorization refused this tab: the console asks for a token
    if (res.status === 401) refused(e.message);
    throw e;
  }
  const text = await res.text();
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    return undefined as T;
  }
}

/** Whether `token` opens the console's API: undefined when it does, the refusal when not (no sign-in prompt). */
export async function tryToken(token: string): Promise<RequestError | undefined> {
  const res = await fetch('/ui/api/session', { headers: { accept: 'application/json', ...authorization(token) } });
  if (res.ok) {
    await res.arrayBuffer();
    return undefined;
  }
  return failure(res);
}

export const api = {
  eval: (req: EvalRequest) => call<EvalResponse>('POST', '/ui/api/eval', req),
  fmt: (text: string, file?: string, regoVersion?: 'v0' | 'v1') => call<{ text: string }>('POST', '/ui/api/fmt', { text, file, ...(regoVersion === 'v0' ? { rego_version: 'v0' } : {}) }),
  decisions: (limit = 200) => call<DecisionsResponse>('GET', `/ui/api/decisions?limit=${limit}`),
  impact: (candidate: ImpactCandidate, decisionsNdjson?: string) =>
    call<ImpactReport>('POST', '/ui/api/impact', { candidate, ...(decisionsNdjson !== undefined ? { decisions_ndjson: decisionsNdjson } : {}) }),
  status: () => call<StatusResponse>('GET', '/ui/api/status'),
  /** What replaying a decision needs: the server's modules, data and bundle revisions. */
  replay: () => call<ReplayResponse>('GET', '/ui/api/replay'),
  /** The decision log's upload and drop counters. */
  decisionCounters: () => call<DecisionCounters>('GET', '/ui/api/decisions/counters'),
  /** Whether this tab may use the API (a 401 asks for a token), and how the server authenticates. */
  session: () => call<{ authentication: string }>('GET', '/ui/api/session'),
};

/** Milliseconds before reconnecting a stream that ended or failed (EventSource's default is about 3 s). */
const RECONNECT_MS = 2000;

export interface DecisionStream { close(): void }

export interface StreamHandlers {
  decision(ev: DecisionEvent): void;
  /** Decision logging is off: the stream ends for good. */
  disabled(hint: string): void;
  open(): void;
  /** The stream broke; it reconnects by itself. */
  lost(): void;
}

/** The decision stream, read with fetch so that it carries the tab's token; reconnects until closed. */
export function decisionStream(on: StreamHandlers): DecisionStream {
  let closed = false;
  let ac: AbortController | undefined;
  let timer: number | undefined;
  const close = () => {
    closed = true;
    ac?.abort();
    if (timer !== undefined) clearTimeout(timer);
  };
  const connect = async () => {
    ac = new AbortController();
    try {
      const res = await fetch('/ui/api/decisions/stream', { headers: { accept: 'text/event-stream', ...authorization() }, signal: ac.signal, cache: 'no-store' });
      if (!res.ok || !res.body) {
        const e = await failure(res);
        if (res.status === 401) {
          close();
          return refused(e.message);
        }
        throw e;
      }
      on.open();
      const feed = eventParser(({ event, data }) => {
        if (event === 'decision') on.decision(JSON.parse(data) as DecisionEvent);
        else if (event === 'disabled') {
          close();
          on.disabled((JSON.parse(data) as { hint?: string }).hint ?? 'decision logging is off');
        }
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done || closed) break;
        feed(value);
      }
    } catch {
      // a broken connection: reconnect below
    }
    if (closed) return;
    on.lost();
    timer = window.setTimeout(() => void connect(), RECONNECT_MS);
  };
  void connect();
  return { close };
}
