// Everything of OpenTelemetry lives here, loaded only when distributed_tracing has a type
// (index.ts imports this module lazily). It builds OPA's pipeline — an OTLP exporter (gRPC
// or HTTP), a batch span processor, a parent-based ratio sampler, the resource attributes —
// and installs the two seams: a server span per HTTP request (its incoming W3C traceparent
// followed) and, through the engine, the evaluation span and http.send's client spans.
//
// No OpenTelemetry global is set: the active context is kept in this module's own
// AsyncLocalStorage and passed explicitly, so an embedding application's OTel setup is left
// alone.

import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, isSpanContextValid, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../../plugins/tracing/config.js';
import { setSpans, type ServerSpan, type Spans } from '../../engine/spans.js';
import { setRequestSpans, type RequestSpans } from '../../server/request-spans.js';

export interface Tracing {
  /** Flushes the spans not yet exported and removes the seams; a failed flush goes to onError, never rejects. */
  shutdown(): Promise<void>;
}

/** What tracing reports rather than throws: the receiver refusing or unreachable at shutdown. */
export type OnTracingError = (err: Error) => void;

/**
 * An exporter that also tells `report` of every export that failed (after the exporter's own
 * retries): OPA logs each as a warning ("Distributed tracing: ..."), where OpenTelemetry JS's
 * default would only reach its diagnostic logger, which nothing reads, so an unreachable
 * receiver went unnoticed.
 */
function reportingFailures(exporter: SpanExporter, report: OnTracingError): SpanExporter {
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) report(result.error ?? new Error('span export failed'));
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/** Reads HTTP headers and gRPC metadata alike (both keyed in lower case). */
const getter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (h) => Object.keys(h),
  get: (h, k) => h[k],
};
const setter: TextMapSetter<Record<string, string>> = { set: (h, k, v) => void (h[k] = v) };

