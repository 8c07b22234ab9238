// status.prometheus reports the server's own metrics: the PluginManager's registry reaches
// the server through serverOptions(), so http_request_duration_seconds recorded for API
// requests shows up both at /metrics and in the status document.

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { startServer } from '../../../src/server/index.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { fastTiming, waitFor } from '../../loopback.js';

type Doc = Record<string, any>;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

describe('status.prometheus and the server registry', () => {
  it('serves the HTTP metrics of decisions in /v1/status and at /metrics', async () => {
    const config = validateConfig({ status: { console: true, prometheus: true } });
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config, engine, timing: fastTiming(), console: pino({ level: 'silent' }) });
    await manager.start();
    cleanup.push(() => manager.stop());
    const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
    cleanup.push(() => server.close());

    const put = await fetch(`${server.url}/v1/policies/p`, { method: 'PUT', body: 'package authz\nallow if input.user == "alice"\n' });
    expect(put.status).toBe(200);
    for (const user of ['alice', 'bob']) {
      const r = await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) });
      expect(r.status).toBe(200);
      await r.text();
    }

    // GET /v1/status answers with the metrics gathered at the previous call: ask until they are there.
    const hist = await waitFor('http metrics in the status document', async () => {
      const st = (await fetch(`${server.url}/v1/status`).then((r) => r.json())) as Doc;
      return st.result?.metrics?.prometheus?.http_request_duration_seconds as Doc | undefined;
    });
    expect(hist).toMatchObject({ name: 'http_request_duration_seconds', type: 'HISTOGRAM' });
    const post = (hist.metric as Doc[]).find((m) => (m.label as Doc[]).some((l) => l.name === 'method' && l.value === 'post'));
    expect(post?.label).toEqual([
      { name: 'code', value: '200' },
      { name: 'handler', value: 'v1/data' },
      { name: 'method', value: 'post' },
    ]);
    expect(post?.histogram.sample_count).toBe(2);
    expect(post?.histogram.bucket.at(-1)).toEqual({ cumulative_count: 2, upper_bound: 'Infinity' });

    const text = await fetch(`${server.url}/metrics`).then((r) => r.text());
    expect(text).toMatch(/http_request_duration_seconds_count\{code="200",handler="v1\/data",method="post"\} 2\n/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="\+Inf",code="200",handler="v1\/data",method="post"\} 2\n/);
  });
});
