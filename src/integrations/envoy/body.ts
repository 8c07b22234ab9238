// parsed_body and truncated_body of the input, from the request's content-type as OPA's
// Envoy plugin reads them: JSON, URL-encoded forms (each field's values in a list),
// multipart forms (each field's parts in a list, JSON parts parsed) and, with a
// proto-descriptor, gRPC messages. A body shorter than its content-length was cut by Envoy's
// with_request_body limit: truncated_body is true and parsed_body null. Other types: null.

import { parseJSON, type PlainObject, type Value } from '../../value/index.js';
import { RequestParseError } from './request-error.js';
import { parseQuery } from './url.js';

/** Decodes one framed gRPC message for /<service>/<method>; undefined when it cannot say. */
export type GrpcBodyParser = (framed: Uint8Array, service: string, method: string) => { value?: Value; truncated: boolean } | undefined;

export interface ParsedBody {
  parsed: Value;
  truncated: boolean;
}

const NOTHING: ParsedBody = { parsed: null, truncated: false };

function truncatedBy(headers: Record<string, string>, length: number): boolean {
  const cl = headers['content-length'];
  if (cl === undefined) return false;
  if (!/^[+-]?\d+$/.test(cl.trim())) throw new RequestParseError(`strconv.ParseInt: parsing "${cl}": invalid syntax`);
  const n = Number(cl);
  return n !== -1 && n > length;
}

export function parseBody(headers: Record<string, string>, body: string, raw: Uint8Array, parsedPath: string[], grpc?: GrpcBodyParser): ParsedBody {
  const ct = headers['content-type'];
  if (ct === undefined) return NOTHING;
  const payload = body !== '' ? body : raw.length > 0 ? Buffer.from(raw).toString('utf8') : '';
  if (ct.includes('application/json')) {
    if (payload === '') return NOTHING;
    if (truncatedBy(headers, Buffer.byteLength(payload))) return { parsed: null, truncated: true };
    try {
      return { parsed: parseJSON(payload), truncated: false };
    } catch (e) {
      throw new RequestParseError((e as Error).message);
    }
  }
  if (ct.includes('application/grpc')) {
    if (!grpc || raw.length === 0) return NOTHING;
    if (parsedPath.length !== 2) throw new RequestParseError('invalid parsed path');
    if (raw.length < 5) throw new RequestParseError('less than 5 bytes');
    const r = grpc(raw, parsedPath[0]!, parsedPath[1]!);
    if (!r) return NOTHING;
    return r.truncated ? { parsed: null, truncated: true } : { parsed: r.value ?? null, truncated: false };
  }
  if (ct.includes('application/x-www-form-urlencoded')) {
    if (payload === '') return NOTHING;
    if (truncatedBy(headers, Buffer.byteLength(payload))) return { parsed: null, truncated: true };
    return { parsed: parseQuery(payload, true), truncated: false };
  }
  if (ct.includes('multipart/form-data')) {
    if (payload === '') return NOTHING;
    if (truncatedBy(headers, Buffer.byteLength(payload))) return { parsed: null, truncated: true };
    const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(ct);
    if (!boundary) return NOTHING;
    return { parsed: parseMultipart(payload, boundary[1] ?? boundary[2]!), truncated: false };
  }
  return NOTHING;
}

/** multipart/form-data: field name -> its parts' values (parsed JSON for application/json parts). */
function parseMultipart(payload: string, boundary: string): PlainObject {
  const out: Record<string, Value[]> = {};
  const delim = `--${boundary}`;
  const start = payload.indexOf(delim);
  if (start < 0) throw new RequestParseError('multipart: NextPart: EOF');
  let rest = payload.slice(start + delim.length);
  while (!rest.startsWith('--')) {
    rest = rest.replace(/^[ \t]*\r?\n/, '');
    const end = rest.indexOf(`\r\n${delim}`) >= 0 ? rest.indexOf(`\r\n${delim}`) : rest.indexOf(`\n${delim}`);
    if (end < 0) throw new RequestParseError('multipart: NextPart: EOF');
    const part = rest.slice(0, end);
    rest = rest.slice(end + (rest[end] === '\r' ? 2 : 1) + delim.length);
    const sep = part.search(/\r?\n\r?\n/);
    const head = sep < 0 ? part : part.slice(0, sep);
    const content = sep < 0 ? '' : part.slice(sep).replace(/^\r?\n\r?\n/, '');
    const headersOf: Record<string, string> = {};
    for (const line of head.split(/\r?\n/)) {
      const c = line.indexOf(':');
      if (c > 0) headersOf[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
    }
    const disposition = headersOf['content-disposition'] ?? '';
    if (!/^form-data\b/i.test(disposition)) continue;
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? /\bname=([^;\s]+)/i.exec(disposition)?.[1];
    if (!name) continue;
    let value: Value = content;
    if ((headersOf['content-type'] ?? '').includes('application/json')) {
      try {
        value = parseJSON(content);
      } catch (e) {
        throw new RequestParseError((e as Error).message);
      }
    }
    (out[name] ??= []).push(value);
  }
  return out;
}
