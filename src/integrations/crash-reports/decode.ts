// A native crash report (Tombstone protobuf, tombstone.proto next to this file) decoded with
// protobufjs into the JSON input document a policy reads. The conventions of that document:
//
// - field names as in the .proto (snake_case); every scalar field is present, with its proto3
//   default when the report does not carry it (0, "", false, "0x0", the enum's zero name);
//   repeated fields are arrays ([] when absent), maps objects keyed by the key as a string
//   (threads by tid: {"1234": Thread}); message fields appear only when sent.
// - one-ofs: only the member that is set appears, and the one-of's own name names it
//   (a Cause with a memory error: {"details": "memory_error", "memory_error": {...}}).
// - enums by name ("ARM64", "SCUDO", "USE_AFTER_FREE"); a number the .proto does not name
//   stays a number.
// - 64-bit integers as strings, exact: uint64 values are addresses, offsets, sizes, register
//   values or tags, written as lower-case hex ("0xffffff8012345678"); the thread ids among
//   them (StackHistoryBuffer.tid, HeapObject.allocation_tid, deallocation_tid) and the int64
//   fields (Thread.tagged_addr_ctrl, pac_enabled_keys) as decimal strings ("-1").
// - bytes as base64; CrashDetail's name and data also as text (name_text, data_text) when
//   they are valid UTF-8.
// - fields the .proto does not know are skipped, never an error, and listed under the
//   document's `_unknown_fields`: [{path, field, wire_type, reserved}], path the dotted
//   place of the message that carried them ("" for the Tombstone itself,
//   "threads[1234].current_backtrace[0]"), reserved whether the number lies in the message's
//   reserved ranges (numbers custom fields must not use).
//
// Anything else (truncated, random bytes, a known field with the wrong wire type, a length
// past its message) is a TombstoneError: "crash report is not a valid Tombstone: <reason>".

import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import type { JSONValue } from '../../plugins/adapters/types.js';

// The .proto text, embedded by the build (tsup.config.ts `define`); from the source tree
// (tests, tsx) it is read next to this module.
declare const __REGOLITH_TOMBSTONE_PROTO__: string | undefined;

export class TombstoneError extends Error {
  constructor(reason: string) {
    super(`crash report is not a valid Tombstone: ${reason}`);
    this.name = 'TombstoneError';
  }
}

export interface UnknownField {
  /** Where the message carrying it sits in the document ("" for the Tombstone). */
  path: string;
  field: number;
  wire_type: number;
  /** Whether the number is in the message's reserved ranges. */
  reserved: boolean;
}

type JSONObject = { [k: string]: JSONValue };

/** The text of tombstone.proto. */
export function tombstoneProtoText(): string {
  if (typeof __REGOLITH_TOMBSTONE_PROTO__ === 'string') return __REGOLITH_TOMBSTONE_PROTO__;
  return readFileSync(new URL('./tombstone.proto', import.meta.url), 'utf8');
}

let root: protobuf.Root | undefined;

/** The parsed schema (field names as in the .proto). Parsed once, on first use. */
export function tombstoneRoot(): protobuf.Root {
  if (!root) {
    // exact 64-bit integers need protobufjs's Long support (its `long` dependency)
    if (!protobuf.util.Long) throw new Error('protobufjs has no 64-bit integer support (its "long" dependency is missing)');
    const r = protobuf.parse(tombstoneProtoText(), { keepCase: true }).root;
    r.resolveAll();
    root = r;
  }
  return root;
}

// --- the unknown-field scan -------------------------------------------------------------

const VARINT = new Set(['int32', 'uint32', 'int64', 'uint64', 'sint32', 'sint64', 'bool']);
const FIXED64 = new Set(['fixed64', 'sfixed64', 'double']);
const FIXED32 = new Set(['fixed32', 'sfixed32', 'float']);

function wireTypeOf(f: protobuf.Field): number {
  if (f.resolvedType instanceof protobuf.Enum || VARINT.has(f.type)) return 0;
  if (FIXED64.has(f.type)) return 1;
  if (FIXED32.has(f.type)) return 5;
  return 2;
}

/** Reserved ranges in a .proto are inclusive (protobufjs's isReservedId treats the end as exclusive). */
function isReserved(t: protobuf.Type, id: number): boolean {
  for (const r of t.reserved ?? []) if (typeof r !== 'string' && r[0]! <= id && id <= r[1]!) return true;
  return false;
}

const join = (path: string, name: string): string => (path ? `${path}.${name}` : name);

function where(path: string): string {
  return path ? `in ${path}` : 'in the Tombstone';
}

/** Reads a length prefix and checks it fits within `end`; returns where the value ends. */
function lengthDelimited(r: protobuf.Reader, end: number, what: string): number {
  const len = r.uint32();
  if (len > end - r.pos) throw new TombstoneError(`${what} declares ${len} bytes at offset ${r.pos}, but only ${Math.max(0, end - r.pos)} remain`);
  return r.pos + len;
}

