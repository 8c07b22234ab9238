// The plugins `regolith run` starts, as the console sees them: with discovery, the decision
// feed reads its upload counters from whatever decision-log plugin the discovered
// configuration runs now.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { startPlugins, type RunningPlugins } from '../../src/runtime/plugins.js';
import { counters } from '../../src/console/routes/decisions.js';
import { archive, httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../loopback.js';

const files: BundleFiles = {};
let service: TestHTTPServer;
let plugins: RunningPlugins | undefined;

beforeAll(async () => {
  service = await httpServer(serveBundles(files));
});
afterAll(async () => {
  await plugins?.stop(1000);
  await service.close();
});

describe('startPlugins with discovery', () => {
  it("gives the console the counters of the decision log the discovered configuration runs", async () => {
    // the discovered configuration logs decisions to the same service, rarely enough that they stay buffered
    const discovered = { decision_logs: { service: 'disco', reporting: { min_delay_seconds: 3600, max_delay_seconds: 3600 } } };
    files['/discovery.tar.gz'] = { body: await archive({ revision: 'd1', data: { config: discovered } }), etag: '"d1"' };
    const config = validateConfig({
      services: { disco: { url: service.url } },
      discovery: { resource: '/discovery.tar.gz', decision: 'config', polling: { min_delay_seconds: 1, max_delay_seconds: 1 } },
    });
    const engine = new RegolithEngine();
    plugins = await startPlugins({ config, engine, logger: pino({ level: 'silent' }), regoVersion: 'v1' });
    const feed = plugins.decisionFeed;
    expect(feed).toBeDefined();
    const consoleOf = { assetsDir: '', decisions: feed };
    const log = plugins.serverOptions.decisionLogger!;
    await waitFor('the discovered decision log', async () => {
      await log({ decision_id: 'x', path: 'p', timestamp: new Date().toISOString() } as never);
      const c = counters(consoleOf);
      return c['available'] === true && (c['buffered'] as number) > 0;
    }, 10_000);
    expect(counters(consoleOf)).toMatchObject({ enabled: true, available: true, uploaded: 0, dropped: { buffer_size_limit: 0, rate_limit: 0, event_too_large: 0 } });
  }, 20_000);
});
