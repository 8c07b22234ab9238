// The seam for distributed tracing (src/runtime/tracing installs it when distributed_tracing
// is configured). The evaluator, http.send and the gRPC servers of integrations (Envoy's
// Check) call through it; with nothing installed each call site costs one undefined check,
// and nothing of OpenTelemetry is loaded.

/** An outgoing HTTP request's client span: headers to send (traceparent), and its end. */
export interface ClientSpan {
  headers: Record<string, string>;
  end(status: number | undefined, error?: string): void;
}

/** An incoming call's server span, ended once with the attributes known when it is answered. */
export interface ServerSpan {
  end(attributes: Record<string, string | number>, error?: string): void;
}

export interface Spans {
  /** Runs fn inside an internal span that ends when fn returns (or its promise settles). */
  inSpan<T>(name: string, attributes: Record<string, string>, fn: () => T): T;
  /** Starts a client span for one HTTP round trip, a child of the active span; undefined outside a traced call. */
  client(method: string, url: URL): ClientSpan | undefined;
  /**
   * Runs fn inside a server span for an incoming call, its parent read from the carrier's
   * W3C traceparent (HTTP headers or gRPC metadata, keys in lower case); `attributes` is
   * asked only when the span is sampled.
   */
  server<T>(name: string, carrier: Record<string, string | string[] | undefined>, attributes: () => Record<string, string | number>, fn: (span: ServerSpan) => T): T;
  /**
   * The W3C trace and span ids (hex) of the span the code runs in — recording, or the
   * unsampled span of a caller's context — for decision logs; undefined outside any.
   */
  ids(): { trace_id: string; span_id: string } | undefined;
  /** Sets an attribute on the recording span the code runs in (OPA's `opa.decision_id`); nothing outside one. */
  annotate(key: string, value: string): void;
}

let installed: Spans | undefined;

/** The installed spans, or undefined when tracing is off. */
export const spans = (): Spans | undefined => installed;

/** Installs (or, with undefined, removes) the spans implementation for the process. */
export function setSpans(s: Spans | undefined): void {
  installed = s;
}
