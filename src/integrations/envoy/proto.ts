// The protobuf messages the plugin speaks, written from Envoy's published API reference
// (envoy.service.auth.v3, envoy.config.core.v3, envoy.type.v3), google.rpc.Status and the
// gRPC health protocol: only the messages and fields a Check carries, with the reference's
// field numbers and types. Each text is one .proto file under its reference file name, so
// that reflection answers with the file a client would expect. google.protobuf's
// well-known types come from protobufjs itself.

import protobuf from 'protobufjs';

const FILES: Record<string, string> = {
  'envoy/config/core/v3/address.proto': `
syntax = "proto3";
package envoy.config.core.v3;
message Pipe { string path = 1; uint32 mode = 2; }
message EnvoyInternalAddress { string server_listener_name = 1; string endpoint_id = 2; }
message SocketAddress {
  enum Protocol { TCP = 0; UDP = 1; }
  Protocol protocol = 1;
  string address = 2;
  oneof port_specifier { uint32 port_value = 3; string named_port = 4; }
  string resolver_name = 5;
  bool ipv4_compat = 6;
}
message Address {
  oneof address { SocketAddress socket_address = 1; Pipe pipe = 2; EnvoyInternalAddress envoy_internal_address = 3; }
}`,
  'envoy/config/core/v3/base.proto': `
syntax = "proto3";
package envoy.config.core.v3;
import "google/protobuf/any.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/wrappers.proto";
message Metadata {
  map<string, google.protobuf.Struct> filter_metadata = 1;
  map<string, google.protobuf.Any> typed_filter_metadata = 2;
}
message HeaderValue { string key = 1; string value = 2; bytes raw_value = 3; }
message HeaderValueOption {
  enum HeaderAppendAction { APPEND_IF_EXISTS_OR_ADD = 0; ADD_IF_ABSENT = 1; OVERWRITE_IF_EXISTS_OR_ADD = 2; OVERWRITE_IF_EXISTS = 3; }
  HeaderValue header = 1;
  google.protobuf.BoolValue append = 2;
  HeaderAppendAction append_action = 3;
  bool keep_empty_value = 4;
}
message HeaderMap { repeated HeaderValue headers = 1; }
message QueryParameter { string key = 1; string value = 2; }`,
  'envoy/type/v3/http_status.proto': `
syntax = "proto3";
package envoy.type.v3;
enum StatusCode {
  Empty = 0; Continue = 100; OK = 200; Created = 201; Accepted = 202; NonAuthoritativeInformation = 203;
  NoContent = 204; ResetContent = 205; PartialContent = 206; MultiStatus = 207; AlreadyReported = 208;
  IMUsed = 226; MultipleChoices = 300; MovedPermanently = 301; Found = 302; SeeOther = 303;
  NotModified = 304; UseProxy = 305; TemporaryRedirect = 307; PermanentRedirect = 308;
  BadRequest = 400; Unauthorized = 401; PaymentRequired = 402; Forbidden = 403; NotFound = 404;
  MethodNotAllowed = 405; NotAcceptable = 406; ProxyAuthenticationRequired = 407; RequestTimeout = 408;
  Conflict = 409; Gone = 410; LengthRequired = 411; PreconditionFailed = 412; PayloadTooLarge = 413;
  URITooLong = 414; UnsupportedMediaType = 415; RangeNotSatisfiable = 416; ExpectationFailed = 417;
  MisdirectedRequest = 421; UnprocessableEntity = 422; Locked = 423; FailedDependency = 424;
  UpgradeRequired = 426; PreconditionRequired = 428; TooManyRequests = 429; RequestHeaderFieldsTooLarge = 431;
  InternalServerError = 500; NotImplemented = 501; BadGateway = 502; ServiceUnavailable = 503;
  GatewayTimeout = 504; HTTPVersionNotSupported = 505; VariantAlsoNegotiates = 506; InsufficientStorage = 507;
  LoopDetected = 508; NotExtended = 510; NetworkAuthenticationRequired = 511;
}
message HttpStatus { StatusCode code = 1; }`,
  'google/rpc/status.proto': `
syntax = "proto3";
package google.rpc;
import "google/protobuf/any.proto";
message Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }`,
  'envoy/service/auth/v3/attribute_context.proto': `
syntax = "proto3";
package envoy.service.auth.v3;
import "envoy/config/core/v3/address.proto";
import "envoy/config/core/v3/base.proto";
import "google/protobuf/timestamp.proto";
message AttributeContext {
  message Peer {
    envoy.config.core.v3.Address address = 1;
    string service = 2;
    map<string, string> labels = 3;
    string principal = 4;
    string certificate = 5;
  }
  message Request {
    google.protobuf.Timestamp time = 1;
    HttpRequest http = 2;
  }
  message HttpRequest {
    string id = 1;
    string method = 2;
    map<string, string> headers = 3;
    envoy.config.core.v3.HeaderMap header_map = 13;
    string path = 4;
    string host = 5;
    string scheme = 6;
    string query = 7;
    string fragment = 8;
    int64 size = 9;
    string protocol = 10;
    string body = 11;
    bytes raw_body = 12;
  }
  message TLSSession { string sni = 1; }
  Peer source = 1;
  Peer destination = 2;
  Request request = 4;
  map<string, string> context_extensions = 10;
  envoy.config.core.v3.Metadata metadata_context = 11;
  envoy.config.core.v3.Metadata route_metadata_context = 13;
  TLSSession tls_session = 12;
}`,
  'envoy/service/auth/v3/external_auth.proto': `
syntax = "proto3";
package envoy.service.auth.v3;
import "envoy/config/core/v3/base.proto";
import "envoy/service/auth/v3/attribute_context.proto";
import "envoy/type/v3/http_status.proto";
import "google/protobuf/struct.proto";
import "google/rpc/status.proto";
service Authorization {
  rpc Check(CheckRequest) returns (CheckResponse);
}
message CheckRequest { AttributeContext attributes = 1; }
message DeniedHttpResponse {
  envoy.type.v3.HttpStatus status = 1;
  repeated envoy.config.core.v3.HeaderValueOption headers = 2;
  string body = 3;
}
message OkHttpResponse {
  repeated envoy.config.core.v3.HeaderValueOption headers = 2;
  repeated string headers_to_remove = 5;
  google.protobuf.Struct dynamic_metadata = 3;
  repeated envoy.config.core.v3.HeaderValueOption response_headers_to_add = 6;
  repeated envoy.config.core.v3.QueryParameter query_parameters_to_set = 7;
  repeated string query_parameters_to_remove = 8;
}
message CheckResponse {
  google.rpc.Status status = 1;
  oneof http_response { DeniedHttpResponse denied_response = 2; OkHttpResponse ok_response = 3; }
  google.protobuf.Struct dynamic_metadata = 4;
}`,
  'grpc/health/v1/health.proto': `
syntax = "proto3";
package grpc.health.v1;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse {
  enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }
  ServingStatus status = 1;
}
service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
  rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse);
}`,
};

