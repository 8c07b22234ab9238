// X.509 certificates and CSRs laid out as Go's x509.Certificate / x509.CertificateRequest
// marshal to JSON (what OPA returns): field names, enums, base64 []byte, RFC 3339 times.

import crypto from 'node:crypto';
import { makeNumber, newPlainObject, type PlainObject, type Value } from '../../../value/index.js';
import { Asn1Error, bigint, keyUsageBits, oid, parseDer, str, time, type Node } from './asn1.js';

const b64 = (b: Buffer): string => b.toString('base64');
const num = (b: bigint): Value => makeNumber(b, 0);

const SIG_ALGS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1, '1.2.840.113549.1.1.4': 2, '1.2.840.113549.1.1.5': 3, '1.2.840.113549.1.1.11': 4,
  '1.2.840.113549.1.1.12': 5, '1.2.840.113549.1.1.13': 6, '1.2.840.10040.4.3': 7, '2.16.840.1.101.3.4.3.2': 8,
  '1.2.840.10045.4.1': 9, '1.2.840.10045.4.3.2': 10, '1.2.840.10045.4.3.3': 11, '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16,
};
const PSS_HASH: Record<string, number> = { '2.16.840.1.101.3.4.2.1': 13, '2.16.840.1.101.3.4.2.2': 14, '2.16.840.1.101.3.4.2.3': 15 };
const PK_ALGS: Record<string, number> = { '1.2.840.113549.1.1.1': 1, '1.2.840.10040.4.1': 2, '1.2.840.10045.2.1': 3, '1.3.101.112': 4 };
const EXT_KEY_USAGE: Record<string, number> = {
  '2.5.29.37.0': 0, '1.3.6.1.5.5.7.3.1': 1, '1.3.6.1.5.5.7.3.2': 2, '1.3.6.1.5.5.7.3.3': 3, '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5, '1.3.6.1.5.5.7.3.6': 6, '1.3.6.1.5.5.7.3.7': 7, '1.3.6.1.5.5.7.3.8': 8, '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10, '2.16.840.1.113730.4.1': 11, '1.3.6.1.4.1.311.2.1.22': 12, '1.3.6.1.4.1.311.61.1.1': 13,
};

function sigAlg(alg: Node): number {
  const id = oid(alg.children[0]!).join('.');
  if (id === '1.2.840.113549.1.1.10') {
    // RSASSA-PSS: the hash is inside the parameters.
    const hashOid = alg.children[1]?.children[0]?.children[0]?.children[0];
    return hashOid ? PSS_HASH[oid(hashOid).join('.')] ?? 0 : 0;
  }
  return SIG_ALGS[id] ?? 0;
}

const NAME_FIELDS: Record<string, string> = {
  '2.5.4.6': 'Country', '2.5.4.10': 'Organization', '2.5.4.11': 'OrganizationalUnit', '2.5.4.7': 'Locality',
  '2.5.4.8': 'Province', '2.5.4.9': 'StreetAddress', '2.5.4.17': 'PostalCode',
};

/** pkix.Name as Go fills it from an RDNSequence. */
function pkixName(n: Node): PlainObject {
  const o = newPlainObject();
  const lists: Record<string, string[]> = {};
  let serial = '';
  let cn = '';
  const names: Value[] = [];
  for (const rdn of n.children) {
    for (const atv of rdn.children) {
      const type = oid(atv.children[0]!);
      const value = str(atv.children[1]!);
      const t = newPlainObject();
      t.Type = type;
      t.Value = value;
      names.push(t);
      const id = type.join('.');
      if (id === '2.5.4.3') cn = value;
      else if (id === '2.5.4.5') serial = value;
      else if (NAME_FIELDS[id]) (lists[NAME_FIELDS[id]!] ??= []).push(value);
    }
  }
  for (const f of ['Country', 'Organization', 'OrganizationalUnit', 'Locality', 'Province', 'StreetAddress', 'PostalCode']) {
    o[f] = lists[f] ?? null;
  }
  o.SerialNumber = serial;
  o.CommonName = cn;
  o.Names = names;
  o.ExtraNames = null;
  return o;
}

