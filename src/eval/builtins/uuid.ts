// uuid.rfc4122 (a random version-4 UUID, one per argument per query) and uuid.parse
// (the fields OPA decodes with google/uuid).

import { randomBytes } from 'node:crypto';
import { newPlainObject, type Value } from '../../value/index.js';
import { intToNumber } from './arithmetic/bigfloat.js';
import { operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

function hex(b: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += b[i]!.toString(16).padStart(2, '0');
  return s;
}

function newUUID(): string {
  const b = randomBytes(16);
  b[8] = (b[8]! & ~0xc0) | 0x80;
  b[6] = (b[6]! & ~0xf0) | 0x40;
  return `${hex(b, 0, 4)}-${hex(b, 4, 6)}-${hex(b, 6, 8)}-${hex(b, 8, 10)}-${hex(b, 10, 16)}`;
}

// One answer per query and argument comes from the registry's nd-cache wrapper.
function rfc4122(args: Value[]): Value {
  if (typeof args[0] !== 'string') throw operandError(1, 'string', args[0]!);
  return newUUID();
}

function xtob(s: Uint8Array, i: number): number | undefined {
  const h = (c: number) =>
    c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
  const a = h(s[i]!);
  const b = h(s[i + 1]!);
  return a < 0 || b < 0 ? undefined : (a << 4) | b;
}

const DASHED_OFFSETS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** google/uuid Parse: dashed (36), urn:uuid: (45), braced (38, braces unchecked), or 32 hex digits. */
function parseUUIDBytes(str: string): Uint8Array | undefined {
  let s = Buffer.from(str, 'utf8');
  const out = new Uint8Array(16);
  switch (s.length) {
    case 36:
      break;
    case 45:
      if (s.subarray(0, 9).toString('latin1').toLowerCase() !== 'urn:uuid:') return undefined;
      s = s.subarray(9);
      break;
    case 38:
      s = s.subarray(1);
      break;
    case 32:
      for (let i = 0; i < 16; i++) {
        const v = xtob(s, i * 2);
        if (v === undefined) return undefined;
        out[i] = v;
      }
      return out;
    default:
      return undefined;
  }
  if (s[8] !== 45 || s[13] !== 45 || s[18] !== 45 || s[23] !== 45) return undefined;
  for (let i = 0; i < 16; i++) {
    const v = xtob(s, DASHED_OFFSETS[i]!);
    if (v === undefined) return undefined;
    out[i] = v;
  }
  return out;
}

function variantName(b8: number): string {
  if ((b8 & 0xc0) === 0x80) return 'RFC4122';
  if ((b8 & 0xe0) === 0xc0) return 'Microsoft';
  if ((b8 & 0xe0) === 0xe0) return 'Future';
  return 'Reserved';
}

function macVars(b: number): string {
  if ((b & 0b11) === 0b11) return 'local:multicast';
  if ((b & 0b01) === 0b01) return 'global:multicast';
  if ((b & 0b10) === 0b10) return 'local:unicast';
  return 'global:unicast';
}

const GREGORIAN_OFFSET = 122192928000000000n; // 100ns intervals from 1582-10-15 to 1970-01-01

function parse(args: Value[]): Value | undefined {
  const a = args[0]!;
  if (typeof a !== 'string') throw operandError(1, 'string', a);
  const u = parseUUIDBytes(a);
  if (!u) return undefined;
  const out = newPlainObject();
  const version = u[6]! >> 4;
  out.version = version;
  out.variant = variantName(u[8]!);
  if (version === 1 || version === 2) {
    const be = (i: number, n: number) => {
      let v = 0n;
      for (let k = 0; k < n; k++) v = (v << 8n) | BigInt(u[i + k]!);
      return v;
    };
    const t = be(0, 4) | (be(4, 2) << 32n) | ((be(6, 2) & 0xfffn) << 48n);
    const since = t - GREGORIAN_OFFSET;
    // Go: sec*1e9 + nsec in int64 (wrapping as Go's arithmetic does).
    const sec = since / 10000000n;
    const nsec = (since % 10000000n) * 100n;
    out.time = intToNumber(BigInt.asIntN(64, sec * 1000000000n + nsec));
    const node = u.subarray(10, 16);
    out.nodeid = Array.from(node, (x) => x.toString(16).padStart(2, '0')).join('-');
    out.macvariables = macVars(node[0]!);
    out.clocksequence = Number(be(8, 2) & 0x3fffn);
    if (version === 2) {
      out.id = Number(be(0, 4));
      const d = u[9]!;
      out.domain = d === 0 ? 'Person' : d === 1 ? 'Group' : d === 2 ? 'Org' : `Domain${d}`;
    }
  }
  return out;
}

registerBuiltins([
  {
    name: 'uuid.rfc4122',
    fn: rfc4122,
    impure: true,
  },
  { name: 'uuid.parse', fn: parse },
]);
