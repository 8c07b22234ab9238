// Authentication as OPA does it: with --authentication=token the bearer token of the
// Authorization header is the identity; with --authentication=tls the verified client
// certificate's subject is, and the chain is input.client_certificates. Authentication only
// identifies: what an identity may do is the authorization policy's decision.

import type { IncomingMessage } from 'node:http';
import type { TLSSocket, PeerCertificate, DetailedPeerCertificate } from 'node:tls';
import type { Value } from '../../value/index.js';

export type AuthenticationMode = 'off' | 'token' | 'tls';

export interface Identity {
  identity?: string;
  clientCertificates?: Value[];
}

function bearer(inc: IncomingMessage): string | undefined {
  const h = inc.headers['authorization'];
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/** RFC 2253-style subject text (CN=alice,O=acme), most specific first as OPA prints it. */
function subject(s: PeerCertificate['subject'] | undefined): string {
  if (!s) return '';
  const order = ['CN', 'OU', 'O', 'L', 'ST', 'C'];
  const parts: string[] = [];
  for (const k of order) {
    const v = (s as unknown as Record<string, string | string[] | undefined>)[k];
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) parts.push(`${k}=${x}`);
  }
  return parts.join(',');
}

function certificate(c: PeerCertificate): Value {
  const out: Record<string, Value> = {
    Subject: { CommonName: (c.subject?.CN as string | undefined) ?? '', Text: subject(c.subject) },
    Issuer: { CommonName: (c.issuer?.CN as string | undefined) ?? '', Text: subject(c.issuer) },
    SerialNumber: c.serialNumber ?? '',
    NotBefore: new Date(c.valid_from).toISOString(),
    NotAfter: new Date(c.valid_to).toISOString(),
  };
  if (c.subjectaltname) {
    const names = c.subjectaltname.split(/,\s*/);
    out['DNSNames'] = names.filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4));
    out['URIs'] = names.filter((n) => n.startsWith('URI:')).map((n) => n.slice(4));
    out['EmailAddresses'] = names.filter((n) => n.startsWith('email:')).map((n) => n.slice(6));
  }
  return out;
}

export function authenticate(mode: AuthenticationMode, inc: IncomingMessage): Identity {
  if (mode === 'token') {
    const t = bearer(inc);
    return t === undefined ? {} : { identity: t };
  }
  if (mode === 'tls') {
    const sock = inc.socket as TLSSocket;
    if (typeof sock.getPeerCertificate !== 'function' || !sock.authorized) return {};
    const leaf = sock.getPeerCertificate(true) as DetailedPeerCertificate;
    if (!leaf || !leaf.subject) return {};
    const chain: Value[] = [];
    const seen = new Set<string>();
    for (let c: DetailedPeerCertificate | undefined = leaf; c && !seen.has(c.fingerprint256); c = c.issuerCertificate) {
      seen.add(c.fingerprint256);
      chain.push(certificate(c));
    }
    return { identity: subject(leaf.subject), clientCertificates: chain };
  }
  return {};
}
