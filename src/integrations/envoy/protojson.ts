// A decoded protobuf message as Go's protojson.Marshal writes it, which is the form OPA's
// Envoy plugin hands to policies: lowerCamelCase field names, fields at their default value
// left out (a one-of member that is set stays), enums by name, 64-bit integers as decimal
// strings, bytes as base64, and the well-known types in their JSON forms (Timestamp as an
// RFC 3339 string, Struct/Value/ListValue as JSON, wrappers as their value, Any with "@type").

import protobuf from 'protobufjs';
import type { PlainObject, Value } from '../../value/index.js';

type Msg = Record<string, unknown>;

/** protoc's json_name: underscores dropped, the letter after one upper-cased. */
export function jsonName(field: string): string {
  return field.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/_/g, '');
}

/** What the conversion needs of a type, worked out once (protobufjs computes fullName on each read). */
interface Shape {
  fullName: string;
  fields: { field: protobuf.Field; name: string; json: string; oneof?: string }[];
}
const shapes = new WeakMap<protobuf.Type, Shape>();

function shapeOf(type: protobuf.Type): Shape {
  let s = shapes.get(type);
  if (!s) {
    s = { fullName: type.fullName, fields: type.fieldsArray.map((field) => ({ field, name: field.name, json: jsonName(field.name), oneof: field.partOf?.name })) };
    shapes.set(type, s);
  }
  return s;
}

export function toProtoJSON(type: protobuf.Type, msg: Msg): Value {
  const shape = shapeOf(type);
  if (shape.fullName.startsWith('.google.protobuf.')) {
    const wkt = wellKnown(type, shape.fullName, msg);
    if (wkt !== NOT_WKT) return wkt;
  }
  const out: PlainObject = {};
  for (const { field, name, json, oneof } of shape.fields) {
    const v = msg[name];
    if (v === undefined || v === null) continue;
    if (field.map) {
      const entries = Object.entries(v as Msg);
      if (entries.length === 0) continue;
      const obj: PlainObject = {};
      for (const [k, x] of entries) obj[k] = single(field, x);
      out[json] = obj;
    } else if (field.repeated) {
      const arr = v as unknown[];
      if (arr.length === 0) continue;
      out[json] = arr.map((x) => single(field, x));
    } else {
      const inOneof = oneof !== undefined && msg[oneof] === name;
      if (!inOneof && isDefault(field, v)) continue;
      out[json] = single(field, v);
    }
  }
  return out;
}

function isDefault(field: protobuf.Field, v: unknown): boolean {
  if (field.resolvedType instanceof protobuf.Type) return false;
  // an unset bytes field reads as protobufjs's default, an empty array or buffer
  if (field.type === 'bytes') return (v as { length: number }).length === 0;
  if (typeof v === 'string') return v === '';
  if (typeof v === 'boolean') return !v;
  if (typeof v === 'number') return v === 0;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isLong(v)) return v.low === 0 && v.high === 0;
  return false;
}

/** protobufjs decodes 64-bit integers to Long objects (low and high 32 bits). */
function isLong(v: unknown): v is { low: number; high: number; unsigned: boolean } {
  return typeof v === 'object' && v !== null && typeof (v as { low?: unknown }).low === 'number' && typeof (v as { high?: unknown }).high === 'number';
}

const INT64 = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

function single(field: protobuf.Field, v: unknown): Value {
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Type) return toProtoJSON(rt, v as Msg);
  if (rt instanceof protobuf.Enum) return rt.valuesById[v as number] ?? (v as number);
  return scalar(field.type, v);
}

function scalar(type: string, v: unknown): Value {
  if (INT64.has(type)) return String(v); // a Long's toString is its exact decimal form
  if (type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if ((type === 'double' || type === 'float') && typeof v === 'number' && !Number.isFinite(v)) {
    return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  }
  return v as Value;
}

const NOT_WKT = Symbol('not a well-known type');

function wellKnown(type: protobuf.Type, fullName: string, msg: Msg): Value | typeof NOT_WKT {
  switch (fullName) {
    case '.google.protobuf.Timestamp':
      return timestamp(msg);
    case '.google.protobuf.Struct':
      return struct(msg);
    case '.google.protobuf.Value':
      return structValue(msg);
    case '.google.protobuf.ListValue':
      return ((msg['values'] as Msg[] | undefined) ?? []).map(structValue);
    case '.google.protobuf.Any':
      return any(type, msg);
    default:
      if (fullName.endsWith('Value') && type.fields['value']) {
        const v = msg['value'] ?? type.fields['value'].typeDefault;
        return scalar(type.fields['value'].type, v);
      }
      return NOT_WKT;
  }
}

function num(v: unknown): number {
  return isLong(v) ? protobuf.util.LongBits.from(v).toNumber() : Number(v ?? 0);
}

/** RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as protojson writes it. */
function timestamp(msg: Msg): string {
  const seconds = num(msg['seconds']);
  const nanos = num(msg['nanos']);
  const base = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  if (nanos === 0) return `${base}Z`;
  let frac = String(nanos).padStart(9, '0');
  if (frac.endsWith('000000')) frac = frac.slice(0, 3);
  else if (frac.endsWith('000')) frac = frac.slice(0, 6);
  return `${base}.${frac}Z`;
}

function struct(msg: Msg): PlainObject {
  const out: PlainObject = {};
  for (const [k, v] of Object.entries((msg['fields'] as Record<string, Msg> | undefined) ?? {})) out[k] = structValue(v);
  return out;
}

function structValue(v: Msg): Value {
  switch (v['kind']) {
    case 'nullValue':
    case 'null_value':
      return null;
    case 'numberValue':
    case 'number_value':
      return (v['numberValue'] ?? v['number_value']) as number;
    case 'stringValue':
    case 'string_value':
      return (v['stringValue'] ?? v['string_value']) as string;
    case 'boolValue':
    case 'bool_value':
      return (v['boolValue'] ?? v['bool_value']) as boolean;
    case 'structValue':
    case 'struct_value':
      return struct((v['structValue'] ?? v['struct_value']) as Msg);
    case 'listValue':
    case 'list_value':
      return (((v['listValue'] ?? v['list_value']) as Msg | undefined)?.['values'] as Msg[] | undefined)?.map(structValue) ?? [];
    default:
      return null;
  }
}

/** Any: the packed message's fields beside "@type" when the type is known here, else its bytes. */
function any(type: protobuf.Type, msg: Msg): Value {
  const url = (msg['type_url'] ?? msg['typeUrl'] ?? '') as string;
  const bytes = (msg['value'] ?? new Uint8Array()) as Uint8Array;
  const name = url.slice(url.lastIndexOf('/') + 1);
  let inner: protobuf.Type | undefined;
  try {
    inner = type.root.lookupType(name);
  } catch {
    inner = undefined;
  }
  if (!inner) return { '@type': url, value: Buffer.from(bytes).toString('base64') };
  const decoded = toProtoJSON(inner, inner.decode(bytes) as unknown as Msg);
  if (decoded !== null && typeof decoded === 'object' && !Array.isArray(decoded) && Object.getPrototypeOf(decoded) === Object.prototype) {
    return { '@type': url, ...(decoded as PlainObject) };
  }
  return { '@type': url, value: decoded };
}
