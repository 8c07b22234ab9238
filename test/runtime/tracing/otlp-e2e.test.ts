// One trace end to end: a request with a W3C traceparent reaches the server, the policy's
// evaluation makes an http.send, and an OTLP/HTTP receiver stand-in on loopback decodes what
// the exporter sends (its JSON encoding): the server span continues the caller's trace, the
// evaluation is its child, the http.send client span the evaluation's, and the downstream
// service receives the client span's traceparent.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { distributedTracing } from '../../../src/plugins/tracing/config.js';
import { startTracing, type Tracing } from '../../../src/runtime/tracing/index.js';
import { requestSpans } from '../../../src/server/request-spans.js';
import { spans as evalSpans } from '../../../src/engine/spans.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface OtlpRequest {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const listen = (s: Server) => new Promise<number>((ok) => s.listen(0, '127.0.0.1', () => ok((s.address() as AddressInfo).port)));
const attr = (s: OtlpSpan, k: string) => {
  const v = s.attributes.find((a) => a.key === k)?.value;
  return v ? (v['stringValue'] ?? (v['intValue'] !== undefined ? Number(v['intValue']) : undefined)) : undefined;
};

const received: OtlpRequest[] = [];
const contentTypes: string[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.url === '/v1/traces') {
      contentTypes.push(req.headers['content-type'] ?? '');
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let downstreamHeaders: IncomingHttpHeaders | undefined;
let downstreamHits = 0;
const downstream = createServer((req, res) => {
  downstreamHits++;
  downstreamHeaders = req.headers;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});

let tracing: Tracing;
let server: RunningServer;
let downstreamPort: number;

beforeAll(async () => {
  const receiverPort = await listen(receiver);
  downstreamPort = await listen(downstream);
  const cfg = distributedTracing({
    type: 'http',
    address: `127.0.0.1:${receiverPort}`,
    service_name: 'regolith-test',
    resource: { service_version: '9.9', deployment_environment: 'test' },
    batch_span_processor_options: { batch_timeout_ms: 50 },
  })!;
  tracing = await startTracing(cfg);
  const engine = new RegolithEngine();
  server = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false });
  const put = await fetch(`${server.url}/v1/policies/t.rego`, {
    method: 'PUT',
    headers: { 'content-type': 'text/plain' },
    body: 'package t\n\nallow if http.send({"method": "get", "url": input.url}).body.ok\n',
  });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await tracing?.shutdown();
  receiver.close();
  downstream.close();
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('distributed tracing over OTLP/HTTP', () => {
  it('exports one trace from the incoming request through evaluation to http.send', async () => {
    received.length = 0;
    downstreamHits = 0;
    const r = await fetch(`${server.url}/v1/data/t/allow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ input: { url: `http://127.0.0.1:${downstreamPort}/thing?x=1` } }),
    });
    expect(await r.json()).toMatchObject({ result: true });
    await tracing.shutdown(); // flushes the batch
    expect(contentTypes[0]).toBe('application/json');

    const resource = received[0]!.resourceSpans[0]!.resource.attributes;
    const res = Object.fromEntries(resource.map((a) => [a.key, a.value.stringValue]));
    expect(res).toMatchObject({ 'service.name': 'regolith-test', 'service.version': '9.9', 'deployment.environment': 'test' });

    const exported = received.flatMap((q) => q.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
    // the policy upload is a trace of its own
    const all = exported.filter((s) => s.name !== 'PUT v1/policies');
    for (const s of all) expect(s.traceId.toLowerCase()).toBe(CALLER_TRACE);
    const [serverSpan, ...moreServer] = all.filter((s) => s.kind === 2);
    const [evalSpan, ...moreEval] = all.filter((s) => s.kind === 1);
    const clientSpans = all.filter((s) => s.kind === 3);
    expect(moreServer).toEqual([]);
    expect(moreEval).toEqual([]);
    // one http.send, one request downstream, one client span
    expect(downstreamHits).toBe(1);
    expect(clientSpans.length).toBe(1);
    expect(serverSpan!.parentSpanId?.toLowerCase()).toBe(CALLER_SPAN);
    expect(serverSpan!.name).toBe('POST v1/data');
    expect(attr(serverSpan!, 'http.request.method')).toBe('POST');
    expect(attr(serverSpan!, 'url.path')).toBe('/v1/data/t/allow');
    expect(attr(serverSpan!, 'http.response.status_code')).toBe(200);

    expect(evalSpan!.parentSpanId).toBe(serverSpan!.spanId);
    expect(evalSpan!.name).toBe('evaluation');
    expect(attr(evalSpan!, 'rego.query')).toBe('data.t.allow');

    for (const clientSpan of clientSpans) {
      expect(clientSpan.parentSpanId).toBe(evalSpan!.spanId);
      expect(clientSpan.name).toBe('GET /thing');
      expect(attr(clientSpan, 'http.request.method')).toBe('GET');
      expect(attr(clientSpan, 'url.full')).toBe(`http://127.0.0.1:${downstreamPort}/thing?x=1`);
      expect(attr(clientSpan, 'server.port')).toBe(downstreamPort);
      expect(attr(clientSpan, 'http.response.status_code')).toBe(200);
    }
    // the downstream service continues the same trace, under a client span
    const ids = clientSpans.map((c) => `00-${CALLER_TRACE}-${c.spanId.toLowerCase()}-01`);
    expect(ids).toContain(downstreamHeaders?.['traceparent']);
  });

  it('removes its seams on shutdown', () => {
    expect(requestSpans()).toBeUndefined();
    expect(evalSpans()).toBeUndefined();
  });
});
