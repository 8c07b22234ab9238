import { describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { callBuiltin, fakeContext } from './fake-context.js';
import { toJS, type Value } from '../../../src/value/index.js';

const call = (name: string, ...args: Value[]) => callBuiltin(name, args);

function keyPair(type: 'rsa' | 'ec' | 'ed25519', curve?: string) {
  const opts =
    type === 'rsa' ? { modulusLength: 2048 } : type === 'ec' ? { namedCurve: curve! } : {};
  const { publicKey, privateKey } = crypto.generateKeyPairSync(type as 'rsa', opts as crypto.RSAKeyPairOptions<'pem', 'pem'>);
  const pub = publicKey as unknown as crypto.KeyObject;
  const priv = privateKey as unknown as crypto.KeyObject;
  return {
    privJwk: priv.export({ format: 'jwk' }) as Value,
    pubJwk: JSON.stringify(pub.export({ format: 'jwk' })),
    pubPem: pub.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

describe('io.jwt sign and verify round trips', () => {
  const cases: [string, string, ReturnType<typeof keyPair>][] = [
    ['RS256', 'io.jwt.verify_rs256', keyPair('rsa')],
    ['PS384', 'io.jwt.verify_ps384', keyPair('rsa')],
    ['ES256', 'io.jwt.verify_es256', keyPair('ec', 'P-256')],
    ['ES512', 'io.jwt.verify_es512', keyPair('ec', 'P-521')],
    ['EdDSA', 'io.jwt.verify_eddsa', keyPair('ed25519')],
  ];
  for (const [alg, verify, k] of cases) {
    it(alg, () => {
      const token = call('io.jwt.encode_sign', { alg, typ: 'JWT' }, { sub: 'alice', n: 1 }, k.privJwk) as string;
      expect(call(verify, token, k.pubPem)).toBe(true);
      expect(call(verify, token, k.pubJwk)).toBe(true);
      const other = keyPair(alg === 'EdDSA' ? 'ed25519' : alg.startsWith('ES') ? 'ec' : 'rsa', alg === 'ES512' ? 'P-521' : 'P-256');
      expect(call(verify, token, other.pubPem)).toBe(false);
      const [ok, header, payload] = toJS(call('io.jwt.decode_verify', token, { cert: k.pubPem, alg })!) as unknown[];
      expect(ok).toBe(true);
      expect(header).toEqual({ alg, typ: 'JWT' });
      expect(payload).toEqual({ n: 1, sub: 'alice' });
      expect(toJS(call('io.jwt.decode_verify', token, { cert: other.pubPem })!)).toEqual([false, {}, {}]);
    });
  }
});

describe('io.jwt HMAC and constraints', () => {
  const key = { kty: 'oct', k: Buffer.from('secret').toString('base64url') };
  it('verifies HS tokens and checks time claims', () => {
    const token = call('io.jwt.encode_sign', { alg: 'HS256' }, { iss: 'me', exp: 2000, nbf: 1000, aud: ['a', 'b'] }, key) as string;
    expect(call('io.jwt.verify_hs256', token, 'secret')).toBe(true);
    expect(call('io.jwt.verify_hs256', token, 'wrong')).toBe(false);
    expect(call('io.jwt.verify_hs384', token, 'secret')).toBe(false);
    const dv = (c: Value, now = 1_500_000_000_000n) =>
      (toJS(callBuiltin('io.jwt.decode_verify', [token, c], fakeContext('x', { nowNs: now }))!) as unknown[])[0];
    expect(dv({ secret: 'secret', aud: 'a' })).toBe(true);
    expect(dv({ secret: 'secret', aud: 'c' })).toBe(false);
    expect(dv({ secret: 'secret' })).toBe(false); // aud present but not constrained
    expect(dv({ secret: 'secret', aud: 'b', iss: 'me' })).toBe(true);
    expect(dv({ secret: 'secret', aud: 'b', iss: 'you' })).toBe(false);
    expect(dv({ secret: 'secret', aud: 'b', time: 2000e9 })).toBe(false);
    expect(dv({ secret: 'secret', aud: 'b', time: 999e9 })).toBe(false);
    expect(dv({ secret: 'secret', aud: 'b' }, 2_500_000_000_000n)).toBe(false);
    expect(() => call('io.jwt.decode_verify', token, {})).toThrow('no key constraint');
    expect(() => call('io.jwt.decode_verify', token, { secret: 'x', cert: key.k })).toThrow();
    expect(() => call('io.jwt.decode_verify', token, { secret: 'x', bogus: 1 })).toThrow(
      'unknown token validation constraint: bogus',
    );
  });
  it('decodes', () => {
    const token = call('io.jwt.encode_sign_raw', '{"alg":"HS256"}', '{"a":[1,"x"]}', JSON.stringify(key)) as string;
    const [h, p, sig] = toJS(call('io.jwt.decode', token)!) as unknown[];
    expect(h).toEqual({ alg: 'HS256' });
    expect(p).toEqual({ a: [1, 'x'] });
    expect(sig).toBe(crypto.createHmac('sha256', 'secret').update(token.split('.').slice(0, 2).join('.')).digest('hex'));
  });
  it('rejects bad signing input', () => {
    expect(() => call('io.jwt.encode_sign_raw', '{"alg":"HS256"}', 'not json', JSON.stringify(key))).toThrow(
      'type is JWT but payload is not JSON',
    );
    expect(() => call('io.jwt.encode_sign_raw', '{"alg":"RS256"}', '{}', JSON.stringify(key))).toThrow(/invalid key type/);
  });
});
