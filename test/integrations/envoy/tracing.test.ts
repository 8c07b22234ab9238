// Distributed tracing of Checks: each Check gets a server span named as OPA's gRPC
// instrumentation names it, continuing the traceparent Envoy sends in the call's metadata,
// with the evaluation (and the policy's http.send) below it; an OTLP/HTTP receiver
// stand-in decodes what the exporter sends.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedTracing } from '../../../src/plugins/tracing/config.js';
import { startTracing, type Tracing } from '../../../src/runtime/tracing/index.js';
import { httpReceiver, ofTrace, type Receiver } from '../../runtime/tracing/receivers.js';
import { decodeCheckResponse, httpRequest, root, startEnvoy, type CallResult, type Running } from './helpers.js';

const POLICY = `package envoy.authz

default allow := false

allow if {
  input.attributes.request.http.method == "GET"
  http.send({"method": "get", "url": input.attributes.request.http.headers["x-downstream"]}).body.ok
}

# a PATCH makes the decision fail (two values)
allow if input.attributes.request.http.method == "PATCH"

allow := false if input.attributes.request.http.method == "PATCH"
`;

const CheckRequest = root.lookupType('envoy.service.auth.v3.CheckRequest');
const TRACE = '5b8efff798038103d269b633813fc60c';
const ENVOY_SPAN = 'eee19b7ec3c1b174';

/** Check with gRPC metadata (the traceparent Envoy sends). */
function checkWith(client: grpc.Client, request: Record<string, unknown>, md: Record<string, string>): Promise<CallResult> {
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(md)) metadata.set(k, v);
  const bytes = Buffer.from(CheckRequest.encode(CheckRequest.fromObject(request)).finish());
  return new Promise((resolve) => {
    client.makeUnaryRequest('/envoy.service.auth.v3.Authorization/Check', (b: Buffer) => b, decodeCheckResponse, bytes, metadata, (error, response) =>
      resolve(error ? { error } : { response: response! }),
    );
  });
}

let downstreamHeaders: IncomingHttpHeaders | undefined;
const downstream: Server = createServer((req, res) => {
  downstreamHeaders = req.headers;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
let downstreamUrl: string;
let receiver: Receiver;
let tracing: Tracing;
let r: Running;

beforeAll(async () => {
  await new Promise<void>((ok) => downstream.listen(0, '127.0.0.1', ok));
  downstreamUrl = `http://127.0.0.1:${(downstream.address() as AddressInfo).port}/who`;
  receiver = await httpReceiver();
  tracing = await startTracing(distributedTracing({ type: 'http', address: receiver.address, batch_span_processor_options: { batch_timeout_ms: 60_000 } })!);
  r = await startEnvoy(POLICY);
});
afterAll(async () => {
  await r?.close();
  await tracing?.shutdown();
  await receiver?.close();
  downstream.close();
});

describe('Checks traced', () => {
  it('a server span under the caller, the evaluation and http.send below it', async () => {
    const allowed = await checkWith(r.client, httpRequest({ method: 'GET', path: '/', headers: { 'x-downstream': downstreamUrl } }), { traceparent: `00-${TRACE}-${ENVOY_SPAN}-01` });
    expect(allowed.response!['status']).toEqual({ code: 0 });
    // a Check Envoy sends without trace context: a trace of its own
    const plain = await checkWith(r.client, httpRequest({ method: 'POST', path: '/' }), {});
    expect(plain.response!['status']).toEqual({ code: 7 });
    // a Check whose decision fails: UNKNOWN
    const failed = await checkWith(r.client, httpRequest({ method: 'PATCH', path: '/' }), {});
    expect(failed.error?.code).toBe(grpc.status.UNKNOWN);
    await tracing.shutdown(); // flushes

    const spans = ofTrace(receiver, TRACE);
    const [check, ...moreChecks] = spans.filter((s) => s.kind === 2);
    expect(moreChecks).toEqual([]);
    expect(check!.name).toBe('envoy.service.auth.v3.Authorization/Check');
    expect(check!.parentSpanId).toBe(ENVOY_SPAN);
    expect(check!.attributes).toMatchObject({ 'rpc.system': 'grpc', 'rpc.service': 'envoy.service.auth.v3.Authorization', 'rpc.method': 'Check', 'rpc.grpc.status_code': 0, 'net.sock.peer.addr': '127.0.0.1' });
    expect(check!.attributes['net.sock.peer.port']).toBeGreaterThan(0);
    expect(check!.status.code).toBe(0);
    const evaluation = spans.find((s) => s.name === 'evaluation')!;
    expect(evaluation.parentSpanId).toBe(check!.spanId);
    expect(evaluation.attributes['rego.query']).toBe('data.envoy.authz.allow');
    const send = spans.find((s) => s.kind === 3)!;
    expect(send.parentSpanId).toBe(evaluation.spanId);
    expect(downstreamHeaders?.['traceparent']).toBe(`00-${TRACE}-${send.spanId}-01`);

    // the other two: each a root server span with its evaluation below
    const others = receiver.spans.filter((s) => s.traceId !== TRACE && s.kind === 2);
    expect(others.map((s) => s.parentSpanId)).toEqual(['', '']);
    for (const o of others) expect(receiver.spans.find((s) => s.name === 'evaluation' && s.traceId === o.traceId)?.parentSpanId).toBe(o.spanId);
    // a permission denied is an answer (gRPC OK); a failed decision is the server's error
    const denied = others.find((s) => s.attributes['rpc.grpc.status_code'] === 0)!;
    expect(denied.status.code).toBe(0);
    const error = others.find((s) => s.attributes['rpc.grpc.status_code'] === grpc.status.UNKNOWN)!;
    expect(error.status.code).toBe(2);
    expect(error.status.message).toBe(failed.error!.details);

    // each Check's decision-log event carries its server span's ids, as OPA logs them
    // (the three Checks in the order sent: allowed, denied, failed)
    expect(r.decisions.map((e) => [e.trace_id, e.span_id])).toEqual([check!, denied, error].map((s) => [s.traceId, s.spanId]));
  });
});
