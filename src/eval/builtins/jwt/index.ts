// io.jwt.* built-ins, following OPA's topdown/tokens.go: decoding (with nested tokens),
// signature checks per algorithm, decode_verify's constraints, and signing from JWKs.

import { registerBuiltins, type BuiltinImpl } from '../registry.js';
import { builtinError, operandError, withBuiltinErrors } from '../errors.js';
import {
  compareNumbers,
  isNumber,
  isPlainObject,
  newPlainObject,
  objectEntries,
  objectGet,
  RObject,
  toRegoString,
  type PlainObject,
  type Value,
} from '../../../value/index.js';
import {
  JWS_ALGS,
  JwtError,
  base64UrlDecode,
  base64UrlEncode,
  goJsonError,
  keysFromCertOrJwk,
  materializeJwk,
  parseJwkSet,
  signInput,
  verifySignature,
  type VerificationKey,
} from './keys.js';

/** Runs f, turning key/encoding failures into eval_builtin_error. */
const wrap = <R>(f: () => R): R => withBuiltinErrors(JwtError, f);

function stringArg(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v !== 'string') throw operandError(i + 1, 'string', v);
  return v;
}

interface Token {
  header: string;
  payload: string;
  signature: string;
}

function splitToken(v: Value): Token {
  if (typeof v !== 'string') throw operandError(1, 'string', v);
  if (!v.includes('.')) throw builtinError('encoded JWT had no period separators');
  const parts = v.split('.');
  if (parts.length !== 3) throw builtinError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

function decodePart(s: string, what: string): Buffer {
  try {
    return base64UrlDecode(s);
  } catch (e) {
    throw builtinError(`JWT ${what} had invalid encoding: ${(e as Error).message}`);
  }
}

/** OPA's extractJSONObject: JSON text that must be an object (last duplicate key wins). */
function jsonObject(text: string): PlainObject {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw builtinError(goJsonError(text, e));
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw builtinError('decoded JSON type was not an Object');
  return v as PlainObject;
}

function decodeHeader(t: Token): PlainObject {
  const text = decodePart(t.header, 'header').toString('utf8');
  let header: PlainObject;
  try {
    header = jsonObject(text);
  } catch (e) {
    throw builtinError(`bad JWT header: ${(e as Error).message}`);
  }
  // A JWE (encrypted token) has "enc"; only JWS is supported.
  if (Object.hasOwn(header, 'enc')) throw builtinError('JWT is a JWE object, which is not supported');
  return header;
}

function decode(v: Value): Value {
  for (;;) {
    const t = splitToken(v);
    const header = decodeHeader(t);
    const payload = decodePart(t.payload, 'payload').toString('utf8');
    if (header.cty === 'JWT') {
      // A nested token may be quoted (as jwt.io writes it).
      v = payload.replace(/^["']+|["']+$/g, '');
      continue;
    }
    const obj = jsonObject(payload);
    const sig = decodePart(t.signature, 'signature');
    return [header, obj, sig.toString('hex')];
  }
}

/** io.jwt.verify_*: true when any of the keys (by kid first, then by alg) verifies. */
function verifyWith(alg: string, args: Value[]): boolean {
  const t = splitToken(args[0]!);
  const keyText = stringArg(args, 1);
  const sig = decodePart(t.signature, 'signature');
  const input = t.header + '.' + t.payload;
  if (alg.startsWith('HS')) {
    return verifySignature(alg, { kind: 'secret', key: Buffer.from(keyText) }, input, sig);
  }
  const keys = wrap(() => keysFromCertOrJwk(keyText));
  const header = decodeHeader(t);
  const kid = typeof header.kid === 'string' ? header.kid : '';
  const halg = typeof header.alg === 'string' ? header.alg : '';
  if (kid) {
    const k = keys.find((x) => x.kid === kid);
    if (k) return verifySignature(alg, k.material, input, sig);
  }
  for (const k of keys) {
    if (k.alg !== '' && k.alg !== halg) continue;
    if (verifySignature(alg, k.material, input, sig)) return true;
  }
  return false;
}

interface Constraints {
  keys?: VerificationKey[];
  secret?: string;
  alg?: string;
  iss?: string;
  aud?: string;
  time: number;
}

function parseConstraints(v: Value, nowNs: bigint): Constraints {
  if (!isPlainObject(v) && !(v instanceof RObject)) throw operandError(2, 'object', v);
  const c: Constraints = { time: NaN };
  for (const [k, x] of objectEntries(v)) {
    const name = typeof k === 'string' ? k : toRegoString(k);
    const str = (what: string) => {
      if (typeof x !== 'string') throw builtinError(`${what} constraint: must be a string`);
      return x;
    };
    switch (name) {
      case 'cert':
        c.keys = wrap(() => keysFromCertOrJwk(str('cert')));
        break;
      case 'secret':
        c.secret = str('secret');
        break;
      case 'alg':
        c.alg = str('alg');
        break;
      case 'iss':
        c.iss = str('iss');
        break;
      case 'aud':
        c.aud = str('aud');
        break;
      case 'time': {
        if (!isNumber(x)) throw builtinError('time constraint: must be a number');
        const t = typeof x === 'number' ? x : x.toDouble();
        if (t < 0) throw builtinError('time constraint: must not be negative');
        c.time = t;
        break;
      }
      default:
        throw builtinError(`unknown token validation constraint: ${name}`);
    }
  }
  if (Number.isNaN(c.time)) c.time = Number(nowNs);
  const n = (c.keys ? 1 : 0) + (c.secret ? 1 : 0);
  if (n > 1) throw builtinError('duplicate key constraints');
  if (n < 1) throw builtinError('no key constraint');
  return c;
}

const HEADER_STRINGS = new Set(['alg', 'kid', 'typ', 'cty']);

/** Whether the header is acceptable: alg present, every critical parameter understood. */
function headerValid(h: PlainObject): boolean {
  const unknown: string[] = [];
  const crit = new Set<string>();
  for (const k of Object.keys(h)) {
    const v = h[k]!;
    if (HEADER_STRINGS.has(k)) {
      if (typeof v !== 'string') throw builtinError(`invalid JWT header: ${k} must be a string`);
    } else if (k === 'crit') {
      if (!Array.isArray(v)) throw builtinError('invalid JWT header: crit must be an array');
      for (const x of v) {
        if (typeof x !== 'string') throw builtinError('invalid JWT header: crit must be an array of strings');
        crit.add(x);
      }
    } else unknown.push(k);
  }
  if (typeof h.alg !== 'string' || h.alg === '') return false;
  return !unknown.some((u) => crit.has(u));
}

function checkSignature(c: Constraints, header: PlainObject, t: Token, sig: Buffer): boolean {
  const alg = header.alg as string;
  const kid = typeof header.kid === 'string' ? header.kid : '';
  const input = t.header + '.' + t.payload;
  if (!JWS_ALGS.has(alg)) throw builtinError(`unknown JWS algorithm: ${alg}`);
  if (c.keys) {
    if (kid) {
      const k = c.keys.find((x) => x.kid === kid);
      if (k) return verifySignature(alg, k.material, input, sig);
    }
    for (const k of c.keys) {
      if (k.alg !== '' && k.alg !== alg) continue;
      if (verifySignature(alg, k.material, input, sig)) return true;
    }
    return false;
  }
  return verifySignature(alg, { kind: 'secret', key: Buffer.from(c.secret!) }, input, sig);
}

function decodeVerify(args: Value[], nowNs: bigint): Value {
  const unverified: Value = [false, newPlainObject(), newPlainObject()];
  const c = parseConstraints(args[1]!, nowNs);
  let v: Value = args[0]!;
  let header: PlainObject;
  let payloadText: string;
  for (;;) {
    const t = splitToken(v);
    header = decodeHeader(t);
    if (!headerValid(header)) return unverified;
    if (c.alg && c.alg !== header.alg) return unverified;
    const sig = decodePart(t.signature, 'signature');
    if (!checkSignature(c, header, t, sig)) return unverified;
    payloadText = decodePart(t.payload, 'payload').toString('utf8');
    if (typeof header.cty === 'string' && header.cty.toUpperCase() === 'JWT') {
      v = payloadText;
      continue;
    }
    break;
  }
  const payload = jsonObject(payloadText);
  if (c.iss) {
    if (payload.iss !== c.iss) return unverified;
  }
  const aud = objectGet(payload, 'aud');
  if (aud !== undefined) {
    if (!validAudience(c.aud, aud)) return unverified;
  } else if (c.aud) return unverified;
  const nowSec = c.time / 1e9;
  const exp = objectGet(payload, 'exp');
  if (exp !== undefined) {
    if (!isNumber(exp)) throw builtinError('exp value must be a number');
    if (compareNumbers(nowSec, exp) !== -1) return unverified;
  }
  const nbf = objectGet(payload, 'nbf');
  if (nbf !== undefined) {
    if (!isNumber(nbf)) throw builtinError('nbf value must be a number');
    if (compareNumbers(nowSec, nbf) === -1) return unverified;
  }
  return [true, header, payload];
}

function validAudience(want: string | undefined, aud: Value): boolean {
  if (!want) return false;
  if (typeof aud === 'string') return aud === want;
  if (Array.isArray(aud)) return aud.some((a) => a === want);
  return false;
}

/** OPA's commonBuiltinJWTEncodeSign: header text is signed as given. */
function encodeSign(headerText: string, payloadText: string, keyText: string): string {
  const jwks = wrap(() => parseJwkSet(keyText));
  if (jwks.length === 0) throw builtinError('failed to parse a JWK key (set): no keys');
  const material = wrap(() => materializeJwk(jwks[0]!));
  let header: unknown;
  try {
    header = JSON.parse(headerText);
  } catch (e) {
    throw builtinError(goJsonError(headerText, e));
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw builtinError('json: cannot unmarshal into Go value of type jws.StandardHeaders');
  }
  const h = header as Record<string, unknown>;
  const alg = h.alg;
  if (alg !== undefined && typeof alg !== 'string') throw builtinError('json: cannot unmarshal alg');
  if (typeof alg === 'string' && alg !== '' && alg !== 'none' && !JWS_ALGS.has(alg)) {
    throw builtinError('unknown signature algorithm');
  }
  const typ = typeof h.typ === 'string' ? h.typ : '';
  if (typ === '' || typ === 'JWT') {
    try {
      JSON.parse(payloadText);
    } catch {
      throw builtinError('type is JWT but payload is not JSON');
    }
  }
  if (!alg || alg === 'none') throw builtinError('unsupported signature algorithm');
  const input = base64UrlEncode(headerText) + '.' + base64UrlEncode(payloadText);
  const sig = wrap(() => signInput(alg as string, material, input));
  return input + '.' + base64UrlEncode(sig);
}

function objectArg(args: Value[], i: number): Value {
  const v = args[i]!;
  if (!isPlainObject(v) && !(v instanceof RObject)) throw operandError(i + 1, 'object', v);
  return v;
}

function verifier(alg: string): BuiltinImpl {
  return {
    name: `io.jwt.verify_${alg.toLowerCase()}`,
    fn: (args) => verifyWith(alg, args),
  };
}

const defs: BuiltinImpl[] = [
  {
    name: 'io.jwt.decode',
    fn: (args) => decode(args[0]!),
  },
  {
    name: 'io.jwt.decode_verify',
    impure: true,
    fn: (args, ctx) => decodeVerify(args, ctx.now()),
  },
  {
    name: 'io.jwt.encode_sign',
    fn: (args) => {
      const h = objectArg(args, 0);
      const p = objectArg(args, 1);
      const k = objectArg(args, 2);
      return encodeSign(toRegoString(h), toRegoString(p), toRegoString(k));
    },
  },
  {
    name: 'io.jwt.encode_sign_raw',
    fn: (args) => encodeSign(stringArg(args, 0), stringArg(args, 1), stringArg(args, 2)),
  },
  ...['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512'].map(
    verifier,
  ),
  { ...verifier('EdDSA'), name: 'io.jwt.verify_eddsa' },
];

registerBuiltins(defs);
