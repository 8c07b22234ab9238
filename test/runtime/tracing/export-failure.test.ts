// An export that fails while the server runs (a receiver refusing the spans, or none there) is
// reported as it happens, as OPA's OpenTelemetry error handler logs a warning for it; before,
// it reached only OpenTelemetry's diagnostic logger, which nothing reads.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { distributedTracing } from '../../../src/plugins/tracing/config.js';
import { spans } from '../../../src/engine/spans.js';
import { startTracing } from '../../../src/runtime/tracing/index.js';

const refusing = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(400, { 'content-type': 'text/plain' }).end('bad spans'));
});
afterAll(() => refusing.close());

describe('a failed export while running', () => {
  it('is reported before shutdown, once per failed batch', async () => {
    await new Promise<void>((ok) => refusing.listen(0, '127.0.0.1', ok));
    const failures: Error[] = [];
    const atShutdown: Error[] = [];
    const tracing = await startTracing(
      distributedTracing({
        type: 'http',
        address: `127.0.0.1:${(refusing.address() as AddressInfo).port}`,
        batch_span_processor_options: { batch_timeout_ms: 50, export_timeout_ms: 5000 },
      })!,
      (e) => atShutdown.push(e),
      (e) => failures.push(e),
    );
    try {
      spans()!.server('one call', {}, () => ({}), (s) => s.end({}));
      const until = Date.now() + 15_000;
      while (failures.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(failures).toHaveLength(1);
      expect(failures[0]!.message).not.toBe('');
    } finally {
      await tracing.shutdown();
    }
    expect(atShutdown).toEqual([]);
  }, 30_000);
});
