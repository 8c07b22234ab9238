// SigV4: against the example AWS publishes for S3 (GET /test.txt of examplebucket with a
// Range header, 2013-05-24: a signature computed independently of our code), and the
// s3_signing credentials of a service against a stand-in store that verifies signatures.

import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { signV4 } from '../../../src/plugins/services/sigv4.js';
import { httpServer } from '../../loopback.js';

describe('AWS Signature Version 4', () => {
  it("matches AWS's published S3 GET example", () => {
    const h = signV4(
      {
        method: 'GET',
        url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
        headers: { range: 'bytes=0-9' },
        region: 'us-east-1',
        service: 's3',
        now: new Date('2013-05-24T00:00:00Z'),
      },
      { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
    );
    expect(h['x-amz-content-sha256']).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(h['authorization']).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
});


/** What an S3 stand-in does: recompute the signature from the request and the secret it knows. */
function verify(method: string, url: string, headers: IncomingHttpHeaders, secret: string): boolean {
  const auth = String(headers['authorization'] ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return false;
  const [, keyId, , region, service, signed, signature] = m;
  const amzDate = String(headers['x-amz-date'] ?? '');
  const when = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  if (Math.abs(Date.now() - when.getTime()) > 15 * 60_000) return false;
  const extra: Record<string, string> = {};
  for (const h of signed!.split(';')) if (!['host', 'x-amz-date', 'x-amz-security-token'].includes(h)) extra[h] = String(headers[h]);
  const again = signV4({ method, url: new URL(url, `http://${headers['host']}`), headers: extra, region: region!, service: service!, now: when }, {
    accessKeyId: keyId!,
    secretAccessKey: secret,
    sessionToken: headers['x-amz-security-token'] as string | undefined,
  });
  return again['authorization']!.endsWith(`Signature=${signature}`);
}

describe('s3_signing credentials against a stand-in that verifies signatures', () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env['AWS_ACCESS_KEY_ID'] = 'AKIDTEST';
    process.env['AWS_SECRET_ACCESS_KEY'] = 'right-secret';
    process.env['AWS_SESSION_TOKEN'] = 'session-1';
    process.env['AWS_REGION'] = 'eu-west-1';
  });
  afterAll(() => {
    process.env = saved;
  });

  it('signs every request; a store knowing another secret refuses them', async () => {
    let secret = 'right-secret';
    const srv = await httpServer((req, res) => {
      const ok = verify(req.method!, req.url!, req.headers, secret);
      res.statusCode = ok ? 200 : 403;
      res.end(ok ? 'bundle' : 'SignatureDoesNotMatch');
    });
    try {
      const c = new ServiceClient(validateConfig({ services: { s3: { url: srv.url, credentials: { s3_signing: { environment_credentials: {} } } } } }).services['s3']!);
      expect((await c.request({ method: 'GET', path: '/bucket/bundle.tar.gz?versionId=1&a=b c' })).status).toBe(200);
      expect(srv.requests[0]!.headers['x-amz-security-token']).toBe('session-1');
      expect(String(srv.requests[0]!.headers['authorization'])).toContain('/eu-west-1/s3/aws4_request');
      secret = 'other-secret';
      expect((await c.request({ method: 'GET', path: '/bucket/bundle.tar.gz' })).status).toBe(403);
    } finally {
      await srv.close();
    }
  });

  it('only environment credentials are supported; other sources are configuration errors naming the key', () => {
    expect(() => validateConfig({ services: { s: { url: 'http://x', credentials: { s3_signing: { metadata_credentials: {} } } } } })).toThrow(/s3_signing/);
  });
});
