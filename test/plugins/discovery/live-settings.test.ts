// The settings a discovered configuration carries besides plugins: default_decision and
// nd_builtin_cache apply live (the server reads them per request, as OPA's does); the
// start-only ones (server, default_authorization_decision, persistence_directory,
// distributed_tracing, caching, storage) are named when they change.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { startServer } from '../../../src/server/index.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { restartKeys } from '../../../src/plugins/discovery/restart-keys.js';
import { archive, fastTiming, httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../../loopback.js';

const files: BundleFiles = {};
let bundles: TestHTTPServer;
let etag = 0;

async function publish(config: Record<string, unknown>): Promise<void> {
  files['/discovery.tar.gz'] = { body: await archive({ revision: `d${etag}`, data: { config } }), etag: `"d${++etag}"` };
}

beforeAll(async () => {
  const modules = { 'gate/p.rego': 'package gate\n\nfirst := sprintf("first %v", [input.who])\n\nsecond := sprintf("second %v", [input.who])\n' };
  files['/bundles/gate.tar.gz'] = { body: await archive({ revision: 'g1', roots: ['gate'], modules }), etag: '"g"' };
  bundles = await httpServer(serveBundles(files));
});

afterAll(async () => {
  await bundles.close();
});

describe('discovered default_decision', () => {
  it('switches the decision POST / answers without a restart', async () => {
    const discovered = (path: string) => ({
      bundles: { gate: { service: 'disco', resource: '/bundles/gate.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 2 } } },
      default_decision: path,
    });
    await publish(discovered('/gate/first'));
    const config = validateConfig({
      services: { disco: { url: bundles.url } },
      discovery: { resource: '/discovery.tar.gz', decision: 'config', polling: { min_delay_seconds: 1, max_delay_seconds: 1 } },
    });
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config, engine, timing: fastTiming(20), id: 'live-1', version: '1.0.0' });
    await manager.start();
    const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
    const post = async () => (await (await fetch(server.url + '/', { method: 'POST', body: JSON.stringify({ who: 'ann' }) })).json()) as unknown;
    try {
      await waitFor('the first decision', async () => (await post()) === 'first ann', 10_000);
      await publish(discovered('/gate/second'));
      await waitFor('the second decision, live', async () => (await post()) === 'second ann', 10_000);
    } finally {
      await server.close();
      await manager.stop();
    }
  }, 30_000);
});

describe('start-only settings', () => {
  it('are named when the discovered configuration changes them, live ones are not', () => {
    const applied = { server: { encoding: { gzip: { min_length: 1024 } } }, default_decision: '/a', caching: { inter_query_builtin_cache: { max_size_bytes: 10 } } };
    expect(restartKeys(applied, { ...applied, default_decision: '/b', nd_builtin_cache: true })).toEqual([]);
    expect(restartKeys(applied, { default_decision: '/a', persistence_directory: '/tmp/x', server: { encoding: { gzip: { min_length: 10 } } }, caching: applied.caching })).toEqual([
      'server',
      'persistence_directory',
    ]);
  });
});