/** Skips the value of field `what` (wire type `wt`), staying within `end`. */
function skipValue(r: protobuf.Reader, wt: number, end: number, path: string, what: string): void {
  if (wt === 4) throw new TombstoneError(`an unexpected end-group tag at offset ${r.pos} ${where(path)}`);
  if (wt === 6 || wt === 7) throw new TombstoneError(`invalid wire type ${wt} at offset ${r.pos} ${where(path)}`);
  if (wt === 2) r.pos = lengthDelimited(r, end, what);
  else r.skipType(wt);
  if (r.pos > end) throw new TombstoneError(`${what} runs past the end of its message at offset ${end} ${where(path)}`);
}

/**
 * Walks the wire format of a `type` message in [r.pos, end), checking its structure (tags,
 * wire types of known fields, lengths) and listing the fields `type` does not declare.
 */
function scan(r: protobuf.Reader, end: number, type: protobuf.Type, path: string, out: UnknownField[]): void {
  const counts = new Map<number, number>();
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.uint32();
    const id = tag >>> 3;
    const wt = tag & 7;
    if (id === 0) throw new TombstoneError(`invalid field number 0 at offset ${at} ${where(path)}`);
    const f = type.fieldsById[id];
    if (!f) {
      out.push({ path, field: id, wire_type: wt, reserved: isReserved(type, id) });
      skipValue(r, wt, end, path, `field ${id}`);
      continue;
    }
    const expected = wireTypeOf(f);
    const packed = f.repeated && !f.map && expected !== 2 && wt === 2;
    if (wt !== expected && !packed) {
      throw new TombstoneError(`field ${f.name} (${id}) ${where(path)} has wire type ${wt} at offset ${at}, expected ${expected}`);
    }
    const name = join(path, f.name);
    if (f.map) {
      scanMapEntry(r, lengthDelimited(r, end, `field ${name}`), f, name, out);
    } else if (f.resolvedType instanceof protobuf.Type) {
      const n = counts.get(id) ?? 0;
      counts.set(id, n + 1);
      scan(r, lengthDelimited(r, end, `field ${name}`), f.resolvedType, f.repeated ? `${name}[${n}]` : name, out);
    } else {
      skipValue(r, wt, end, path, `field ${name}`);
    }
  }
  if (r.pos !== end) throw new TombstoneError(`a field ${where(path)} runs past the end of its message (offset ${end})`);
}

/** A map entry (key = 1, value = 2): the value message is scanned under `<map>[<key>]`. */
function scanMapEntry(r: protobuf.Reader, end: number, f: protobuf.Field, path: string, out: UnknownField[]): void {
  const mf = f as unknown as protobuf.MapField;
  const keyWire = VARINT.has(mf.keyType) ? 0 : FIXED64.has(mf.keyType) ? 1 : FIXED32.has(mf.keyType) ? 5 : 2;
  const valueType = f.resolvedType instanceof protobuf.Type ? f.resolvedType : undefined;
  const valueWire = valueType ? 2 : wireTypeOf(f);
  let key = '0';
  const values: [number, number][] = [];
  const entryPath = `${path} (map entry)`;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.uint32();
    const id = tag >>> 3;
    const wt = tag & 7;
    if (id === 0) throw new TombstoneError(`invalid field number 0 at offset ${at} in ${entryPath}`);
    if ((id === 1 && wt !== keyWire) || (id === 2 && wt !== valueWire)) {
      throw new TombstoneError(`field ${id === 1 ? 'key' : 'value'} of ${entryPath} has wire type ${wt} at offset ${at}, expected ${id === 1 ? keyWire : valueWire}`);
    }
    // the key as protobufjs reads it for the map's key type (the tids are uint32)
    if (id === 1 && keyWire === 0) key = mf.keyType === 'uint32' ? String(r.uint32()) : mf.keyType === 'int32' ? String(r.int32()) : r.uint64().toString();
    else if (id === 1 && keyWire === 2) key = r.string();
    else if (id === 2 && valueType) {
      const valueEnd = lengthDelimited(r, end, `the value of ${entryPath}`);
      values.push([r.pos, valueEnd]);
      r.pos = valueEnd;
    } else {
      if (id !== 1 && id !== 2) out.push({ path: entryPath, field: id, wire_type: wt, reserved: false });
      skipValue(r, wt, end, entryPath, id === 1 ? `the key of ${entryPath}` : `field ${id} of ${entryPath}`);
    }
    if (r.pos > end) throw new TombstoneError(`a field of ${entryPath} runs past the end of its entry (offset ${end})`);
  }
  if (r.pos !== end) throw new TombstoneError(`a field of ${entryPath} runs past the end of its entry (offset ${end})`);
  for (const [start, valueEnd] of values) {
    r.pos = start;
    scan(r, valueEnd, valueType!, `${path}[${key}]`, out);
  }
  r.pos = end;
}

