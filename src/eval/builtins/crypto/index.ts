// crypto.* built-ins: digests and HMACs (node:crypto), and X.509 / private-key parsing in
// the JSON shapes OPA returns (Go's structs marshalled; see crypto-x509.ts).

import crypto from 'node:crypto';
import { registerBuiltins, type BuiltinImpl } from '../registry.js';
import { builtinError, operandError } from '../errors.js';
import { isNumber, isPlainObject, objectEntries, RObject, toDecimal, type PlainObject, type Value } from '../../../value/index.js';
import { pemDecode } from '../jwt/keys.js';
import { certificateJSON, certificateRequestJSON, keyGoJSON } from './x509.js';

function stringArg(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v !== 'string') throw operandError(i + 1, 'string', v);
  return v;
}

const digest = (alg: string) => (args: Value[]) => crypto.createHash(alg).update(stringArg(args, 0)).digest('hex');
const hmac = (alg: string) => (args: Value[]) =>
  crypto.createHmac(alg, stringArg(args, 1)).update(stringArg(args, 0)).digest('hex');

function wrapErr<R>(f: () => R): R {
  try {
    return f();
  } catch (e) {
    if ((e as { code?: string }).code === 'eval_builtin_error' || (e as { code?: string }).code === 'eval_type_error') throw e;
    throw builtinError((e as Error).message);
  }
}

/** Go's base64.StdEncoding.DecodeString (strict alphabet, padding required). */
function stdBase64(s: string): Buffer {
  const clean = s.replace(/[\r\n]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
    const bad = [...s].findIndex((c) => !/[A-Za-z0-9+/=\r\n]/.test(c));
    throw builtinError(`illegal base64 data at input byte ${bad >= 0 ? bad : s.length}`);
  }
  return Buffer.from(clean, 'base64');
}

/** All PEM blocks in order. */
function pemBlocks(text: string): { type: string; der: Buffer }[] {
  const out: { type: string; der: Buffer }[] = [];
  let rest = text;
  for (;;) {
    const b = pemDecode(rest);
    if (!b) return out;
    out.push(b);
    rest = b.rest;
  }
}

/** OPA's getX509CertsFromString: PEM, base64 of PEM, or base64 DER. */
function certsDer(input: string): Buffer[] {
  const fromPem = (text: string) =>
    pemBlocks(text).map((b) => {
      if (b.type !== 'CERTIFICATE') throw builtinError(`PEM block type is '${b.type}', expected CERTIFICATE`);
      return b.der;
    });
  if (input.startsWith('-----BEGIN')) return fromPem(input);
  const raw = stdBase64(input);
  if (raw.subarray(0, 10).toString('latin1') === '-----BEGIN') return fromPem(raw.toString('utf8'));
  // Concatenated DER certificates.
  const out: Buffer[] = [];
  let p = 0;
  while (p < raw.length) {
    if (raw[p] !== 0x30 || p + 2 > raw.length) throw builtinError('x509: malformed certificate');
    let len = raw[p + 1]!;
    let hdr = 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + raw[p + 2 + i]!;
      hdr += n;
    }
    out.push(raw.subarray(p, p + hdr + len));
    p += hdr + len;
  }
  return out;
}

function parseCerts(input: string): { der: Buffer; json: PlainObject }[] {
  return certsDer(input).map((der) => ({ der, json: wrapErr(() => certificateJSON(der)) }));
}

const KEY_USAGES: Record<string, number> = {
  KeyUsageAny: 0, KeyUsageServerAuth: 1, KeyUsageClientAuth: 2, KeyUsageCodeSigning: 3, KeyUsageEmailProtection: 4,
  KeyUsageIPSECEndSystem: 5, KeyUsageIPSECTunnel: 6, KeyUsageIPSECUser: 7, KeyUsageTimeStamping: 8,
  KeyUsageOCSPSigning: 9, KeyUsageMicrosoftServerGatedCrypto: 10, KeyUsageNetscapeServerGatedCrypto: 11,
  KeyUsageMicrosoftCommercialCodeSigning: 12, KeyUsageMicrosoftKernelCodeSigning: 13,
};

interface VerifyOpts {
  dnsName?: string;
  nowMs: number;
  keyUsages: number[];
}

