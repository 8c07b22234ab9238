// parsed_body and truncated_body over a real Check: JSON, URL-encoded and multipart forms,
// bodies cut by Envoy's with_request_body limit, raw_body (pack_as_bytes), skip-request-body-parse.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJSONText, type Value } from '../../../src/value/index.js';
import { check, httpRequest, startEnvoy, type Running } from './helpers.js';

// The decision shows the parsed body back in the dynamic metadata; the log has the input.
const POLICY = `package envoy.authz
allow := {"allowed": true, "dynamic_metadata": {"parsed": input.parsed_body, "truncated": input.truncated_body}} if input.parsed_body != null
allow := {"allowed": false, "dynamic_metadata": {"truncated": input.truncated_body}} if input.parsed_body == null
`;

let r: Running;
beforeAll(async () => {
  r = await startEnvoy(POLICY);
});
afterAll(async () => {
  await r.close();
});

async function inputFor(http: Record<string, unknown>, run = r): Promise<Record<string, unknown>> {
  const before = run.decisions.length;
  await check(run.client, httpRequest({ method: 'POST', path: '/p', ...http }));
  return run.decisions[before]!.input as Record<string, unknown>;
}

describe('parsed_body', () => {
  it('JSON bodies are parsed (numbers exact)', async () => {
    const body = '{"user": "alice", "n": 12345678901234567890, "tags": ["a"]}';
    const input = await inputFor({ headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }, body });
    expect(toJSONText(input['parsed_body'] as Value)).toBe('{"n":12345678901234567890,"tags":["a"],"user":"alice"}');
    expect(input['truncated_body']).toBe(false);
  });

  it('JSON from raw_body when Envoy packs the body as bytes', async () => {
    const input = await inputFor({ headers: { 'content-type': 'application/json' }, raw_body: Buffer.from('{"a": 1}') });
    expect(input['parsed_body']).toEqual({ a: 1 });
  });

  it('a body shorter than its content-length is truncated: parsed_body null', async () => {
    const input = await inputFor({ headers: { 'content-type': 'application/json', 'content-length': '100' }, body: '{"a": ' });
    expect(input['parsed_body']).toBeNull();
    expect(input['truncated_body']).toBe(true);
  });

  it('URL-encoded forms: each field a list of its values', async () => {
    const input = await inputFor({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=x+y&a=%C3%A9' });
    expect(input['parsed_body']).toEqual({ a: ['1', 'é'], b: ['x y'] });
  });

  it('multipart forms: each field a list of its parts, JSON parts parsed', async () => {
    const body = ['--XyZ', 'Content-Disposition: form-data; name="name"', '', 'alice', '--XyZ', 'Content-Disposition: form-data; name="meta"', 'Content-Type: application/json', '', '{"k": [1, 2]}', '--XyZ', 'Content-Disposition: form-data; name="name"', '', 'bob', '--XyZ--', ''].join('\r\n');
    const input = await inputFor({ headers: { 'content-type': 'multipart/form-data; boundary=XyZ' }, body });
    expect(input['parsed_body']).toEqual({ name: ['alice', 'bob'], meta: [{ k: [1, 2] }] });
  });

  it('other content types and no content-type: null', async () => {
    expect((await inputFor({ headers: { 'content-type': 'text/plain' }, body: 'x' }))['parsed_body']).toBeNull();
    expect((await inputFor({ headers: {}, body: '{"a": 1}' }))['parsed_body']).toBeNull();
  });

  it('skip-request-body-parse: no parsed_body or truncated_body at all', async () => {
    const e = await startEnvoy(POLICY, { 'skip-request-body-parse': true });
    try {
      const input = await inputFor({ headers: { 'content-type': 'application/json' }, body: '{"a": 1}' }, e);
      expect(input).not.toHaveProperty('parsed_body');
      expect(input).not.toHaveProperty('truncated_body');
      expect(input['parsed_path']).toEqual(['p']);
    } finally {
      await e.close();
    }
  });
});

describe('gRPC bodies with a proto-descriptor', () => {
  it('the first framed message of /<service>/<method> decoded as the method input, in protojson form', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const protobuf = (await import('protobufjs')).default;
    const descriptor = await import('protobufjs/ext/descriptor/index.js');
    const root = protobuf.parse('syntax = "proto3"; package shop; message Order { string item_name = 1; int64 qty = 2; } service Orders { rpc Place(Order) returns (Order); }', { keepCase: true }).root;
    const set = (root as unknown as { toDescriptor(e: string): protobuf.Message }).toDescriptor('proto3');
    const file = join(mkdtempSync(join(tmpdir(), 'envoy-pb-')), 'shop.pb');
    writeFileSync(file, descriptor.FileDescriptorSet.encode(set).finish());
    const msg = root.lookupType('shop.Order').encode({ item_name: 'tea', qty: 3 }).finish();
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, msg.length]), Buffer.from(msg)]);
    const e = await startEnvoy(POLICY, { 'proto-descriptor': file });
    try {
      const input = await inputFor({ path: '/shop.Orders/Place', headers: { 'content-type': 'application/grpc' }, raw_body: framed }, e);
      expect(input['parsed_body']).toEqual({ itemName: 'tea', qty: '3' });
      const cut = await inputFor({ path: '/shop.Orders/Place', headers: { 'content-type': 'application/grpc' }, raw_body: framed.subarray(0, 6) }, e);
      expect(cut['truncated_body']).toBe(true);
      const unknown = await inputFor({ path: '/shop.Orders/Nope', headers: { 'content-type': 'application/grpc' }, raw_body: framed }, e);
      expect(unknown['parsed_body']).toBeNull();
    } finally {
      await e.close();
    }
  });
});
