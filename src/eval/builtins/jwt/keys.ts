// Key handling for the JWT built-ins: Go-compatible base64url decoding, PEM certificates
// and public keys, JWK / JWK sets, and the synchronous sign/verify primitives of each JWS
// algorithm (node:crypto; jose's API is asynchronous so it is not used here).

import crypto, { type KeyObject } from 'node:crypto';

export class JwtError extends Error {}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64URL_INDEX = new Map([...B64URL].map((c, i) => [c, i]));

/**
 * Go's base64.URLEncoding.DecodeString after OPA's padding fix-up (RFC 7515 appendix C);
 * errors carry Go's "illegal base64 data at input byte N".
 */
export function base64UrlDecode(s: string): Buffer {
  if (!s.endsWith('=')) {
    switch (s.length % 4) {
      case 1:
        throw new JwtError(`illegal base64url string: ${s}`);
      case 2:
        s += '==';
        break;
      case 3:
        s += '=';
        break;
    }
  }
  const out: number[] = [];
  let acc = 0;
  let nbits = 0;
  let i = 0;
  let quantum = 0; // characters in the current 4-character group
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\r' || c === '\n') continue;
    if (c === '=') break;
    const v = B64URL_INDEX.get(c);
    if (v === undefined) throw new JwtError(`illegal base64 data at input byte ${i}`);
    acc = (acc << 6) | v;
    nbits += 6;
    quantum = (quantum + 1) % 4;
    if (nbits >= 8) {
      nbits -= 8;
      out.push((acc >> nbits) & 0xff);
      acc &= (1 << nbits) - 1;
    }
  }
  if (i < s.length) {
    // Padding: exactly enough '=' to complete the group, then nothing else.
    const pad = s.slice(i).replace(/[\r\n]/g, '');
    const want = quantum === 2 ? 2 : quantum === 3 ? 1 : 0;
    if (want === 0 || pad.length !== want || /[^=]/.test(pad)) {
      throw new JwtError(`illegal base64 data at input byte ${i}`);
    }
  } else if (quantum === 1) {
    throw new JwtError(`illegal base64 data at input byte ${s.length - 1}`);
  }
  return Buffer.from(out);
}

export function base64UrlEncode(b: Buffer | string): string {
  return Buffer.from(b).toString('base64url');
}

export interface PemBlock {
  type: string;
  der: Buffer;
  rest: string;
}

/** Go's pem.Decode: the first block and the text after it (undefined when there is none). */
export function pemDecode(text: string): PemBlock | undefined {
  const m = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----[ \t]*(\r?\n)?/.exec(text);
  if (!m) return undefined;
  // Go skips headers ("Key: value" lines) at the start of the body.
  const body = m[2]!.replace(/^(?:[^\r\n:]+:[^\r\n]*\r?\n)+\r?\n/, '');
  if (/[^A-Za-z0-9+/=\s]/.test(body)) return undefined;
  return { type: m[1]!, der: Buffer.from(body.replace(/\s+/g, ''), 'base64'), rest: text.slice(m.index + m[0].length) };
}

export type KeyMaterial =
  | { kind: 'public'; key: KeyObject }
  | { kind: 'private'; key: KeyObject }
  | { kind: 'secret'; key: Buffer };

export interface VerificationKey {
  alg: string;
  kid: string;
  material: KeyMaterial;
}

type Jwk = Record<string, unknown>;

/** Turns one JWK into key material (lestrrat-go/jwx's Materialize). */
export function materializeJwk(jwk: Jwk): KeyMaterial {
  const kty = jwk.kty;
  if (typeof kty !== 'string') throw new JwtError('failed to parse a JWK key (set): missing "kty" field');
  try {
    switch (kty) {
      case 'oct':
        if (typeof jwk.k !== 'string') throw new JwtError('failed to parse a JWK key (set): missing "k" field');
        return { kind: 'secret', key: base64UrlDecode(jwk.k) };
      case 'RSA':
      case 'EC':
      case 'OKP':
        if (jwk.d !== undefined) return { kind: 'private', key: crypto.createPrivateKey({ key: jwk as crypto.JsonWebKey, format: 'jwk' }) };
        return { kind: 'public', key: crypto.createPublicKey({ key: jwk as crypto.JsonWebKey, format: 'jwk' }) };
      default:
        throw new JwtError(`failed to parse a JWK key (set): invalid key type ${JSON.stringify(kty)}`);
    }
  } catch (e) {
    if (e instanceof JwtError) throw e;
    throw new JwtError(`failed to parse a JWK key (set): ${(e as Error).message}`);
  }
}