function verifyOptions(v: Value): VerifyOpts {
  if (!isPlainObject(v) && !(v instanceof RObject)) throw operandError(2, 'object', v);
  const o: VerifyOpts = { nowMs: Date.now(), keyUsages: [1] };
  for (const [k, x] of objectEntries(v)) {
    switch (k) {
      case 'DNSName':
        if (typeof x !== 'string') throw builtinError("'DNSName' should be a string");
        o.dnsName = x;
        break;
      case 'CurrentTime': {
        if (!isNumber(x) || toDecimal(x).exp < 0) throw builtinError("'CurrentTime' should be a valid int64 number");
        o.nowMs = Number(x) / 1e6;
        break;
      }
      case 'MaxConstraintComparisons':
        if (!isNumber(x)) throw builtinError("'MaxConstraintComparisons' should be a valid number");
        break;
      case 'KeyUsages': {
        if (!Array.isArray(x) || x.some((u) => typeof u !== 'string')) throw builtinError("'KeyUsages' should be an Array of Strings");
        const bad = (x as string[]).filter((u) => !(u in KEY_USAGES));
        if (bad.length) throw builtinError(`invalid entries for 'KeyUsages' found: [${bad.join(' ')}]`);
        o.keyUsages = (x as string[]).map((u) => KEY_USAGES[u]!);
        break;
      }
      default:
        throw builtinError('invalid key option');
    }
  }
  return o;
}

/** Go's leaf.Verify with certs[0] as the only root and the middle ones as intermediates. */
function verifyChain(certs: { der: Buffer; json: PlainObject }[], opts: VerifyOpts): Value[] | undefined {
  if (certs.length < 2) return undefined;
  const x = certs.map((c) => new crypto.X509Certificate(c.der));
  const valid = (i: number) => Date.parse(x[i]!.validFrom) <= opts.nowMs && opts.nowMs <= Date.parse(x[i]!.validTo);
  const isCA = (i: number) => certs[i]!.json.BasicConstraintsValid === true && certs[i]!.json.IsCA === true;
  const leaf = certs.length - 1;
  if (opts.dnsName !== undefined) {
    const isIP = /^[\d.]+$|:/.test(opts.dnsName);
    if (!(isIP ? x[leaf]!.checkIP(opts.dnsName) : x[leaf]!.checkHost(opts.dnsName))) return undefined;
  }
  const eku = certs[leaf]!.json.ExtKeyUsage as number[] | null;
  if (eku && !eku.includes(0) && !opts.keyUsages.includes(0) && !opts.keyUsages.some((u) => eku.includes(u))) return undefined;
  const walk = (i: number, seen: Set<number>): number[] | undefined => {
    if (!valid(i)) return undefined;
    for (const j of [0, ...certs.keys()].filter((j, n, a) => a.indexOf(j) === n && j !== leaf && !seen.has(j))) {
      if (!x[i]!.checkIssued(x[j]!) || !x[i]!.verify(x[j]!.publicKey)) continue;
      if (j === 0) {
        if (valid(0) && (isCA(0) || certs[0]!.json.BasicConstraintsValid === false)) return [i, 0];
        continue;
      }
      if (!isCA(j)) continue;
      const rest = walk(j, new Set([...seen, j]));
      if (rest) return [i, ...rest];
    }
    return undefined;
  };
  const chain = leaf === 0 ? undefined : walk(leaf, new Set([leaf]));
  return chain?.map((i) => certs[i]!.json);
}

function parseAndVerify(input: string, opts: VerifyOpts): Value {
  let certs: { der: Buffer; json: PlainObject }[];
  try {
    certs = parseCerts(input);
  } catch {
    return [false, []];
  }
  const chain = verifyChain(certs, opts);
  return chain ? [true, chain] : [false, []];
}

/** PEM text directly, or base64 of PEM/DER (OPA's fallbacks). */
function pemOrBase64(input: string): string | Buffer {
  if (input.startsWith('-----BEGIN')) return input;
  const raw = stdBase64(input);
  return raw.subarray(0, 10).toString('latin1') === '-----BEGIN' ? raw.toString('utf8') : raw;
}

function privateKeyFrom(type: string, der: Buffer): crypto.KeyObject {
  const kind = type === 'RSA PRIVATE KEY' ? 'pkcs1' : type === 'EC PRIVATE KEY' ? 'sec1' : 'pkcs8';
  return crypto.createPrivateKey({ key: der, format: 'der', type: kind as 'pkcs1' });
}

