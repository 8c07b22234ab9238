// The plugins' reconfigure paths that discovery drives, one at a time: the bundle plugin
// (removed bundles deactivated, changed ones restarted, readiness kept as OPA keeps it),
// the decision log plugin (new buffer limits keep the buffered events), the adapters
// (unchanged ones keep running) and the manager (labels with id and version kept).

import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { StoreActivator } from '../../../src/plugins/bundle/activate.js';
import { BundlePlugin } from '../../../src/plugins/bundle/plugin.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { registerAdapterType } from '../../../src/plugins/adapters/registry.js';
import { archive, fastTiming, gunzipJSON, httpServer, waitFor, type TestHTTPServer } from '../../loopback.js';

type Doc = Record<string, any>;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

const policy = (pkg: string, who: string): Record<string, string> => ({ [`${pkg}/p.rego`]: `package ${pkg}\n\nallow if input.user == "${who}"\n` });

async function server(handler: Parameters<typeof httpServer>[0]): Promise<TestHTTPServer> {
  const s = await httpServer(handler);
  cleanup.push(() => s.close());
  return s;
}

describe('BundlePlugin.reconfigure', () => {
  it('deactivates a removed bundle, restarts a changed one, starts a new one, and stays OK while it downloads', async () => {
    const files: Record<string, Buffer> = {
      '/a1': await archive({ revision: 'a1', roots: ['a'], modules: policy('a', 'alice') }),
      '/a2': await archive({ revision: 'a2', roots: ['a'], modules: policy('a', 'bob') }),
      '/b': await archive({ revision: 'b1', roots: ['b'], modules: policy('b', 'carol') }),
    };
    let holdC = true;
    const requests: string[] = [];
    const svc = await server(async (req, res) => {
      requests.push(req.url);
      if (req.url === '/c') {
        while (holdC) await new Promise((r) => setTimeout(r, 20));
        res.end(await archive({ revision: 'c1', roots: ['c'], modules: policy('c', 'dave') }));
        return;
      }
      const f = files[req.url];
      res.statusCode = f ? 200 : 404;
      res.end(f);
    });
    const polling = { min_delay_seconds: 1, max_delay_seconds: 1 };
    const cfg = (bundles: Doc) => validateConfig({ services: { s: { url: svc.url } }, bundles });
    const c1 = cfg({ a: { service: 's', resource: '/a1', polling }, b: { service: 's', resource: '/b', polling } });
    const engine = new RegolithEngine();
    const clients = new Map([['s', new ServiceClient(c1.services['s']!, 20)]]);
    const plugin = new BundlePlugin({ config: c1, clients, activator: new StoreActivator(engine), timing: fastTiming(20) });
    cleanup.push(() => plugin.stop());
    await plugin.start();
    await waitFor('both active', () => plugin.status().state === 'OK');
    const allow = async (pkg: string, user: string) => (await engine.evaluate([pkg, 'allow'], { input: { user } })).result;
    expect(await allow('b', 'carol')).toBe(true);

    // a: new resource; b: removed; c: new (its download held).
    await plugin.reconfigure(cfg({ a: { service: 's', resource: '/a2', polling }, c: { service: 's', resource: '/c', polling } }));
    expect(plugin.status().state).toBe('OK');
    await waitFor('a2', () => plugin.bundleStatuses()['a']!.active_revision === 'a2');
    expect(await allow('a', 'bob')).toBe(true);
    expect(await allow('b', 'carol')).toBeUndefined();
    expect(Object.keys(plugin.bundleStatuses()).sort()).toEqual(['a', 'c']);
    expect(plugin.revisions()).toEqual({ a: 'a2' });
    const seen = requests.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(requests.slice(seen).filter((u) => u === '/b' || u === '/a1')).toEqual([]);
    holdC = false;
    await waitFor('c', () => plugin.bundleStatuses()['c']!.active_revision === 'c1');
    expect(await allow('c', 'dave')).toBe(true);
  });
});

