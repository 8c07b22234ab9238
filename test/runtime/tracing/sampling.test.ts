// Sampling: what is not sampled costs nothing and records nothing, and a caller's decision
// is followed. A request that is not sampled and brought no trace context runs as without
// tracing (no spans, no traceparent passed on); one that brought an unsampled traceparent
// passes it on unsampled; a caller's sampled traceparent is recorded even at 0 %; at 50 %
// every recorded evaluation has its request's span (children follow their parent).

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { distributedTracing } from '../../../src/plugins/tracing/config.js';
import { startTracing } from '../../../src/runtime/tracing/index.js';
import { httpReceiver, type Receiver } from './receivers.js';

const seen: IncomingHttpHeaders[] = [];
const downstream: Server = createServer((req, res) => {
  seen.push(req.headers);
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
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

/** Tracing at `pct`, one decision per traceparent given (undefined: none), then the flush. */
async function decisions(pct: number, traceparents: (string | undefined)[]): Promise<void> {
  receiver.spans.length = 0;
  seen.length = 0;
  const tracing = await startTracing(distributedTracing({ type: 'http', address: receiver.address, sample_percentage: pct, batch_span_processor_options: { batch_timeout_ms: 60_000 } })!);
  const engine = new RegolithEngine();
  await engine.putPolicy('t.rego', 'package t\n\nallow if http.send({"method": "get", "url": input.url, "cache": false}).body.ok\n');
  const server = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false });
  try {
    for (const tp of traceparents) {
      const r = await fetch(`${server.url}/v1/data/t/allow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(tp ? { traceparent: tp } : {}) },
        body: JSON.stringify({ input: { url: downstreamUrl } }),
      });
      expect(await r.json()).toMatchObject({ result: true });
    }
  } finally {
    await server.close();
    await tracing.shutdown();
  }
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('sampling', () => {
  it('0 %, no caller context: nothing recorded, no traceparent sent on', async () => {
    await decisions(0, [undefined, undefined]);
    expect(receiver.spans).toEqual([]);
    expect(seen.map((h) => h['traceparent'])).toEqual([undefined, undefined]);
  });

  it("0 %, a caller's sampled traceparent: the whole trace recorded", async () => {
    await decisions(0, [`00-${TRACE}-00f067aa0ba902b7-01`]);
    expect(receiver.spans.map((s) => s.name).sort()).toEqual(['GET /x', 'POST v1/data', 'evaluation']);
    expect(new Set(receiver.spans.map((s) => s.traceId))).toEqual(new Set([TRACE]));
  });

  it("100 %, a caller's unsampled traceparent: nothing recorded, the trace passed on unsampled", async () => {
    await decisions(100, [`00-${TRACE}-00f067aa0ba902b7-00`]);
    expect(receiver.spans).toEqual([]);
    expect(seen[0]!['traceparent']).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
  });

  it('50 %: every recorded evaluation and http.send has its parent recorded', async () => {
    await decisions(50, Array.from({ length: 30 }, () => undefined));
    const servers = receiver.spans.filter((s) => s.kind === 2);
    expect(servers.length).toBeGreaterThan(0);
    expect(servers.length).toBeLessThan(30);
    expect(receiver.spans.length).toBe(3 * servers.length);
    const ids = new Set(receiver.spans.map((s) => s.spanId));
    for (const s of receiver.spans) if (s.kind !== 2) expect(ids.has(s.parentSpanId), s.name).toBe(true);
    // the sampled ones passed their trace on; the others passed nothing
    expect(seen.filter((h) => h['traceparent']).length).toBe(servers.length);
  });
});