export async function startTracing(cfg: TracingConfig, onError: OnTracingError, onExportFailed: OnTracingError): Promise<Tracing> {
  const exporter = reportingFailures(await makeExporter(cfg), onExportFailed);
  const r = cfg.resource;
  const attrs: Record<string, string> = { 'service.name': cfg.service_name };
  if (r.service_version) attrs['service.version'] = r.service_version;
  if (r.service_instance_id) attrs['service.instance.id'] = r.service_instance_id;
  if (r.service_namespace) attrs['service.namespace'] = r.service_namespace;
  if (r.deployment_environment) attrs['deployment.environment'] = r.deployment_environment;
  const b = cfg.batch_span_processor_options;
  const provider = new TracerProvider({
    resource: resourceFromAttributes(attrs),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(cfg.sample_percentage / 100) }),
    spanProcessors: [
      // OPA's `blocking` has no counterpart here: a full queue drops spans
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: b.batch_timeout_ms,
        exportTimeoutMillis: b.export_timeout_ms,
        maxExportBatchSize: b.max_export_batch_size,
        maxQueueSize: b.max_queue_size,
      }),
    ],
  });
  const tracer = provider.getTracer('regolith');
  const propagator = new W3CTraceContextPropagator();
  // The context of the traced call the code runs in. A call that is not sampled and brought
  // no caller's context runs outside any (as without tracing): nothing below it is recorded
  // (children follow their parent's decision), and with no context kept for it no
  // AsyncLocalStorage is entered, whose hooks would then cost every promise of the process.
  const als = new AsyncLocalStorage<Context>();
  const active = (): Context | undefined => als.getStore();
  const recording = (ctx: Context): boolean => trace.getSpan(ctx)?.isRecording() ?? false;
  /** At 0 % only a caller's trace is ever recorded: a call without one is not even offered to the sampler. */
  const untraced = (parent: Context): boolean => cfg.sample_percentage === 0 && !trace.getSpanContext(parent);

  const requests: RequestSpans = (listener, label) => (inc: IncomingMessage, res: ServerResponse) => {
    const parent = propagator.extract(ROOT_CONTEXT, inc.headers, getter);
    if (untraced(parent)) return listener(inc, res);
    const method = inc.method ?? 'GET';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      span.setAttributes(serverAttributes(inc));
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        const route = label(inc);
        // OPA names server spans "{method} {operation}" (v1/features/tracing)
        if (route) span.updateName(`${method} ${route}`);
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
      res.once('finish', end);
      res.once('close', end);
    } else if (!trace.getSpanContext(parent)) {
      return listener(inc, res);
    }
    const ctx = trace.setSpan(parent, span);
    // the body's 'data'/'end' events fire from the socket, outside this request's context:
    // emit them inside it so that what reads the body (and evaluates) sees the span
    const emit = inc.emit;
    inc.emit = function (this: IncomingMessage, ...args: Parameters<typeof emit>) {
      return als.run(ctx, () => emit.apply(this, args));
    } as typeof emit;
    als.run(ctx, () => listener(inc, res));
  };

  const spans: Spans = {
    inSpan(name, attributes, fn) {
      const ctx = active();
      if (!ctx || !recording(ctx)) return fn();
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, ctx);
      let out: ReturnType<typeof fn>;
      try {
        out = als.run(trace.setSpan(ctx, span), fn);
      } catch (e) {
        failed(span, e);
        throw e;
      }
      if (out instanceof Promise) {
        return out.then(
          (v: unknown) => (span.end(), v),
          (e: unknown) => {
            failed(span, e);
            throw e;
          },
        ) as typeof out;
      }
      span.end();
      return out;
    },
    client(method, url) {
      const ctx = active();
      if (!ctx) return undefined;
      const headers: Record<string, string> = {};
      if (!recording(ctx)) {
        // not sampled: the caller's context goes on as it came (unsampled), no span made
        propagator.inject(ctx, headers, setter);
        return { headers, end: () => {} };
      }
      const span = tracer.startSpan(`${method} ${url.pathname}`, { kind: SpanKind.CLIENT, attributes: clientAttributes(method, url) }, ctx);
      propagator.inject(trace.setSpan(ctx, span), headers, setter);
      return {
        headers,
        end(status, error) {
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
          if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          else if (status !== undefined && status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    server(name, carrier, attributes, fn) {
      const parent = propagator.extract(ROOT_CONTEXT, carrier, getter);
      if (untraced(parent)) return fn(UNTRACED);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
      if (span.isRecording()) span.setAttributes(attributes());
      else if (!trace.getSpanContext(parent)) return fn(UNTRACED);
      let ended = false;
      const handle: ServerSpan = {
        end(more, error) {
          if (ended) return;
          ended = true;
          span.setAttributes(more);
          if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          span.end();
        },
      };
      return als.run(trace.setSpan(parent, span), () => fn(handle));
    },
    ids() {
      // as OPA: the ids of any valid span context, sampled or not (a call with neither a
      // sampled span nor a caller's context has none here: it runs outside any)
      const ctx = active();
      const sc = ctx && trace.getSpanContext(ctx);
      return sc && isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
    },
    annotate(key, value) {
      const ctx = active();
      const span = ctx && trace.getSpan(ctx);
      if (span?.isRecording()) span.setAttribute(key, value);
    },
  };

  setRequestSpans(requests);
  setSpans(spans);
  return {
    async shutdown() {
      setRequestSpans(undefined);
      setSpans(undefined);
      // as OPA: a flush that fails is logged, and the server still stops cleanly
      await provider.shutdown().catch((e: unknown) => onError(e instanceof Error ? e : new Error(String(e))));
    },
  };
}

/** The server span of a call nothing of which is traced. */
const UNTRACED: ServerSpan = { end: () => {} };

function failed(span: Span, e: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
  span.end();
}

/** OpenTelemetry's HTTP server attributes, as otelhttp records them for OPA. */
function serverAttributes(inc: IncomingMessage): Record<string, string | number> {
  const url = inc.url ?? '/';
  const q = url.indexOf('?');
  const a: Record<string, string | number> = {
    'http.request.method': inc.method ?? 'GET',
    'url.scheme': 'encrypted' in inc.socket ? 'https' : 'http',
    'url.path': q < 0 ? url : url.slice(0, q),
    'network.protocol.version': inc.httpVersion,
  };
  const host = inc.headers.host;
  if (host) {
    const i = host.lastIndexOf(':');
    a['server.address'] = i > 0 && !host.endsWith(']') ? host.slice(0, i) : host;
    if (i > 0 && !host.endsWith(']')) a['server.port'] = Number(host.slice(i + 1));
  }
  if (inc.socket.remoteAddress) a['network.peer.address'] = inc.socket.remoteAddress;
  if (inc.socket.remotePort !== undefined) a['network.peer.port'] = inc.socket.remotePort;
  const ua = inc.headers['user-agent'];
  if (ua) a['user_agent.original'] = ua;
  return a;
}

function clientAttributes(method: string, url: URL): Record<string, string | number> {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const full = new URL(url);
  full.username = '';
  full.password = '';
  return { 'http.request.method': method, 'url.full': full.toString(), 'server.address': url.hostname, 'server.port': port };
}

async function makeExporter(cfg: TracingConfig): Promise<SpanExporter> {
  const secure = cfg.encryption !== 'off';
  const ca = cfg.tls_ca_cert_file ? readFileSync(cfg.tls_ca_cert_file) : undefined;
  const cert = cfg.tls_cert_file ? readFileSync(cfg.tls_cert_file) : undefined;
  const key = cfg.tls_private_key_file ? readFileSync(cfg.tls_private_key_file) : undefined;
  const mtls = cfg.encryption === 'mtls';
  // the exporter retries a failed export within its own timeout (the SDK's default, 10 s):
  // never longer than the batch processor waits for it, so that nothing outlives a flush
  const timeoutMillis = Math.min(10_000, cfg.batch_span_processor_options.export_timeout_ms);
  if (cfg.type === 'http') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({
      timeoutMillis,
      url: `${secure ? 'https' : 'http'}://${cfg.address}/v1/traces`,
      httpAgentOptions: secure ? { ca, cert: mtls ? cert : undefined, key: mtls ? key : undefined, rejectUnauthorized: !cfg.allow_insecure_tls } : {},
    });
  }
  const [{ OTLPTraceExporter }, grpc] = await Promise.all([import('@opentelemetry/exporter-trace-otlp-grpc'), import('@grpc/grpc-js')]);
  const credentials = secure
    ? grpc.credentials.createSsl(ca ?? null, mtls ? (key ?? null) : null, mtls ? (cert ?? null) : null, { rejectUnauthorized: !cfg.allow_insecure_tls })
    : grpc.credentials.createInsecure();
  return new OTLPTraceExporter({ timeoutMillis, url: `${secure ? 'https' : 'http'}://${cfg.address}`, credentials });
}