describe('DecisionLogPlugin.reconfigure', () => {
  it('keeps the buffered events when the buffer limits and the service change', async () => {
    const got: Record<string, Doc[]> = { a: [], b: [] };
    const collector = (name: 'a' | 'b', up: () => boolean) =>
      server((req, res) => {
        if (up()) got[name]!.push(...(gunzipJSON(req.body) as Doc[]));
        res.statusCode = up() ? 204 : 503;
        res.end();
      });
    const a = await collector('a', () => false);
    const b = await collector('b', () => true);
    const config = (svc: string, extra: Doc) =>
      validateConfig({ services: { a: { url: a.url }, b: { url: b.url } }, decision_logs: { service: svc, reporting: { min_delay_seconds: 1, max_delay_seconds: 1, ...extra } } });
    const c1 = config('a', {});
    const clients = new Map(Object.entries(c1.services).map(([n, s]) => [n, new ServiceClient(s, 20)]));
    const plugin = new DecisionLogPlugin({ config: c1, client: clients.get('a'), labels: { id: 'x' }, timing: fastTiming(20) });
    cleanup.push(() => plugin.stop());
    await plugin.start();
    for (let i = 0; i < 5; i++) await plugin.logDecision({ decision_id: `d${i}`, path: 'p', timestamp: new Date().toISOString() } as never);
    await waitFor('a failed upload', () => plugin.uploadStatus().code === 'decision_logs_error');

    await plugin.reconfigure(config('b', { buffer_size_limit_bytes: 1_000_000, upload_size_limit_bytes: 65536 }), clients.get('b'), { id: 'x', stage: 'two' });
    await plugin.logDecision({ decision_id: 'after', path: 'p', timestamp: new Date().toISOString() } as never);
    await waitFor('every event at b', () => got['b']!.length === 6);
    expect(got['b']!.map((e) => e['decision_id'])).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'after']);
    expect(got['b']![5]!['labels']).toEqual({ id: 'x', stage: 'two' });
    expect(plugin.uploadStatus().code).toBeUndefined();
  });
});

describe('PluginManager.reconfigure', () => {
  it('keeps labels.id and labels.version, and starts and stops decision logging', async () => {
    const events: Doc[] = [];
    const c = await server((req, res) => {
      events.push(...(gunzipJSON(req.body) as Doc[]));
      res.statusCode = 204;
      res.end();
    });
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config: validateConfig({ labels: { a: '1' } }), engine, timing: fastTiming(20), id: 'the-id', version: '9.9.9' });
    cleanup.push(() => manager.stop());
    await manager.start();
    expect(manager.decisionLogs).toBeUndefined();
    await manager.reconfigure(validateConfig({ services: { c: { url: c.url } }, labels: { b: '2' }, decision_logs: { service: 'c', reporting: { min_delay_seconds: 1, max_delay_seconds: 1 } } }));
    expect(manager.labels).toEqual({ b: '2', id: 'the-id', version: '9.9.9' });
    await manager.decisionLogs!.logDecision({ decision_id: 'x1', path: 'p', timestamp: new Date().toISOString() } as never);
    await waitFor('the event', () => events.length === 1);
    expect(events[0]!['labels']).toEqual({ b: '2', id: 'the-id', version: '9.9.9' });
    expect(manager.pluginStates()).toHaveProperty('decision_logs');

    await manager.reconfigure(validateConfig({ labels: { b: '3' } }));
    expect(manager.decisionLogs).toBeUndefined();
    expect(manager.pluginStates()).not.toHaveProperty('decision_logs');
  });
});

describe('adapters under a new configuration', () => {
  it('keeps an unchanged adapter running, replaces a changed one, starts a new one, removes a dropped one and its document', async () => {
    registerAdapterType('discovery_test_doc', {
      kind: 'data',
      settings: (s) => s.str('value') ?? '',
      data: (value) => ({ read: async () => ({ value: value as string }) }),
    });
    const svc = await server((_req, res) => void res.end());
    const cfg = (adapters: Doc) => validateConfig({ services: { s: { url: svc.url } }, adapters });
    const polling = { min_delay_seconds: 1, max_delay_seconds: 1 };
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config: cfg({ keep: { type: 'discovery_test_doc', service: 's', value: 'k', polling }, change: { type: 'discovery_test_doc', service: 's', value: 'c1', polling }, drop: { type: 'discovery_test_doc', service: 's', value: 'd', polling } }), engine, timing: fastTiming(20) });
    cleanup.push(() => manager.stop());
    await manager.start();
    const doc = async (name: string) => (await engine.evaluate([name, 'value'], {})).result;
    await waitFor('all three documents', async () => (await doc('keep')) === 'k' && (await doc('change')) === 'c1' && (await doc('drop')) === 'd');
    const kept = manager.adapters!.data.get('keep');

    await manager.reconfigure(cfg({ keep: { type: 'discovery_test_doc', service: 's', value: 'k', polling }, change: { type: 'discovery_test_doc', service: 's', value: 'c2', polling }, add: { type: 'discovery_test_doc', service: 's', value: 'a', polling } }));
    expect(manager.adapters!.data.get('keep')).toBe(kept);
    expect([...manager.adapters!.data.keys()].sort()).toEqual(['add', 'change', 'keep']);
    await waitFor('the changed and the new document', async () => (await doc('change')) === 'c2' && (await doc('add')) === 'a');
    expect(await doc('drop')).toBeUndefined();
    expect(Object.keys(manager.pluginStates()).filter((n) => n.startsWith('adapter/')).sort()).toEqual(['adapter/add', 'adapter/change', 'adapter/keep']);
  });
});
