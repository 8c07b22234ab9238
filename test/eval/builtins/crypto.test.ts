import { beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { callBuiltin } from './fake-context.js';
import { BigNum, toJS, type Value } from '../../../src/value/index.js';

const call = (name: string, ...args: Value[]) => callBuiltin(name, args);

describe('digests and HMACs', () => {
  it('match known vectors', () => {
    expect(call('crypto.md5', 'abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(call('crypto.sha1', 'abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(call('crypto.sha256', 'abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(call('crypto.hmac.sha256', 'The quick brown fox jumps over the lazy dog', 'key')).toBe(
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
    expect(call('crypto.hmac.md5', 'The quick brown fox jumps over the lazy dog', 'key')).toBe('80070713463e7749b90c2dc24911e275');
    expect(call('crypto.hmac.sha1', 'The quick brown fox jumps over the lazy dog', 'key')).toBe(
      'de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9',
    );
    expect((call('crypto.hmac.sha512', 'x', 'k') as string).length).toBe(128);
    expect(call('crypto.hmac.equal', 'abc', 'abc')).toBe(true);
    expect(call('crypto.hmac.equal', 'abc', 'abd')).toBe(false);
    expect(() => call('crypto.md5', 1)).toThrow('operand 1 must be string but got number');
  });
});

describe('x509', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regolith-x509-'));
  const f = (n: string) => path.join(dir, n);
  const read = (n: string) => fs.readFileSync(f(n), 'utf8');
  const ssl = (...a: string[]) => execFileSync('openssl', a, { stdio: 'ignore' });
  beforeAll(() => {
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '10',
      '-subj', '/C=US/O=Acme/CN=Acme Root', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign,cRLSign');
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('leaf.key'), '-out', f('leaf.csr'),
      '-subj', '/CN=svc.example.com', '-addext', 'subjectAltName=DNS:svc.example.com,IP:10.0.0.1,email:a@b.c,URI:spiffe://td/ns/x');
    fs.writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:svc.example.com,IP:10.0.0.1\nextendedKeyUsage=serverAuth\n');
    ssl('x509', '-req', '-in', f('leaf.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('leaf.pem'),
      '-days', '5', '-extfile', f('ext.cnf'), '-set_serial', '12345678901234567890');
    ssl('genrsa', '-traditional', '-out', f('rsa.key'), '2048');
  });

  it('parses certificates in the shape of Go x509.Certificate', () => {
    const [leaf] = toJS(call('crypto.x509.parse_certificates', read('leaf.pem'))!) as Record<string, unknown>[];
    expect((leaf!.Subject as Record<string, unknown>).CommonName).toBe('svc.example.com');
    expect((leaf!.Issuer as Record<string, unknown>).Organization).toEqual(['Acme']);
    expect((leaf!.Issuer as Record<string, unknown>).Country).toEqual(['US']);
    expect(leaf!.DNSNames).toEqual(['svc.example.com']);
    expect(leaf!.IPAddresses).toEqual(['10.0.0.1']);
    expect(leaf!.ExtKeyUsage).toEqual([1]);
    expect(leaf!.Version).toBe(3);
    expect(leaf!.PublicKeyAlgorithm).toBe(3);
    expect(leaf!.SignatureAlgorithm).toBe(4);
    expect(leaf!.NotBefore).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const raw = callBuiltin('crypto.x509.parse_certificates', [read('leaf.pem')]) as Record<string, Value>[];
    expect((raw[0]!.SerialNumber as BigNum).text).toBe('12345678901234567890');
    // base64 DER input gives the same certificate.
    const der = Buffer.from(read('leaf.pem').replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64');
    expect((toJS(call('crypto.x509.parse_certificates', der)!) as unknown[]).length).toBe(1);
    const [ca] = toJS(call('crypto.x509.parse_certificates', read('ca.pem'))!) as Record<string, unknown>[];
    expect(ca!.IsCA).toBe(true);
    expect(ca!.BasicConstraintsValid).toBe(true);
    expect(ca!.KeyUsage).toBe(32 + 64);
  });

  it('verifies chains', () => {
    const chain = read('ca.pem') + read('leaf.pem');
    const [ok, certs] = toJS(call('crypto.x509.parse_and_verify_certificates', chain)!) as [boolean, Record<string, unknown>[]];
    expect(ok).toBe(true);
    expect(certs.map((c) => (c.Subject as Record<string, unknown>).CommonName)).toEqual(['svc.example.com', 'Acme Root']);
    expect(toJS(call('crypto.x509.parse_and_verify_certificates', read('leaf.pem') + read('ca.pem'))!)).toEqual([false, []]);
    expect(toJS(call('crypto.x509.parse_and_verify_certificates', read('leaf.pem'))!)).toEqual([false, []]);
    const withOpts = (o: Value) => (toJS(call('crypto.x509.parse_and_verify_certificates_with_options', chain, o)!) as unknown[])[0];
    expect(withOpts({ DNSName: 'svc.example.com' })).toBe(true);
    expect(withOpts({ DNSName: 'other.example.com' })).toBe(false);
    expect(withOpts({ KeyUsages: ['KeyUsageClientAuth'] })).toBe(false);
    expect(withOpts({ CurrentTime: 946684800000000000 })).toBe(false);
    expect(() => call('crypto.x509.parse_and_verify_certificates_with_options', chain, { Bogus: 1 })).toThrow('invalid key option');
  });

  it('parses CSRs and keys', () => {
    const csr = toJS(call('crypto.x509.parse_certificate_request', read('leaf.csr'))!) as Record<string, unknown>;
    expect((csr.Subject as Record<string, unknown>).CommonName).toBe('svc.example.com');
    expect(csr.DNSNames).toEqual(['svc.example.com']);
    expect(csr.EmailAddresses).toEqual(['a@b.c']);
    expect((csr.URIs as Record<string, unknown>[])[0]!.Scheme).toBe('spiffe');
    const jwk = toJS(call('crypto.x509.parse_rsa_private_key', read('rsa.key'))!) as Record<string, unknown>;
    expect(jwk.kty).toBe('RSA');
    expect(typeof jwk.d).toBe('string');
    const keys = toJS(call('crypto.parse_private_keys', read('rsa.key') + read('leaf.key'))!) as Record<string, unknown>[];
    expect(keys.length).toBe(2);
    expect(keys[0]!.E).toBe(65537);
    expect(Object.keys(keys[1]!)).toEqual(['Curve', 'X', 'Y', 'D']);
    expect(toJS(call('crypto.parse_private_keys', '')!)).toEqual([]);
    const pair = toJS(call('crypto.x509.parse_keypair', read('leaf.pem'), read('leaf.key'))!) as Record<string, unknown>;
    expect((pair.Certificate as string[]).length).toBe(1);
    expect(() => call('crypto.x509.parse_keypair', read('leaf.pem'), read('rsa.key'))).toThrow('private key does not match');
  });

  it('marshals public and private keys as Go key structs do', () => {
    const parse = (pem: string) => toJS(call('crypto.x509.parse_certificates', pem)!) as Record<string, unknown>[];
    const [leafKey, caKey] = [parse(read('leaf.pem'))[0]!.PublicKey, parse(read('ca.pem'))[0]!.PublicKey] as Record<string, unknown>[];
    const [rsa, ec] = toJS(call('crypto.parse_private_keys', read('ca.key') + read('leaf.key'))!) as Record<string, unknown>[];
    // ecdsa.PublicKey {Curve, X, Y}; ecdsa.PrivateKey adds D.
    expect(Object.keys(leafKey!)).toEqual(['Curve', 'X', 'Y']);
    expect([ec!.X, ec!.Y]).toEqual([leafKey!.X, leafKey!.Y]);
    // rsa.PublicKey {N, E}; rsa.PrivateKey adds D, Primes and Precomputed.
    expect(Object.keys(caKey!)).toEqual(['N', 'E']);
    expect(Object.keys(rsa!)).toEqual(['N', 'E', 'D', 'Primes', 'Precomputed']);
    expect([rsa!.N, rsa!.E]).toEqual([caKey!.N, 65537]);
    expect(Object.keys(rsa!.Precomputed as object)).toEqual(['Dp', 'Dq', 'Qinv', 'CRTValues']);
    // ed25519: the public key's 32 bytes; the private key's 64, the seed then the public key.
    ssl('genpkey', '-algorithm', 'ed25519', '-out', f('ed.key'));
    ssl('req', '-x509', '-key', f('ed.key'), '-out', f('ed.pem'), '-days', '1', '-subj', '/CN=ed');
    const edPublic = Buffer.from(parse(read('ed.pem'))[0]!.PublicKey as string, 'base64');
    const edPrivate = Buffer.from((toJS(call('crypto.parse_private_keys', read('ed.key'))!) as string[])[0]!, 'base64');
    expect([edPublic.length, edPrivate.length]).toEqual([32, 64]);
    expect(edPrivate.subarray(32)).toEqual(edPublic);
  });
});