const WELL_KNOWN = ['any', 'struct', 'timestamp', 'wrappers'].map((n) => `google/protobuf/${n}.proto`);

/** One Root with every message above, field names as in the .proto (snake_case). */
export function envoyRoot(): protobuf.Root {
  const root = new protobuf.Root();
  for (const file of WELL_KNOWN) {
    const json = protobuf.common.get(file);
    if (!json) throw new Error(`protobufjs lacks ${file}`);
    setFilename(protobuf.Root.fromJSON(json), file, root);
  }
  for (const [file, text] of Object.entries(FILES)) {
    setFilename(protobuf.parse(text, new protobuf.Root(), { keepCase: true }).root, file, root);
  }
  root.resolveAll();
  return root;
}

/** Moves the definitions of one parsed file into `into`, each remembering its file name. */
function setFilename(parsed: protobuf.Root, file: string, into: protobuf.Root): void {
  const visit = (ns: protobuf.NamespaceBase, target: protobuf.Namespace | protobuf.Root): void => {
    for (const child of [...ns.nestedArray]) {
      if (child instanceof protobuf.Type || child instanceof protobuf.Enum || child instanceof protobuf.Service) {
        ns.remove(child);
        child.filename = file;
        target.add(child);
      } else if (child instanceof protobuf.Namespace) {
        const existing = target.get(child.name);
        const next = existing instanceof protobuf.Namespace ? existing : (target.add(new protobuf.Namespace(child.name)), target.get(child.name) as protobuf.Namespace);
        visit(child, next);
      }
    }
  };
  visit(parsed, into);
}
