// OTLP receiver stand-ins on loopback, decoding what the exporters send into one span shape:
// - OTLP/HTTP (JSON, as the HTTP exporter sends it) on POST /v1/traces;
// - OTLP/gRPC: a real @grpc/grpc-js server implementing
//   opentelemetry.proto.collector.trace.v1.TraceService/Export, its messages decoded with
//   the .proto below (written from opentelemetry-proto's published field numbers; fields a
//   test does not read are left out and skipped on decoding), optionally over TLS or mTLS.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

export type AttrValue = string | number | boolean;

export interface Span {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttrValue>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
}

export interface Receiver {
  /** host:port for distributed_tracing.address. */
  address: string;
  spans: Span[];
  /** Resource attributes of every export. */
  resources: Record<string, AttrValue>[];
  /** How the exports arrived (content types over HTTP; 'grpc' per gRPC export). */
  exports: string[];
  close(): Promise<void>;
}

interface KV {
  key: string;
  value?: Record<string, unknown>;
}
interface Decoded {
  resourceSpans?: {
    resource?: { attributes?: KV[] };
    scopeSpans?: { spans?: { traceId?: string; spanId?: string; parentSpanId?: string; name?: string; kind?: number | string; attributes?: KV[]; status?: { code?: number | string; message?: string } }[] }[];
  }[];
}

const KINDS: Record<string, number> = { SPAN_KIND_INTERNAL: 1, SPAN_KIND_SERVER: 2, SPAN_KIND_CLIENT: 3 };
const STATUSES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

function attrs(kvs: KV[] | undefined): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const { key, value: v = {} } of kvs ?? []) {
    if (v['stringValue'] !== undefined) out[key] = v['stringValue'] as string;
    else if (v['intValue'] !== undefined) out[key] = Number(v['intValue']);
    else if (v['boolValue'] !== undefined) out[key] = v['boolValue'] as boolean;
    else if (v['doubleValue'] !== undefined) out[key] = v['doubleValue'] as number;
  }
  return out;
}

/** Both encodings carry ids as text here: hex in OTLP/JSON, base64 from protobufjs (`hex` converts). */
function collect(into: Receiver, body: Decoded, hex: (id: string) => string): void {
  for (const rs of body.resourceSpans ?? []) {
    into.resources.push(attrs(rs.resource?.attributes));
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        into.spans.push({
          traceId: hex(s.traceId ?? ''),
          spanId: hex(s.spanId ?? ''),
          parentSpanId: hex(s.parentSpanId ?? ''),
          name: s.name ?? '',
          kind: typeof s.kind === 'string' ? (KINDS[s.kind] ?? 0) : (s.kind ?? 0),
          attributes: attrs(s.attributes),
          status: { code: typeof s.status?.code === 'string' ? (STATUSES[s.status.code] ?? 0) : (s.status?.code ?? 0), message: s.status?.message ?? '' },
        });
      }
    }
  }
}

export async function httpReceiver(): Promise<Receiver> {
  const r: Receiver = { address: '', spans: [], resources: [], exports: [], close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        r.exports.push(req.headers['content-type'] ?? '');
        collect(r, JSON.parse(Buffer.concat(chunks).toString('utf8')) as Decoded, (id) => id.toLowerCase());
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  r.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () =>
    new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return r;
}

const OTLP_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.trace.v1;
service TraceService { rpc Export(ExportTraceServiceRequest) returns (ExportTraceServiceResponse); }
message ExportTraceServiceRequest { repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
`;
const TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.trace.v1;
message ResourceSpans { opentelemetry.proto.resource.v1.Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { opentelemetry.proto.common.v1.InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; SpanKind kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 9; uint32 dropped_attributes_count = 10; Status status = 15;
  enum SpanKind { SPAN_KIND_UNSPECIFIED = 0; SPAN_KIND_INTERNAL = 1; SPAN_KIND_SERVER = 2; SPAN_KIND_CLIENT = 3; SPAN_KIND_PRODUCER = 4; SPAN_KIND_CONSUMER = 5; }
}
message Status { string message = 2; StatusCode code = 3; enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; } }
`;
const COMMON_PROTO = `
syntax = "proto3";
package opentelemetry.proto.common.v1;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
`;
const RESOURCE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.resource.v1;
message Resource { repeated opentelemetry.proto.common.v1.KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
`;

export interface GrpcTLS {
  ca: string;
  cert: string;
  key: string;
  /** mTLS: the client must present a certificate the CA signed. */
  clientCerts?: boolean;
}

export async function grpcReceiver(tls?: GrpcTLS): Promise<Receiver> {
  const root = new protobuf.Root();
  for (const text of [COMMON_PROTO, RESOURCE_PROTO, TRACE_PROTO, OTLP_PROTO]) protobuf.parse(text, root, { keepCase: false });
  root.resolveAll();
  const Req = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  const Res = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
  const r: Receiver = { address: '', spans: [], resources: [], exports: [], close: async () => {} };
  const server = new grpc.Server();
  server.addService(
    {
      Export: {
        path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        requestStream: false,
        responseStream: false,
        requestDeserialize: (b: Buffer) => Req.toObject(Req.decode(b), { longs: String, enums: Number, bytes: String }),
        requestSerialize: (m: object) => Buffer.from(Req.encode(Req.fromObject(m)).finish()),
        responseSerialize: (m: object) => Buffer.from(Res.encode(Res.fromObject(m)).finish()),
        responseDeserialize: (b: Buffer) => Res.toObject(Res.decode(b)),
      },
    },
    {
      Export: (call: grpc.ServerUnaryCall<Decoded, object>, cb: grpc.sendUnaryData<object>) => {
        r.exports.push('grpc');
        collect(r, call.request, (id) => Buffer.from(id, 'base64').toString('hex'));
        cb(null, {});
      },
    },
  );
  const creds = tls
    ? grpc.ServerCredentials.createSsl(Buffer.from(tls.ca), [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }], tls.clientCerts ?? false)
    : grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((ok, fail) => server.bindAsync('127.0.0.1:0', creds, (e, p) => (e ? fail(e) : ok(p))));
  r.address = `127.0.0.1:${port}`;
  r.close = () => new Promise<void>((ok) => server.tryShutdown(() => ok()));
  return r;
}

/** The spans of one trace (ids in lower-case hex). */
export const ofTrace = (r: Receiver, traceId: string): Span[] => r.spans.filter((s) => s.traceId === traceId);
