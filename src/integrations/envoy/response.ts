// A decision mapped onto the CheckResponse as OPA's Envoy plugin maps it. The decision is a
// boolean (allow or deny, nothing else said) or an object: `allowed` (required), `headers`,
// `dynamic_metadata`, and when allowed `request_headers_to_remove`, `response_headers_to_add`,
// `query_parameters_to_set`, `query_parameters_to_remove` (an OkHttpResponse), when denied
// `body` and `http_status` (a DeniedHttpResponse, 403 unless said). A decision of another
// shape is a DecisionError whose message is OPA's; the Check then fails with it.
// The object returned uses the .proto field names (protobufjs fromObject with keepCase).

import type { PlainObject } from '../../value/index.js';

export class DecisionError extends Error {}

/** google.rpc.Code values the plugin answers with. */
export const RPC_OK = 0;
export const RPC_PERMISSION_DENIED = 7;

/** The status codes envoy.type.v3.StatusCode names (the only ones a DeniedHttpResponse can carry). */
const ENVOY_STATUS = new Set([
  100, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 423, 424, 426, 428, 429, 431, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
]);

/** Go's %T of the value as OPA's JSON decoder produces it, for messages that name it. */
export function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'json.Number';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

type Json = unknown;

const isPlainObject = (v: unknown): v is PlainObject => typeof v === 'object' && v !== null && !Array.isArray(v);
type HeaderOption = { header: { key: string; value: string } };

function allowedOf(decision: Json): boolean {
  if (typeof decision === 'boolean') return decision;
  if (isPlainObject(decision)) {
    if (!('allowed' in decision)) throw new Error('unable to determine evaluation result due to missing "allowed" key');
    const a = decision['allowed'];
    if (typeof a !== 'boolean') throw new Error(`type assertion error, expected allowed to be of type 'boolean' but got '${goType(a)}'`);
    return a;
  }
  throw new Error(`illegal value for policy evaluation result: ${goType(decision)}`);
}

function headerMap(obj: PlainObject, out: HeaderOption[]): void {
  for (const [key, value] of Object.entries(obj)) {
    if (typeof value === 'string') out.push({ header: { key, value } });
    else if (Array.isArray(value)) {
      for (const v of value) {
        if (typeof v !== 'string') throw new Error(`invalid value type ${goType(v)} for header '${key}'`);
        out.push({ header: { key, value: v } });
      }
    } else throw new Error(`type assertion error for header '${key}'`);
  }
}

/** `headers` / `response_headers_to_add`: an object of names to a value or values, or a list of such objects. */
function headers(d: PlainObject, field: string): HeaderOption[] {
  const out: HeaderOption[] = [];
  if (!(field in d)) return out;
  const v = d[field];
  if (Array.isArray(v)) {
    for (const x of v) {
      if (!isPlainObject(x)) throw new Error(`type assertion error, expected headers to be of type 'object' but got '${goType(x)}'`);
      headerMap(x, out);
    }
  } else if (isPlainObject(v)) headerMap(v, out);
  else throw new Error(`type assertion error, expected headers to be of type 'object' but got '${goType(v)}'`);
  return out;
}

function strings(d: PlainObject, field: string): string[] {
  if (!(field in d)) return [];
  const v = d[field];
  if (!Array.isArray(v)) throw new Error(`type assertion error, expected ${field} to be of type '[]string' but got '${goType(v)}'`);
  return v.map((s) => {
    if (typeof s !== 'string') throw new Error(`type assertion error, expected ${field} value to be of type 'string' but got '${goType(s)}'`);
    return s;
  });
}