/** Parses a JWK or a JWK set ({"keys": [...]}). */
export function parseJwkSet(text: string): Jwk[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new JwtError(`failed to parse a JWK key (set): ${goJsonError(text, e)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new JwtError('failed to parse a JWK key (set): invalid JWK');
  }
  const o = doc as Jwk;
  if (Array.isArray(o.keys)) return o.keys as Jwk[];
  return [o];
}

/** OPA's getKeysFromCertOrJWK. */
export function keysFromCertOrJwk(text: string): VerificationKey[] {
  const block = pemDecode(text);
  if (block) {
    if (block.rest.length > 0) throw new JwtError('extra data after a PEM certificate block');
    if (block.type === 'CERTIFICATE') {
      try {
        const cert = new crypto.X509Certificate(block.der);
        return [{ alg: '', kid: '', material: { kind: 'public', key: cert.publicKey } }];
      } catch (e) {
        throw new JwtError(`failed to parse a PEM certificate: ${(e as Error).message}`);
      }
    }
    if (block.type === 'PUBLIC KEY') {
      try {
        const key = crypto.createPublicKey({ key: block.der, format: 'der', type: 'spki' });
        return [{ alg: '', kid: '', material: { kind: 'public', key } }];
      } catch (e) {
        throw new JwtError(`failed to parse a PEM public key: ${(e as Error).message}`);
      }
    }
    throw new JwtError('failed to extract a Key from the PEM certificate');
  }
  return parseJwkSet(text).map((jwk) => ({
    alg: typeof jwk.alg === 'string' ? jwk.alg : '',
    kid: typeof jwk.kid === 'string' ? jwk.kid : '',
    material: materializeJwk(jwk),
  }));
}

const HASHES: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

export const JWS_ALGS = new Set([
  'HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512',
  'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA',
]);

/** DER SEQUENCE { INTEGER r, INTEGER s } from JWS's r || s (halves, as OPA splits them). */
function rsToDer(sig: Buffer): Buffer {
  const half = sig.length >> 1;
  const int = (b: Buffer) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.subarray(i);
    if (v.length === 0) v = Buffer.from([0]);
    if (v[0]! & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
    return Buffer.concat([Buffer.from([0x02]), derLen(v.length), v]);
  };
  const body = Buffer.concat([int(sig.subarray(0, half)), int(sig.subarray(half))]);
  return Buffer.concat([Buffer.from([0x30]), derLen(body.length), body]);
}

function derLen(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n >>= 8;
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** Verifies a JWS signature; false for any mismatch of key type or algorithm. */
export function verifySignature(alg: string, material: KeyMaterial, input: string, sig: Buffer): boolean {
  const family = alg.slice(0, 2);
  const hash = HASHES[alg.slice(2)];
  const data = Buffer.from(input);
  try {
    if (family === 'HS') {
      if (material.kind !== 'secret' || !hash) return false;
      const mac = crypto.createHmac(hash, material.key).update(data).digest();
      return mac.length === sig.length && crypto.timingSafeEqual(mac, sig);
    }
    if (material.kind !== 'public') return false;
    const key = material.key;
    const type = key.asymmetricKeyType;
    if (alg === 'EdDSA') return type === 'ed25519' && crypto.verify(null, data, key, sig);
    if (!hash) return false;
    if (family === 'RS') {
      return type === 'rsa' && crypto.verify(hash, data, { key, padding: crypto.constants.RSA_PKCS1_PADDING }, sig);
    }
    if (family === 'PS') {
      return (
        (type === 'rsa' || type === 'rsa-pss') &&
        crypto.verify(
          hash,
          data,
          { key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_AUTO },
          sig,
        )
      );
    }
    if (family === 'ES') {
      if (type !== 'ec' || sig.length < 2) return false;
      return crypto.verify(hash, data, { key, dsaEncoding: 'der' }, rsToDer(sig));
    }
  } catch {
    return false;
  }
  return false;
}

/** Signs a JWS input with a JWK's key material. */
export function signInput(alg: string, material: KeyMaterial, input: string): Buffer {
  const family = alg.slice(0, 2);
  const hash = HASHES[alg.slice(2)];
  const data = Buffer.from(input);
  const need = (what: string) => new JwtError(`failed to sign payload: invalid key type: ${what} is required`);
  if (family === 'HS' && hash) {
    if (material.kind !== 'secret') throw need('[]byte');
    return crypto.createHmac(hash, material.key).update(data).digest();
  }
  if (material.kind !== 'private') throw need('a private key');
  const key = material.key;
  const type = key.asymmetricKeyType;
  if (alg === 'EdDSA') {
    if (type !== 'ed25519') throw need('ed25519.PrivateKey');
    return crypto.sign(null, data, key);
  }
  if (!hash) throw new JwtError('unsupported signature algorithm');
  if (family === 'RS' || family === 'PS') {
    if (type !== 'rsa') throw need('*rsa.PrivateKey');
    return family === 'RS'
      ? crypto.sign(hash, data, { key, padding: crypto.constants.RSA_PKCS1_PADDING })
      : crypto.sign(hash, data, {
          key,
          padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
          saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST,
        });
  }
  if (family === 'ES') {
    if (type !== 'ec') throw need('*ecdsa.PrivateKey');
    return crypto.sign(hash, data, { key, dsaEncoding: 'ieee-p1363' });
  }
  throw new JwtError('unsupported signature algorithm');
}

/** A Go encoding/json-style message for a JSON.parse failure (approximate wording). */
export function goJsonError(text: string, e: unknown): string {
  const msg = (e as Error).message ?? '';
  if (text.trim() === '' || /end of (JSON|data)/i.test(msg) || /Unterminated/.test(msg)) return 'unexpected end of JSON input';
  const pos = /position (\d+)/.exec(msg);
  let c: string | undefined;
  if (pos) c = text[Number(pos[1])];
  if (c === undefined) c = /token '?(.)'?/.exec(msg)?.[1];
  if (c === undefined) return 'invalid character';
  if (/after JSON/.test(msg)) return `invalid character '${c}' after top-level value`;
  if (/property name/.test(msg)) return `invalid character '${c}' looking for beginning of object key string`;
  return `invalid character '${c}' looking for beginning of value`;
}
