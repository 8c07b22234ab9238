// Fetch wrappers for the console API under /ui/api (same origin as the page). The
// playground's request is declared once, beside the server's check of it.

import type { EvalRequest, ExplainMode } from '../../src/console/playground/wire.js';

export type { EvalRequest, ExplainMode };

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

export type DecisionsResponse = { enabled: true; events: DecisionEvent[] } | { enabled: false; hint: string };

export interface ImpactCandidate { bundle_base64?: string; bundle_url?: string; modules?: Record<string, string> }

export type ChangeKind = 'allow->deny' | 'deny->allow' | 'value';

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
    diff: { op: string; path: string; old?: unknown; new?: unknown }[];
    rules: string[];
  }[];
}

/** GET /ui/api/replay: the server's modules (bundle-relative names), base data and bundle revisions. */
export interface ReplayResponse {
  modules: Record<string, string>;
  data: unknown;
  bundles: Record<string, { revision?: string }>;
}

export interface StatusResponse {
  bundles?: Record<string, Record<string, unknown>>;
  plugins?: Record<string, { state: string; message?: string }>;
  decisions?: { per_path?: Record<string, number> };
  latency?: { p50?: number | null; p90?: number | null; p99?: number | null };
  memory?: Record<string, number>;
  uptime_s?: number;
  [k: string]: unknown;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const e = (parsed ?? {}) as { code?: string; message?: string; errors?: ApiError[] };
    throw new RequestError(res.status, e.code ?? `http_${res.status}`, e.message ?? (text || res.statusText), e.errors ?? []);
  }
  return parsed as T;
}

export const api = {
  eval: (req: EvalRequest) => call<EvalResponse>('POST', '/ui/api/eval', req),
  fmt: (text: string, file?: string) => call<{ text: string }>('POST', '/ui/api/fmt', { text, file }),
  decisions: (limit = 200) => call<DecisionsResponse>('GET', `/ui/api/decisions?limit=${limit}`),
  impact: (candidate: ImpactCandidate, decisionsNdjson?: string) =>
    call<ImpactReport>('POST', '/ui/api/impact', { candidate, ...(decisionsNdjson !== undefined ? { decisions_ndjson: decisionsNdjson } : {}) }),
  status: () => call<StatusResponse>('GET', '/ui/api/status'),
  /** What replaying a decision needs: the server's modules, data and bundle revisions. */
  replay: () => call<ReplayResponse>('GET', '/ui/api/replay'),
};

/** An EventSource on the decision stream. */
export function decisionStream(onDecision: (ev: DecisionEvent) => void, onDisabled: (hint: string) => void): EventSource {
  const es = new EventSource('/ui/api/decisions/stream');
  es.addEventListener('decision', (m) => onDecision(JSON.parse((m as MessageEvent<string>).data) as DecisionEvent));
  es.addEventListener('disabled', (m) => {
    onDisabled((JSON.parse((m as MessageEvent<string>).data) as { hint?: string }).hint ?? 'decision logging is off');
    es.close();
  });
  return es;
}