function queryToSet(d: PlainObject): { key: string; value: string }[] {
  if (!('query_parameters_to_set' in d)) return [];
  const v = d['query_parameters_to_set'];
  if (!isPlainObject(v)) throw new Error(`type assertion error, expected query_parameters_to_set to be a map but got '${goType(v)}'`);
  const out: { key: string; value: string }[] = [];
  for (const [key, x] of Object.entries(v)) {
    if (typeof x === 'string') out.push({ key, value: x });
    else if (Array.isArray(x)) {
      for (const item of x) {
        if (typeof item !== 'string') throw new Error(`type assertion error: expected array element to be string but got '${goType(item)}'`);
        out.push({ key, value: item });
      }
    } else throw new Error(`type assertion error, expected value to be string or array but got '${goType(x)}'`);
  }
  return out;
}

function httpStatus(d: PlainObject): number {
  if (!('http_status' in d)) return 403;
  const v = d['http_status'];
  if (typeof v !== 'number') throw new Error(`type assertion error, expected http_status to be of type 'number' but got '${goType(v)}'`);
  if (!Number.isInteger(v)) throw new Error(`error converting JSON number to int: strconv.ParseInt: parsing "${v}": invalid syntax`);
  if (!ENVOY_STATUS.has(v)) throw new Error(`invalid HTTP status code ${v}`);
  return v;
}

function dynamicMetadata(d: PlainObject): PlainObject | undefined {
  if (!('dynamic_metadata' in d)) return undefined;
  const v = d['dynamic_metadata'];
  if (!isPlainObject(v)) throw new Error(`type assertion error, expected dynamic_metadata to be of type 'object' but got '${goType(v)}'`);
  return v;
}

/** Runs one step of the mapping; its error is OPA's, prefixed with what was being read. */
function step<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new DecisionError(`${what}: ${(e as Error).message}`);
  }
}

/** A JSON object as google.protobuf.Struct (protobufjs field names). */
export function toStruct(obj: PlainObject): { fields: Record<string, unknown> } {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) fields[k] = toStructValue(v);
  return { fields };
}

function toStructValue(v: unknown): unknown {
  if (v === null || v === undefined) return { nullValue: 0 };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toStructValue) } };
  return { structValue: toStruct(v as PlainObject) };
}

export interface MappedResponse {
  response: Record<string, unknown>;
  allowed: boolean;
}

/** The CheckResponse for a decision (a JSON value); decision_id always joins the dynamic metadata. */
export function checkResponse(decision: Json, decisionId: string, dryRun: boolean): MappedResponse {
  const allowed = step('failed to get response status', () => allowedOf(decision));
  const response: Record<string, unknown> = { status: { code: allowed ? RPC_OK : RPC_PERMISSION_DENIED } };
  let metadata: PlainObject = {};
  if (isPlainObject(decision)) {
    const hdrs = step('failed to get response headers', () => headers(decision, 'headers'));
    metadata = step('failed to get dynamic metadata', () => dynamicMetadata(decision)) ?? {};
    if (allowed) {
      response['ok_response'] = {
        headers: hdrs,
        headers_to_remove: step('failed to get request headers to remove', () => strings(decision, 'request_headers_to_remove')),
        response_headers_to_add: step('failed to get response headers to send to client', () => headers(decision, 'response_headers_to_add')),
        query_parameters_to_set: step('failed to get request query parameters to set', () => queryToSet(decision)),
        query_parameters_to_remove: step('failed to get request query parameters to remove', () => strings(decision, 'query_parameters_to_remove')),
      };
    } else {
      const body = step('failed to get response body', () => {
        const b = 'body' in decision ? decision['body'] : '';
        if (typeof b !== 'string') throw new Error(`type assertion error, expected body to be of type 'string' but got '${goType(b)}'`);
        return b;
      });
      const code = step('failed to get response http status', () => httpStatus(decision));
      response['denied_response'] = { status: { code }, headers: hdrs, ...(body !== '' ? { body } : {}) };
    }
  }
  // dry-run: Envoy is told to let the request through; the decision log keeps what the policy said.
  if (dryRun && !allowed) {
    response['status'] = { code: RPC_OK };
    delete response['denied_response'];
    response['ok_response'] = {};
  }
  response['dynamic_metadata'] = toStruct({ ...metadata, decision_id: decisionId });
  return { response, allowed };
}