// --- the JSON document ------------------------------------------------------------------

/** Thread ids among the uint64 fields: decimal, like the 32-bit tids. */
const DECIMAL_UINT64 = new Set(['tid', 'allocation_tid', 'deallocation_tid']);

interface LongLike {
  low: number;
  high: number;
  unsigned: boolean;
}

function toBigInt(v: unknown, signed: boolean): bigint {
  let b: bigint;
  if (typeof v === 'number') b = BigInt(v);
  else if (typeof v === 'string') b = BigInt(v);
  else {
    const l = v as LongLike;
    b = (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
  }
  return signed ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A bytes field's value (protobufjs gives a Buffer, or an empty array for a default). */
function bytesOf(v: unknown): Uint8Array {
  return v instanceof Uint8Array ? v : Uint8Array.from((v ?? []) as ArrayLike<number>);
}

function base64(v: unknown): string {
  const u = bytesOf(v);
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('base64');
}

function textOf(v: unknown): string | undefined {
  try {
    return utf8.decode(bytesOf(v));
  } catch {
    return undefined;
  }
}

function scalar(f: protobuf.Field, v: unknown): JSONValue {
  const t = f.resolvedType;
  if (t instanceof protobuf.Enum) return t.valuesById[v as number] ?? (v as number);
  // a map entry without its value holds the value message's defaults
  if (t instanceof protobuf.Type) return toDocument((v ?? t.create({})) as protobuf.Message, t);
  switch (f.type) {
    case 'uint64':
    case 'fixed64':
      return DECIMAL_UINT64.has(f.name) ? toBigInt(v, false).toString() : `0x${toBigInt(v, false).toString(16)}`;
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return toBigInt(v, true).toString();
    case 'bytes':
      return base64(v);
    default:
      return v as JSONValue;
  }
}

function toDocument(msg: protobuf.Message, type: protobuf.Type): JSONObject {
  const m = msg as unknown as Record<string, unknown>;
  const out: JSONObject = {};
  for (const f of type.fieldsArray) {
    const v = m[f.name];
    if (f.partOf) {
      // one-of members: only the one that is set, named by the one-of
      if (v === null || v === undefined || !Object.prototype.hasOwnProperty.call(m, f.name)) continue;
      out[f.partOf.name] = f.name;
      out[f.name] = scalar(f, v);
    } else if (f.map) {
      const o: JSONObject = {};
      for (const [k, x] of Object.entries((v ?? {}) as Record<string, unknown>)) o[k] = scalar(f, x);
      out[f.name] = o;
    } else if (f.repeated) {
      out[f.name] = ((v ?? []) as unknown[]).map((x) => scalar(f, x));
    } else if (f.resolvedType instanceof protobuf.Type) {
      if (v !== null && v !== undefined) out[f.name] = scalar(f, v);
    } else {
      out[f.name] = scalar(f, v ?? f.typeDefault);
    }
  }
  if (type.name === 'CrashDetail') {
    for (const k of ['name', 'data']) {
      const text = textOf(m[k]);
      if (text !== undefined) out[`${k}_text`] = text;
    }
  }
  return out;
}

function reason(e: unknown): string {
  const msg = (e as Error)?.message ?? String(e);
  if (e instanceof RangeError && /index out of range/.test(msg)) return `truncated: a value runs past the end of the buffer (${msg})`;
  if (/nesting depth/.test(msg)) return `groups nested too deeply (${msg})`;
  if (e instanceof RangeError) return `nested too deeply to decode (${msg})`;
  return msg;
}

/** The input document of a crash report; throws TombstoneError for anything but a Tombstone. */
export function decodeTombstone(buf: Uint8Array): JSONObject {
  const tombstone = tombstoneRoot().lookupType('Tombstone');
  if (buf.byteLength === 0) throw new TombstoneError('the crash report is empty');
  const unknown: UnknownField[] = [];
  let msg: protobuf.Message;
  try {
    scan(protobuf.Reader.create(buf), buf.byteLength, tombstone, '', unknown);
    msg = tombstone.decode(protobuf.Reader.create(buf));
  } catch (e) {
    if (e instanceof TombstoneError) throw e;
    throw new TombstoneError(reason(e));
  }
  let doc: JSONObject;
  try {
    doc = toDocument(msg, tombstone);
  } catch (e) {
    // not expected for anything protobufjs decoded; never a crash of the caller all the same
    throw new TombstoneError(`cannot be converted: ${(e as Error).message}`);
  }
  doc['_unknown_fields'] = unknown as unknown as JSONValue;
  return doc;
}
