// A Check's server span when distributed tracing is on, recorded as OPA's gRPC
// instrumentation (otelgrpc's server handler, semantic conventions 1.17) records it: named
// after the full method, its parent the W3C traceparent Envoy sends in the call's metadata,
// `rpc.*` and peer attributes, the gRPC status code at the end. The evaluation runs inside
// it, so its `evaluation` span (and any http.send below) are its children. With tracing off
// the handler runs as it is.

import { isIP } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import { spans } from '../../engine/spans.js';

type Answer<Res> = grpc.sendUnaryData<Res>;

/** Status codes otelgrpc marks as a server span's error (the others are the client's fault). */
const SERVER_ERRORS = new Set([2, 4, 12, 13, 14, 15]); // UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS

/** Runs a unary handler (`fn`, answering through the callback it is given) inside the call's server span. */
export function inServerSpan<Req, Res>(fullMethod: string, call: grpc.ServerUnaryCall<Req, Res>, cb: Answer<Res>, fn: (answer: Answer<Res>) => void): void {
  const sp = spans();
  if (!sp) return fn(cb);
  const name = fullMethod.replace(/^\//, '');
  const slash = name.indexOf('/');
  const attributes = () => ({ 'rpc.system': 'grpc', 'rpc.service': name.slice(0, slash), 'rpc.method': name.slice(slash + 1), ...peer(call.getPeer()) });
  sp.server(name, carrier(call.metadata), attributes, (span) =>
    fn((err, value) => {
      const code = err ? (err.code ?? 2) : 0;
      span.end({ 'rpc.grpc.status_code': code }, err && SERVER_ERRORS.has(code) ? (err.details ?? ('message' in err ? err.message : '')) : undefined);
      cb(err, value);
    }),
  );
}

/** The metadata's text entries (the propagator reads traceparent and tracestate). */
function carrier(md: grpc.Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.getMap())) if (typeof v === 'string') out[k] = v;
  return out;
}

/** net.sock.peer.addr / .port for an IP peer ("10.0.0.7:5312", "[::1]:5312"); nothing for a unix socket. */
function peer(p: string): Record<string, string | number> {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(p);
  if (!m || !isIP(m[1]!)) return {};
  return { 'net.sock.peer.addr': m[1]!, 'net.sock.peer.port': Number(m[2]) };
}
