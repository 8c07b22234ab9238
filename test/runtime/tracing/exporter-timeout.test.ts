// A receiver that keeps answering 503 (a retryable failure): the exporter retries within
// export_timeout_ms, so once the shutdown's flush has given up nothing more is sent (the
// SDK's own 10 s timeout let retries run on for seconds, keeping `regolith run` alive).

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { distributedTracing } from '../../../src/plugins/tracing/config.js';
import { spans } from '../../../src/engine/spans.js';
import { startTracing } from '../../../src/runtime/tracing/index.js';

const arrivals: number[] = [];
const unavailable = createServer((req, res) => {
  arrivals.push(Date.now());
  req.resume();
  req.on('end', () => res.writeHead(503).end());
});
afterAll(() => unavailable.close());

describe('an export that keeps failing', () => {
  it('is not retried past export_timeout_ms', async () => {
    await new Promise<void>((ok) => unavailable.listen(0, '127.0.0.1', ok));
    const errors: Error[] = [];
    const tracing = await startTracing(
      distributedTracing({
        type: 'http',
        address: `127.0.0.1:${(unavailable.address() as AddressInfo).port}`,
        batch_span_processor_options: { batch_timeout_ms: 60_000, export_timeout_ms: 1500 },
      })!,
      (e) => errors.push(e),
    );
    spans()!.server('one call', {}, () => ({}), (s) => s.end({}));
    await tracing.shutdown();
    const gaveUp = Date.now();
    expect(errors.length).toBe(1);
    expect(arrivals.length).toBeGreaterThan(0);
    // the SDK's retries come 1, 1.5, 2.25, 3.4 s apart (±20 %): wait past the third
    await new Promise((r) => setTimeout(r, 6000));
    expect(arrivals.filter((t) => t > gaveUp + 1000)).toEqual([]);
  }, 20_000);
});
