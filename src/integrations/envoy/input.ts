// The input document of one Check, as OPA's Envoy plugin builds it: the CheckRequest in
// protojson form (input.attributes.request.http.method, .headers, .path, .body, .rawBody,
// input.attributes.source.address.socketAddress, input.attributes.metadataContext, ...), plus
// version, parsed_path, parsed_query and, unless skip-request-body-parse, parsed_body and
// truncated_body. A request it cannot read is a RequestParseError (the Check then answers
// PERMISSION_DENIED with a 400 for Envoy to send).

import type protobuf from 'protobufjs';
import type { PlainObject } from '../../value/index.js';
import { toProtoJSON } from './protojson.js';
import { parseBody, type GrpcBodyParser } from './body.js';
import { parsePathAndQuery } from './url.js';

export { RequestParseError } from './request-error.js';

const VERSION = { ext_authz: 'v3', encoding: 'protojson' };

interface HttpPart {
  path?: string;
  body?: string;
  raw_body?: Uint8Array;
  headers?: Record<string, string>;
}

export interface InputOptions {
  skipRequestBodyParse: boolean;
  grpcBody?: GrpcBodyParser;
}

export function checkInput(checkRequest: protobuf.Type, req: Record<string, unknown>, o: InputOptions): PlainObject {
  const input = toProtoJSON(checkRequest, req) as PlainObject;
  const attrs = req['attributes'] as { request?: { http?: HttpPart } } | undefined;
  const http = attrs?.request?.http ?? {};
  const path = http.path ?? '';
  input['version'] = { ...VERSION };
  const { parsedPath, parsedQuery } = parsePathAndQuery(path);
  input['parsed_path'] = parsedPath;
  input['parsed_query'] = parsedQuery;
  if (!o.skipRequestBodyParse) {
    const { parsed, truncated } = parseBody(http.headers ?? {}, http.body ?? '', http.raw_body ?? new Uint8Array(), parsedPath, o.grpcBody);
    input['parsed_body'] = parsed;
    input['truncated_body'] = truncated;
  }
  return input;
}
