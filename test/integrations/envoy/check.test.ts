// envoy.service.auth.v3.Authorization/Check over a real gRPC connection on loopback.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, httpRequest, startEnvoy, structJSON, type Running } from './helpers.js';

const POLICY = `package envoy.authz

default allow := false

allow if input.attributes.request.http.method == "GET"

# a structured decision, under another path
default result := {"allowed": false}

result := {
  "allowed": true,
  "headers": {"x-user": input.parsed_query.user[0]},
  "request_headers_to_remove": ["authorization"],
  "response_headers_to_add": [{"x-seen": "yes"}, {"x-seen": ["twice"]}],
  "query_parameters_to_remove": ["token"],
  "dynamic_metadata": {"tier": "gold", "n": 3},
} if input.parsed_path == ["api", "orders"]

result := {
  "allowed": false,
  "http_status": 401,
  "body": "who are you?",
  "headers": {"www-authenticate": "Bearer"},
} if input.parsed_path[0] == "private"

echo := input
`;

let r: Running;
beforeAll(async () => {
  r = await startEnvoy(POLICY);
});
afterAll(async () => {
  await r.close();
});

describe('Check with a boolean decision', () => {
  it('allows: status OK, the decision id in the dynamic metadata and in the decision log', async () => {
    const { response, error } = await check(r.client, httpRequest({ method: 'GET', path: '/' }));
    expect(error).toBeUndefined();
    expect(response!['status']).toEqual({ code: 0 }); // OK
    expect(response!['ok_response']).toBeUndefined();
    const meta = structJSON(response!['dynamic_metadata']) as { decision_id: string };
    expect(meta.decision_id).toMatch(/^[0-9a-f-]{36}$/);
    const logged = r.decisions.find((d) => d.decision_id === meta.decision_id)!;
    expect(logged.path).toBe('envoy/authz/allow');
    expect(logged.result).toBe(true);
    expect(logged.metrics?.['timer_server_handler_ns']).toBeGreaterThan(0);
  });

  it('denies: PERMISSION_DENIED and no HTTP response (Envoy sends its 403)', async () => {
    const { response } = await check(r.client, httpRequest({ method: 'DELETE', path: '/' }));
    expect(response!['status']).toEqual({ code: 7 });
    expect(response!['denied_response']).toBeUndefined();
  });
});

describe('the input document', () => {
  it('is the CheckRequest in protojson form plus version, parsed_path and parsed_query', async () => {
    const e = await startEnvoy(POLICY, { path: 'envoy/authz/echo' });
    try {
      const req = httpRequest(
        { method: 'POST', path: '/a%20b/c?x=1&x=2&y=&z=a+b', headers: { 'content-type': 'text/plain', 'x-k': 'v' }, body: 'hi', size: 2, raw_body: Buffer.from('hi') },
        { metadata_context: { filter_metadata: { 'envoy.filters.http.jwt_authn': { fields: { sub: { stringValue: 'alice' }, n: { numberValue: 2 } } } } }, context_extensions: { env: 'prod' } },
      );
      const { response } = await check(e.client, req);
      // the echo decision is neither boolean nor has "allowed": the Check fails ...
      expect(response).toBeUndefined();
      // ... but it was logged with its input
      const input = e.decisions[0]!.input as Record<string, any>;
      expect(input['version']).toEqual({ ext_authz: 'v3', encoding: 'protojson' });
      expect(input['parsed_path']).toEqual(['a b', 'c']);
      expect(input['parsed_query']).toEqual({ x: ['1', '2'], y: [''], z: ['a b'] });
      expect(input['parsed_body']).toBeNull();
      expect(input['truncated_body']).toBe(false);
      const http = input['attributes']['request']['http'];
      expect(http).toEqual({
        id: '42',
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-k': 'v' },
        path: '/a%20b/c?x=1&x=2&y=&z=a+b',
        host: 'example.test',
        scheme: 'http',
        size: '2', // int64: a string in protojson
        protocol: 'HTTP/1.1',
        body: 'hi',
        rawBody: Buffer.from('hi').toString('base64'),
      });
      expect(input['attributes']['request']['time']).toBe('2025-11-26T12:00:00.500Z');
      // fields Envoy did not set are absent, as protojson leaves them out
      const bare = await check(e.client, httpRequest({ method: 'GET', path: '/' }));
      expect(bare.response).toBeUndefined();
      expect(Object.keys((e.decisions[1]!.input as Record<string, any>)['attributes']['request']['http']).sort()).toEqual(['host', 'id', 'method', 'path', 'protocol', 'scheme']);
      expect(input['attributes']['source']).toEqual({ address: { socketAddress: { address: '10.0.0.7', portValue: 53412 } } });
      expect(input['attributes']['destination']['address']['socketAddress']['portValue']).toBe(8080);
      expect(input['attributes']['metadataContext']).toEqual({ filterMetadata: { 'envoy.filters.http.jwt_authn': { sub: 'alice', n: 2 } } });
      expect(input['attributes']['contextExtensions']).toEqual({ env: 'prod' });
    } finally {
      await e.close();
    }
  });
});

describe('Check with an object decision', () => {
  it('allowed: headers to add and remove, response headers, query parameters and dynamic metadata in an OkHttpResponse', async () => {
    const e = await startEnvoy(POLICY, { path: 'envoy/authz/result' });
    try {
      const { response } = await check(e.client, httpRequest({ method: 'GET', path: '/api/orders?user=bob&token=t' }));
      expect(response!['status']).toEqual({ code: 0 });
      expect(response!['ok_response']).toEqual({
        headers: [{ header: { key: 'x-user', value: 'bob' } }],
        headers_to_remove: ['authorization'],
        response_headers_to_add: [{ header: { key: 'x-seen', value: 'yes' } }, { header: { key: 'x-seen', value: 'twice' } }],
        query_parameters_to_remove: ['token'],
      });
      const meta = structJSON(response!['dynamic_metadata']) as Record<string, unknown>;
      expect(meta['tier']).toBe('gold');
      expect(meta['n']).toBe(3);
      expect(meta['decision_id']).toBe(e.decisions[0]!.decision_id);
    } finally {
      await e.close();
    }
  });

  it('denied: a DeniedHttpResponse with the status, body and headers the policy gives', async () => {
    const e = await startEnvoy(POLICY, { path: 'envoy/authz/result' });
    try {
      const { response } = await check(e.client, httpRequest({ method: 'GET', path: '/private/x' }));
      expect(response!['status']).toEqual({ code: 7 });
      expect(response!['denied_response']).toEqual({ status: { code: 401 }, body: 'who are you?', headers: [{ header: { key: 'www-authenticate', value: 'Bearer' } }] });
    } finally {
      await e.close();
    }
  });

  it('denied without http_status: 403', async () => {
    const e = await startEnvoy(POLICY, { path: 'envoy/authz/result' });
    try {
      const { response } = await check(e.client, httpRequest({ method: 'GET', path: '/other' }));
      expect(response!['denied_response']).toEqual({ status: { code: 403 } });
    } finally {
      await e.close();
    }
  });
});
