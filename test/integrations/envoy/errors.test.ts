// What goes wrong in a Check, and dry-run: malformed requests, undefined and ill-shaped
// decisions, evaluation errors; each answered as OPA's plugin answers it, and logged.

import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRaw, check, decodeCheckResponse, httpRequest, startEnvoy, structJSON, type Running } from './helpers.js';

const POLICY = `package envoy.authz
default allow := false
allow if input.attributes.request.http.method == "GET"

shape := input.parsed_query.kind[0] == "string"
status := {"allowed": false, "http_status": to_number(input.parsed_query.s[0])}
headers := {"allowed": true, "headers": {"x": 1}}
conflict := 1
conflict := 2
`;

let r: Running;
beforeAll(async () => {
  r = await startEnvoy(POLICY);
});
afterAll(async () => {
  await r.close();
});

describe('malformed requests', () => {
  it('bytes that are not a CheckRequest: the call fails, nothing is evaluated', async () => {
    const before = r.decisions.length;
    const { error } = await callRaw(r.client, '/envoy.service.auth.v3.Authorization/Check', Buffer.from([0x0a, 0xff, 0xff, 0xff]), decodeCheckResponse);
    expect(error?.code).toBe(grpc.status.INTERNAL);
    expect(r.decisions.length).toBe(before);
  });

  it('a path with a bad escape: PERMISSION_DENIED with a 400 and request_parse_error, logged', async () => {
    const { response, error } = await check(r.client, httpRequest({ method: 'GET', path: '/a%zzb' }));
    expect(error).toBeUndefined();
    const message = 'request_parse_error: parse "/a%zzb": invalid URL escape "%zz"';
    expect(response!['status']).toEqual({ code: 7, message });
    expect(response!['denied_response']).toEqual({ status: { code: 400 }, body: message });
    expect(r.decisions.at(-1)!.error).toEqual({ code: 'request_parse_error', message: 'parse "/a%zzb": invalid URL escape "%zz"' });
  });

  it('a JSON body that does not parse: request_parse_error', async () => {
    const { response } = await check(r.client, httpRequest({ method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: '{"a":' }));
    expect(response!['status']).toMatchObject({ code: 7 });
    expect((response!['status'] as { message: string }).message).toMatch(/^request_parse_error: /);
  });

  it('a content-length that is not a number: request_parse_error', async () => {
    const { response } = await check(r.client, httpRequest({ method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': 'x' }, body: '{}' }));
    expect((response!['status'] as { message: string }).message).toBe('request_parse_error: strconv.ParseInt: parsing "x": invalid syntax');
  });

  it('larger than grpc-max-recv-msg-size: RESOURCE_EXHAUSTED', async () => {
    const e = await startEnvoy(POLICY, { 'grpc-max-recv-msg-size': 512 });
    try {
      const { error } = await check(e.client, httpRequest({ method: 'POST', path: '/', body: 'x'.repeat(1000) }));
      expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(e.decisions).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it('no attributes at all: evaluated with what there is (parsed_path [""])', async () => {
    const { response, error } = await check(r.client, {});
    expect(error).toBeUndefined();
    expect(response!['status']).toEqual({ code: 7 });
    expect(r.decisions.at(-1)!.input).toMatchObject({ parsed_path: [''], parsed_query: {} });
  });
});

describe('decisions the plugin cannot use: the Check fails with UNKNOWN and OPA\'s message', () => {
  async function failing(path: string, query = ''): Promise<grpc.ServiceError> {
    const e = await startEnvoy(POLICY, { path });
    try {
      const { error } = await check(e.client, httpRequest({ method: 'GET', path: `/x${query}` }));
      expect(e.decisions[0]!.error?.message).toBe(error?.details);
      return error!;
    } finally {
      await e.close();
    }
  }

  it('undefined', async () => {
    const err = await failing('envoy/authz/nothing');
    expect(err.code).toBe(grpc.status.UNKNOWN);
    expect(err.details).toBe('undefined decision');
  });

  it('neither boolean nor object', async () => {
    expect((await failing('envoy/authz/headers/headers/x')).details).toBe('failed to get response status: illegal value for policy evaluation result: json.Number');
  });

  it('an object without "allowed"', async () => {
    expect((await failing('envoy/authz/headers/headers')).details).toBe('failed to get response status: unable to determine evaluation result due to missing "allowed" key');
  });

  it('a header value that is not a string', async () => {
    expect((await failing('envoy/authz/headers')).details).toBe("failed to get response headers: type assertion error for header 'x'");
  });

  it('an http_status Envoy cannot send', async () => {
    expect((await failing('envoy/authz/status', '?s=418')).details).toBe('failed to get response http status: invalid HTTP status code 418');
  });

  it('an evaluation error', async () => {
    const err = await failing('envoy/authz/conflict');
    expect(err.code).toBe(grpc.status.UNKNOWN);
    expect(err.details).toMatch(/eval_conflict_error/);
  });
});

describe('dry-run', () => {
  it('Envoy is told OK; the decision log keeps the denial', async () => {
    const e = await startEnvoy(POLICY, { 'dry-run': true });
    try {
      const { response } = await check(e.client, httpRequest({ method: 'DELETE', path: '/' }));
      expect(response!['status']).toEqual({ code: 0 });
      expect(response!['ok_response']).toEqual({});
      expect(structJSON(response!['dynamic_metadata'])).toEqual({ decision_id: e.decisions[0]!.decision_id });
      expect(e.decisions[0]!.result).toBe(false);
    } finally {
      await e.close();
    }
  });
});

describe('performance metrics', () => {
  it('enable-performance-metrics: grpc_request_duration_seconds{handler="check"} and error_counter{reason}', async () => {
    const e = await startEnvoy(POLICY, { 'enable-performance-metrics': true, path: 'envoy/authz/nothing' });
    try {
      await check(e.client, httpRequest({ method: 'GET', path: '/' }));
      await check(e.client, httpRequest({ method: 'GET', path: '/%zz' }));
      const text = await e.registry.metrics();
      expect(text).toMatch(/error_counter\{reason="envoyauth_eval_error"\} 1/);
      expect(text).toMatch(/error_counter\{reason="request_parse_error"\} 1/);
    } finally {
      await e.close();
    }
  });

  it('counts answered Checks in the histogram', async () => {
    const e = await startEnvoy(POLICY, { 'enable-performance-metrics': true });
    try {
      await check(e.client, httpRequest({ method: 'GET', path: '/' }));
      expect(await e.registry.metrics()).toMatch(/grpc_request_duration_seconds_count\{handler="check"\} 1/);
    } finally {
      await e.close();
    }
  });
});
