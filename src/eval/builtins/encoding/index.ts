// Encoding built-ins: base64 / base64url (Go's strict decoders and their error texts),
// hex, URL query encoding, and URI parsing.

import { RSet, isPlainObject, newPlainObject, sortedKeys, type Value } from '../../../value/index.js';
import { builtinError, operandError, withBuiltinErrors } from '../errors.js';
import { URLError, parseQuery, parseURL, queryEscape, queryUnescape, splitHostPort } from './url.js';
import { registerBuiltins, type BuiltinImpl } from '../registry.js';
import { str } from '../args.js';
const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

class CorruptInput extends Error {
  constructor(at: number) {
    super(`illegal base64 data at input byte ${at}`);
  }
}

/** Go's base64 Encoding.DecodeString (padded; \r and \n are ignored). */
function base64Decode(s: string, alphabet: string): string {
  const src = Buffer.from(s, 'utf8');
  const table = new Map<number, number>();
  for (let i = 0; i < alphabet.length; i++) table.set(alphabet.charCodeAt(i), i);
  const out: number[] = [];
  let si = 0;
  const n = src.length;
  const skipNewlines = () => {
    while (si < n && (src[si] === 10 || src[si] === 13)) si++;
  };
  for (;;) {
    const d: number[] = [];
    let j = 0;
    let done = false;
    while (j < 4) {
      if (si === n) {
        if (j === 0) return Buffer.from(out).toString('utf8');
        throw new CorruptInput(si - j);
      }
      const c = src[si++]!;
      if (c === 10 || c === 13) continue;
      const v = table.get(c);
      if (v !== undefined) {
        d[j++] = v;
        continue;
      }
      if (c !== 0x3d) throw new CorruptInput(si - 1);
      // Padding: "==" after two characters, "=" after three, then only newlines.
      if (j < 2) throw new CorruptInput(si - 1);
      if (j === 2) {
        skipNewlines();
        if (si === n) throw new CorruptInput(n);
        if (src[si] !== 0x3d) throw new CorruptInput(si - 1);
        si++;
      }
      skipNewlines();
      if (si < n) throw new CorruptInput(si);
      done = true;
      break;
    }
    const v = ((d[0] ?? 0) << 18) | ((d[1] ?? 0) << 12) | ((d[2] ?? 0) << 6) | (d[3] ?? 0);
    out.push((v >> 16) & 0xff);
    if (j >= 3) out.push((v >> 8) & 0xff);
    if (j >= 4) out.push(v & 0xff);
    if (done) return Buffer.from(out).toString('utf8');
  }
}

function decodeOrError(s: string, alphabet: string): string {
  try {
    return base64Decode(s, alphabet);
  } catch (e) {
    if (e instanceof CorruptInput) throw builtinError(e.message);
    throw e;
  }
}

/** Go's hex.DecodeString with its error texts. */
function hexDecode(s: string): string {
  const src = Buffer.from(s, 'utf8');
  const val = (b: number): number => {
    if (b >= 0x30 && b <= 0x39) return b - 0x30;
    if (b >= 0x61 && b <= 0x66) return b - 0x57;
    if (b >= 0x41 && b <= 0x46) return b - 0x37;
    return -1;
  };
  const invalid = (b: number) => {
    const ch = b < 0x80 ? String.fromCharCode(b) : '\ufffd';
    return builtinError(`encoding/hex: invalid byte: U+${b.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(ch).replace(/^"|"$/g, "'")}`);
  };
  const out: number[] = [];
  let j = 1;
  for (; j < src.length; j += 2) {
    const a = val(src[j - 1]!);
    const b = val(src[j]!);
    if (a < 0) throw invalid(src[j - 1]!);
    if (b < 0) throw invalid(src[j]!);
    out.push((a << 4) | b);
  }
  if (src.length % 2 === 1) {
    if (val(src[j - 1]!) < 0) throw invalid(src[j - 1]!);
    throw builtinError('encoding/hex: odd length hex string');
  }
  return Buffer.from(out).toString('utf8');
}

