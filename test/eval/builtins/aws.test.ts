import { describe, expect, it } from 'vitest';
import { callBuiltin } from './fake-context.js';
import { parseNumber, toJS } from '../../../src/value/index.js';

const cfg = {
  aws_access_key: 'AKIDEXAMPLE',
  aws_secret_access_key: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  aws_service: 'service',
  aws_region: 'us-east-1',
};
const t = parseNumber('1440938160000000000')!; // 2015-08-30T12:36:00Z

describe('providers.aws.sign_req', () => {
  it('matches the AWS SigV4 test suite (get-vanilla)', () => {
    const out = toJS(callBuiltin('providers.aws.sign_req', [{ method: 'GET', url: 'https://example.amazonaws.com/' }, cfg, t])!) as {
      headers: Record<string, string>;
    };
    expect(out.headers.Authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request,SignedHeaders=host;x-amz-date,' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
    expect(out.headers['x-amz-date']).toBe('20150830T123600Z');
    expect(out.headers.host).toBe('example.amazonaws.com');
  });
  it('matches get-vanilla-query-order-key-case', () => {
    const out = toJS(
      callBuiltin('providers.aws.sign_req', [{ method: 'GET', url: 'https://example.amazonaws.com/?Param2=value2&Param1=value1' }, cfg, t])!,
    ) as { headers: Record<string, string> };
    // OPA signs the raw query as written (it does not re-sort it), so the signature differs from AWS's sorted form.
    expect(out.headers.Authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/service\/aws4_request,SignedHeaders=host;x-amz-date,Signature=[0-9a-f]{64}$/);
  });
  it('adds s3 payload hash and session token, keeps request headers', () => {
    const out = toJS(
      callBuiltin('providers.aws.sign_req', [
        { method: 'PUT', url: 'https://bucket.s3.amazonaws.com/key', headers: { 'Content-Type': 'text/plain' }, raw_body: 'hi' },
        { ...cfg, aws_service: 's3', aws_session_token: 'tok' },
        t,
      ])!,
    ) as { headers: Record<string, string> };
    expect(out.headers['x-amz-content-sha256']).toBe('8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4');
    expect(out.headers['x-amz-security-token']).toBe('tok');
    expect(out.headers['Content-Type']).toBe('text/plain');
    expect(out.headers.Authorization).toContain('SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,');
    expect(() => callBuiltin('providers.aws.sign_req', [{ method: 'GET', url: 'https://x/' }, { aws_access_key: 'a' }, t])).toThrow(
      /aws_secret_access_key/,
    );
  });
});