/** The certificate's public key as Go marshals it (keyGoJSON); null for a key Node cannot read. */
function publicKeyJSON(spki: Node): Value {
  try {
    return keyGoJSON(crypto.createPublicKey({ key: spki.raw, format: 'der', type: 'spki' }));
  } catch {
    return null; // unknown key types marshal as null
  }
}

function urlJSON(u: string): Value {
  const o = newPlainObject();
  let parsed: URL | undefined;
  try {
    parsed = new URL(u);
  } catch {
    parsed = undefined;
  }
  o.Scheme = parsed ? parsed.protocol.replace(/:$/, '') : '';
  o.Opaque = '';
  o.User = null;
  o.Host = parsed ? parsed.host : '';
  o.Path = parsed ? (parsed.pathname === '/' && !u.endsWith('/') ? '' : decodeURIComponent(parsed.pathname)) : u;
  o.RawPath = '';
  o.OmitHost = false;
  o.ForceQuery = false;
  o.RawQuery = parsed ? parsed.search.replace(/^\?/, '') : '';
  o.Fragment = parsed ? decodeURIComponent(parsed.hash.replace(/^#/, '')) : '';
  o.RawFragment = '';
  return o;
}

function ipText(b: Buffer): string {
  if (b.length === 4) return [...b].join('.');
  const groups: string[] = [];
  for (let i = 0; i < b.length; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

interface SanFields {
  DNSNames: string[] | null;
  EmailAddresses: string[] | null;
  IPAddresses: string[] | null;
  URIs: Value[] | null;
}

function subjectAltNames(ext: Node, out: SanFields): void {
  for (const gn of ext.children) {
    if (gn.cls !== 2) continue;
    const text = gn.content.toString('latin1');
    if (gn.tag === 1) (out.EmailAddresses ??= []).push(text);
    else if (gn.tag === 2) (out.DNSNames ??= []).push(text);
    else if (gn.tag === 6) (out.URIs ??= []).push(urlJSON(text));
    else if (gn.tag === 7) (out.IPAddresses ??= []).push(ipText(gn.content));
  }
}

/** Fills the extension-derived fields of a certificate object. */
function applyExtensions(o: PlainObject, exts: Node[]): void {
  const san: SanFields = { DNSNames: null, EmailAddresses: null, IPAddresses: null, URIs: null };
  const list: Value[] = [];
  let unhandled: Value[] | null = null;
  o.KeyUsage = 0;
  o.ExtKeyUsage = null;
  o.BasicConstraintsValid = false;
  o.IsCA = false;
  o.MaxPathLen = 0;
  o.MaxPathLenZero = false;
  o.SubjectKeyId = null;
  o.AuthorityKeyId = null;
  o.OCSPServer = null;
  o.IssuingCertificateURL = null;
  o.CRLDistributionPoints = null;
  for (const e of exts) {
    const id = oid(e.children[0]!);
    const critical = e.children.length === 3 && e.children[1]!.content[0] !== 0;
    const valueNode = e.children[e.children.length - 1]!;
    const x = newPlainObject();
    x.Id = id;
    x.Critical = critical;
    x.Value = b64(valueNode.content);
    list.push(x);
    const inner = parseDer(valueNode.content).node;
    switch (id.join('.')) {
      case '2.5.29.15':
        o.KeyUsage = keyUsageBits(inner);
        break;
      case '2.5.29.19': {
        o.BasicConstraintsValid = true;
        let i = 0;
        if (inner.children[0]?.tag === 1) o.IsCA = inner.children[i++]!.content[0] !== 0;
        const pl = inner.children[i];
        if (pl && pl.tag === 2) {
          o.MaxPathLen = Number(bigint(pl));
          o.MaxPathLenZero = o.MaxPathLen === 0;
        } else o.MaxPathLen = -1;
        break;
      }
      case '2.5.29.17':
        subjectAltNames(inner, san);
        break;
      case '2.5.29.37':
        o.ExtKeyUsage = inner.children.map((u) => EXT_KEY_USAGE[oid(u).join('.')] ?? 0);
        break;
      case '2.5.29.14':
        o.SubjectKeyId = b64(inner.content);
        break;
      case '2.5.29.35': {
        const kid = inner.children.find((c) => c.cls === 2 && c.tag === 0);
        if (kid) o.AuthorityKeyId = b64(kid.content);
        break;
      }
      case '1.3.6.1.5.5.7.1.1':
        for (const ad of inner.children) {
          const method = oid(ad.children[0]!).join('.');
          const loc = ad.children[1]!;
          if (loc.cls !== 2 || loc.tag !== 6) continue;
          const url = loc.content.toString('latin1');
          if (method === '1.3.6.1.5.5.7.48.1') ((o.OCSPServer as string[] | null) ?? (o.OCSPServer = [])).push(url);
          if (method === '1.3.6.1.5.5.7.48.2') ((o.IssuingCertificateURL as string[] | null) ?? (o.IssuingCertificateURL = [])).push(url);
        }
        break;
      default:
        if (critical) (unhandled ??= []).push(id);
    }
  }
  o.Extensions = list.length ? list : null;
  o.ExtraExtensions = null;
  o.UnhandledCriticalExtensions = unhandled;
  o.UnknownExtKeyUsage = null;
  Object.assign(o, san);
}

/** x509.ParseCertificate, marshalled as Go's encoding/json would. */
export function certificateJSON(der: Buffer): PlainObject {
  try {
    const { node: cert, end } = parseDer(der);
    if (end !== der.length) throw new Asn1Error('x509: trailing data');
    const [tbs, alg, sig] = cert.children;
    if (!tbs || !alg || !sig) throw new Asn1Error('x509: malformed certificate');
    let i = 0;
    let version = 1;
    if (tbs.children[0]!.cls === 2 && tbs.children[0]!.tag === 0) version = Number(bigint(tbs.children[i++]!.children[0]!)) + 1;
    const serial = tbs.children[i++]!;
    i++; // inner signature algorithm
    const issuer = tbs.children[i++]!;
    const validity = tbs.children[i++]!;
    const subject = tbs.children[i++]!;
    const spki = tbs.children[i++]!;
    const extWrap = tbs.children.slice(i).find((c) => c.cls === 2 && c.tag === 3);
    const o = newPlainObject();
    o.Raw = b64(cert.raw);
    o.RawTBSCertificate = b64(tbs.raw);
    o.RawSubjectPublicKeyInfo = b64(spki.raw);
    o.RawSubject = b64(subject.raw);
    o.RawIssuer = b64(issuer.raw);
    o.Signature = b64(sig.content.subarray(1));
    o.SignatureAlgorithm = sigAlg(alg);
    o.PublicKeyAlgorithm = PK_ALGS[oid(spki.children[0]!.children[0]!).join('.')] ?? 0;
    o.PublicKey = publicKeyJSON(spki);
    o.Version = version;
    o.SerialNumber = num(bigint(serial));
    o.Issuer = pkixName(issuer);
    o.Subject = pkixName(subject);
    o.NotBefore = time(validity.children[0]!);
    o.NotAfter = time(validity.children[1]!);
    applyExtensions(o, extWrap?.children[0]?.children ?? []);
    o.PermittedDNSDomainsCritical = false;
    for (const k of ['PermittedDNSDomains', 'ExcludedDNSDomains', 'PermittedIPRanges', 'ExcludedIPRanges',
      'PermittedEmailAddresses', 'ExcludedEmailAddresses', 'PermittedURIDomains', 'ExcludedURIDomains', 'PolicyIdentifiers', 'Policies']) {
      o[k] = null;
    }
    return o;
  } catch (e) {
    if (e instanceof Asn1Error) throw e;
    throw new Asn1Error('x509: malformed certificate');
  }
}

/** x509.ParseCertificateRequest, marshalled as Go's encoding/json would. */
export function certificateRequestJSON(der: Buffer): PlainObject {
  try {
    const csr = parseDer(der).node;
    const [info, alg, sig] = csr.children;
    if (!info || !alg || !sig) throw new Asn1Error('x509: malformed certificate request');
    const [ver, subject, spki, attrs] = info.children;
    const o = newPlainObject();
    o.Raw = b64(csr.raw);
    o.RawTBSCertificateRequest = b64(info.raw);
    o.RawSubjectPublicKeyInfo = b64(spki!.raw);
    o.RawSubject = b64(subject!.raw);
    o.Version = Number(bigint(ver!));
    o.Signature = b64(sig.content.subarray(1));
    o.SignatureAlgorithm = sigAlg(alg);
    o.PublicKeyAlgorithm = PK_ALGS[oid(spki!.children[0]!.children[0]!).join('.')] ?? 0;
    o.PublicKey = publicKeyJSON(spki!);
    o.Subject = pkixName(subject!);
    const exts: Node[] = [];
    const attributes: Value[] = [];
    for (const a of attrs?.children ?? []) {
      const type = oid(a.children[0]!);
      if (type.join('.') === '1.2.840.113549.1.9.14') exts.push(...(a.children[1]?.children[0]?.children ?? []));
      const at = newPlainObject();
      at.Type = type;
      at.Value = [];
      attributes.push(at);
    }
    o.Attributes = attributes.length ? attributes : null;
    const tmp = newPlainObject();
    applyExtensions(tmp, exts);
    o.Extensions = tmp.Extensions!;
    o.ExtraExtensions = null;
    o.DNSNames = tmp.DNSNames!;
    o.EmailAddresses = tmp.EmailAddresses!;
    o.IPAddresses = tmp.IPAddresses!;
    o.URIs = tmp.URIs!;
    return o;
  } catch (e) {
    if (e instanceof Asn1Error) throw e;
    throw new Asn1Error('x509: malformed certificate request');
  }
}

/**
 * A public or private key as Go's key structs marshal to JSON (rsa, ecdsa, ed25519): RSA {N, E}, ECDSA {Curve, X, Y}, Ed25519 its
 * bytes; a private key adds D (RSA also Primes and Precomputed) and Ed25519's seed goes
 * before the public bytes. Other key types: null.
 */
export function keyGoJSON(key: crypto.KeyObject): Value {
  const jwk = key.export({ format: 'jwk' });
  const priv = key.type === 'private';
  const int = (s?: string) => (s ? num(BigInt('0x' + Buffer.from(s, 'base64url').toString('hex'))) : null);
  const o = newPlainObject();
  if (jwk.kty === 'RSA') {
    o.N = int(jwk.n);
    o.E = int(jwk.e);
    if (priv) {
      o.D = int(jwk.d);
      o.Primes = [int(jwk.p), int(jwk.q)];
      const pre = newPlainObject();
      pre.Dp = int(jwk.dp);
      pre.Dq = int(jwk.dq);
      pre.Qinv = int(jwk.qi);
      pre.CRTValues = [];
      o.Precomputed = pre;
    }
    return o;
  }
  if (jwk.kty === 'EC') {
    o.Curve = newPlainObject();
    o.X = int(jwk.x);
    o.Y = int(jwk.y);
    if (priv) o.D = int(jwk.d);
    return o;
  }
  if (jwk.kty === 'OKP' && jwk.x) {
    const pub = Buffer.from(jwk.x, 'base64url');
    if (!priv) return b64(pub);
    return jwk.d ? b64(Buffer.concat([Buffer.from(jwk.d, 'base64url'), pub])) : null;
  }
  return null;
}