const wrapURL = <T>(f: () => T): T => withBuiltinErrors(URLError, f);

const defs: BuiltinImpl[] = [
  { name: 'base64.encode', fn: (a) => Buffer.from(str(a, 0), 'utf8').toString('base64') },
  { name: 'base64.decode', fn: (a) => decodeOrError(str(a, 0), STD) },
  {
    name: 'base64.is_valid',
    fn: (a) => {
      try {
        base64Decode(str(a, 0), STD);
        return true;
      } catch (e) {
        if (e instanceof CorruptInput) return false;
        throw e;
      }
    },
  },
  { name: 'base64url.encode', fn: (a) => toURLAlphabet(Buffer.from(str(a, 0), 'utf8').toString('base64')) },
  { name: 'base64url.encode_no_pad', fn: (a) => Buffer.from(str(a, 0), 'utf8').toString('base64url') },
  {
    name: 'base64url.decode',
    fn: (a) => {
      let s = str(a, 0);
      // Unpadded input is padded first (RFC 7515 Appendix C), as OPA does.
      if (!s.endsWith('=')) {
        const r = Buffer.byteLength(s) % 4;
        if (r === 2) s += '==';
        else if (r === 3) s += '=';
        else if (r === 1) throw builtinError(`illegal base64url string: ${s}`);
      }
      return decodeOrError(s, URL_SAFE);
    },
  },
  { name: 'hex.encode', fn: (a) => Buffer.from(str(a, 0), 'utf8').toString('hex') },
  { name: 'hex.decode', fn: (a) => hexDecode(str(a, 0)) },
  { name: 'urlquery.encode', fn: (a) => queryEscape(str(a, 0)) },
  { name: 'urlquery.decode', fn: (a) => wrapURL(() => queryUnescape(str(a, 0))) },
  {
    name: 'urlquery.encode_object',
    fn: (a) => {
      const o = a[0]!;
      if (!isPlainObject(o)) {
        if (o !== null && typeof o === 'object' && !Array.isArray(o) && !(o instanceof RSet) && !('mant' in o))
          throw builtinError('encode_object: keys must be strings');
        throw operandError(1, 'object', o);
      }
      const parts: string[] = [];
      for (const k of sortedKeys(o)) {
        const v = o[k]!;
        let vals: Value[];
        if (typeof v === 'string') vals = [v];
        else if (Array.isArray(v)) vals = v;
        else if (v instanceof RSet) vals = v.values();
        else throw builtinError('encode_object: values must be string, array[string], or set[string]');
        for (const x of vals) {
          if (typeof x !== 'string') throw builtinError('encode_object: values must be string, array[string], or set[string]');
          parts.push(queryEscape(k) + '=' + queryEscape(x));
        }
      }
      return parts.join('&');
    },
  },
  {
    name: 'urlquery.decode_object',
    fn: (a) => {
      const q = wrapURL(() => parseQuery(str(a, 0)));
      const out = newPlainObject();
      for (const [k, v] of q) out[k] = v;
      return out;
    },
  },
  {
    name: 'uri.is_valid',
    fn: (a) => {
      const s = a[0];
      if (typeof s !== 'string' || s === '') return false;
      try {
        parseURL(s);
        return true;
      } catch (e) {
        if (e instanceof URLError) return false;
        throw e;
      }
    },
  },
  {
    name: 'uri.parse',
    fn: (a) => {
      const u = wrapURL(() => parseURL(str(a, 0)));
      const out = newPlainObject();
      const { hostname, port } = splitHostPort(u.host);
      if (u.scheme) out.scheme = u.scheme;
      if (hostname) out.hostname = hostname;
      if (port) out.port = port;
      const path = u.opaque ? '' : u.path;
      if (path) {
        out.path = path;
        out.raw_path = u.rawPath || path;
      }
      if (u.rawQuery) out.raw_query = u.rawQuery;
      if (u.fragment) out.fragment = u.fragment;
      return out;
    },
  },
];

function toURLAlphabet(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_');
}

registerBuiltins(defs);
