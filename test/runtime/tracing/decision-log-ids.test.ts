// Decision log events carry the traced request's trace_id and span_id (OPA's EventV1 fields,
// set when the request's span context is valid): the ids of the request's server span as it is
// exported, for decisions answered at once and for those that wait on http.send; a caller's
// unsampled trace keeps its trace id. A request outside any trace (tracing off, or not sampled
// and bringing no context) logs neither.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';
import { distributedTracing } from '../../../src/plugins/tracing/config.js';
import { startTracing } from '../../../src/runtime/tracing/index.js';
import { httpReceiver, type Receiver } from './receivers.js';

const downstream: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
let downstreamUrl: string;
let receiver: Receiver;

beforeAll(async () => {
  await new Promise<void>((ok) => downstream.listen(0, '127.0.0.1', ok));
  downstreamUrl = `http://127.0.0.1:${(downstream.address() as AddressInfo).port}/x`;
  receiver = await httpReceiver();
});
afterAll(async () => {
  downstream.close();
  await receiver.close();
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const POLICY = 'package t\n\nallow if input.x == 1\n\nfetched if http.send({"method": "get", "url": input.url, "cache": false}).body.ok\n';

interface Call {
  path: string;
  body: unknown;
  traceparent?: string;
}

/** The logged events (as uploaded) of `calls`, one at a time, with tracing at `pct` (undefined: tracing off). */
async function logged(pct: number | undefined, calls: Call[]): Promise<Record<string, unknown>[]> {
  receiver.spans.length = 0;
  const tracing = pct === undefined ? undefined : await startTracing(distributedTracing({ type: 'http', address: receiver.address, sample_percentage: pct, batch_span_processor_options: { batch_timeout_ms: 60_000 } })!);
  const engine = new RegolithEngine();
  await engine.putPolicy('t.rego', POLICY);
  const config = validateConfig({ decision_logs: { console: true } });
  const plugin = new DecisionLogPlugin({ config, engine, labels: { id: 'i', version: '0.1.0' }, console: pino({ level: 'silent' }) });
  const server = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false, decisionLogger: (e) => plugin.record(e) });
  try {
    for (const c of calls) {
      const r = await fetch(`${server.url}${c.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(c.traceparent ? { traceparent: c.traceparent } : {}) },
        body: JSON.stringify(c.body),
      });
      expect(r.status).toBe(200);
      await r.text();
    }
  } finally {
    await server.close();
    await tracing?.shutdown();
  }
  return plugin.recent(calls.length).map((t) => JSON.parse(t) as Record<string, unknown>);
}

const decide = (traceparent?: string): Call => ({ path: '/v1/data/t/allow', body: { input: { x: 1 } }, traceparent });

describe('trace_id and span_id in decision log events', () => {
  it("carry each traced request's server span ids (immediate, http.send and /v1/query decisions)", async () => {
    const events = await logged(100, [decide(), { path: '/v1/data/t/fetched', body: { input: { url: downstreamUrl } } }, { path: '/v1/query', body: { query: 'data.t.allow', input: { x: 1 } } }]);
    const servers = receiver.spans.filter((s) => s.kind === 2);
    expect(servers.map((s) => s.name)).toEqual(['POST v1/data', 'POST v1/data', 'POST v1/query']);
    expect(events.map((e) => [e['trace_id'], e['span_id']])).toEqual(servers.map((s) => [s.traceId, s.spanId]));
    // and, as OPA annotates it, each server span carries the id of the decision it logged
    expect(servers.map((s) => s.attributes['opa.decision_id'])).toEqual(events.map((e) => e['decision_id']));
    expect(events.every((e) => typeof e['decision_id'] === 'string')).toBe(true);
    // OPA's field names, in the event's key order
    expect(Object.keys(events[0]!).slice(-4)).toEqual(['result', 'span_id', 'timestamp', 'trace_id']);
  });

  it("keep a caller's trace id, sampled or not", async () => {
    const [sampled, unsampled] = await logged(100, [decide(`00-${TRACE}-00f067aa0ba902b7-01`), decide(`00-${TRACE}-00f067aa0ba902b7-00`)]);
    expect(sampled!['trace_id']).toBe(TRACE);
    expect(sampled!['span_id']).toBe(receiver.spans.find((s) => s.kind === 2)!.spanId);
    // not recorded (nothing exported), but its span context is valid: as OPA, logged
    expect(receiver.spans.length).toBe(2);
    expect(unsampled!['trace_id']).toBe(TRACE);
    expect(unsampled!['span_id']).toMatch(/^[0-9a-f]{16}$/);
    expect(unsampled!['span_id']).not.toBe('00f067aa0ba902b7');
  });

  it('are absent outside any trace: tracing off, or not sampled with no caller context', async () => {
    for (const e of [...(await logged(undefined, [decide()])), ...(await logged(0, [decide(), decide()]))]) {
      expect(e).not.toHaveProperty('trace_id');
      expect(e).not.toHaveProperty('span_id');
      expect(e['result']).toBe(true);
    }
  });
});