const defs: BuiltinImpl[] = [
  { name: 'crypto.md5', fn: digest('md5') },
  { name: 'crypto.sha1', fn: digest('sha1') },
  { name: 'crypto.sha256', fn: digest('sha256') },
  { name: 'crypto.hmac.md5', fn: hmac('md5') },
  { name: 'crypto.hmac.sha1', fn: hmac('sha1') },
  { name: 'crypto.hmac.sha256', fn: hmac('sha256') },
  { name: 'crypto.hmac.sha512', fn: hmac('sha512') },
  {
    name: 'crypto.hmac.equal',
    fn: (args) => {
      const a = Buffer.from(stringArg(args, 0));
      const b = Buffer.from(stringArg(args, 1));
      return a.length === b.length && crypto.timingSafeEqual(a, b);
    },
  },
  {
    name: 'crypto.x509.parse_certificates',
    fn: (args) => parseCerts(stringArg(args, 0)).map((c) => c.json),
  },
  {
    name: 'crypto.x509.parse_and_verify_certificates',
    fn: (args) => parseAndVerify(stringArg(args, 0), { nowMs: Date.now(), keyUsages: [1] }),
  },
  {
    name: 'crypto.x509.parse_and_verify_certificates_with_options',
    fn: (args) => {
      const input = stringArg(args, 0);
      return parseAndVerify(input, verifyOptions(args[1]!));
    },
  },
  {
    name: 'crypto.x509.parse_certificate_request',
    fn: (args) => {
      const input = stringArg(args, 0);
      const text = input.startsWith('-----BEGIN CERTIFICATE REQUEST-----') ? input : stdBase64(input).toString('latin1');
      const block = pemDecode(text);
      if (!block) throw builtinError('failed to decode PEM block containing certificate request');
      if (block.type !== 'CERTIFICATE REQUEST') throw builtinError('invalid PEM-encoded certificate signing request');
      return wrapErr(() => certificateRequestJSON(block.der));
    },
  },
  {
    name: 'crypto.x509.parse_rsa_private_key',
    fn: (args) => {
      const src = pemOrBase64(stringArg(args, 0));
      const block = typeof src === 'string' ? pemDecode(src) : undefined;
      if (!block) throw builtinError('failed to parse PEM block containing the key');
      const key = wrapErr(() => privateKeyFrom(block.type, block.der));
      if (key.asymmetricKeyType !== 'rsa') throw builtinError('x509: failed to parse private key (not an RSA key)');
      return key.export({ format: 'jwk' }) as unknown as PlainObject;
    },
  },
  {
    name: 'crypto.parse_private_keys',
    fn: (args) => {
      const input = stringArg(args, 0);
      if (input === '') return [];
      const src = pemOrBase64(input);
      if (typeof src !== 'string') return [];
      return pemBlocks(src).map((b) => wrapErr(() => keyGoJSON(privateKeyFrom(b.type, b.der))));
    },
  },
  {
    name: 'crypto.x509.parse_keypair',
    fn: (args) => {
      const certSrc = pemOrBase64(stringArg(args, 0));
      const keySrc = pemOrBase64(stringArg(args, 1));
      const certText = typeof certSrc === 'string' ? certSrc : '';
      const blocks = pemBlocks(certText).filter((b) => b.type === 'CERTIFICATE');
      if (!blocks.length) throw builtinError('tls: failed to find any PEM data in certificate input');
      const kb = typeof keySrc === 'string' ? pemBlocks(keySrc).find((b) => b.type.endsWith('PRIVATE KEY')) : undefined;
      if (!kb) throw builtinError('tls: failed to find any PEM data in key input');
      const key = wrapErr(() => privateKeyFrom(kb.type, kb.der));
      const leaf = new crypto.X509Certificate(blocks[0]!.der);
      if (!leaf.checkPrivateKey(key)) throw builtinError('tls: private key does not match public key');
      return {
        Certificate: blocks.map((b) => b.der.toString('base64')),
        PrivateKey: keyGoJSON(key),
        SupportedSignatureAlgorithms: null,
        OCSPStaple: null,
        SignedCertificateTimestamps: null,
        Leaf: wrapErr(() => certificateJSON(blocks[0]!.der)),
      };
    },
  },
];

registerBuiltins(defs);
