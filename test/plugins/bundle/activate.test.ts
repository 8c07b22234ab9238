// Bundle activation through the PluginManager with the real engine: each bundle is
// compiled exactly once (inside the activation transaction, by the engine), and a bundle
// that does not compile changes nothing.

import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { archive, fastTiming, httpServer, serveBundles, type BundleFiles } from '../../loopback.js';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

const LIB = 'package lib\nthreshold := data.lib.limit\n';
const APP = (cmp: string) => `package app\nallow if input.n ${cmp} data.lib.threshold\n`;

async function setup() {
  const files: BundleFiles = {};
  const svc = await httpServer(serveBundles(files));
  cleanup.push(() => svc.close());
  const config = validateConfig({
    services: { acme: { url: svc.url } },
    bundles: { main: { service: 'acme', resource: '/b', trigger: 'manual' } },
  });
  const engine = new RegolithEngine();
  const manager = new PluginManager({ config, engine, timing: fastTiming() });
  cleanup.push(() => manager.stop());
  await manager.start();
  const allow = async (n: number) => (await engine.evaluate(['app', 'allow'], { input: { n } })).result;
  return { files, engine, manager, allow };
}

describe('bundle activation compiles once', () => {
  it('one compilation per activated bundle; a failing bundle leaves the active one serving', async () => {
    const { files, engine, manager, allow } = await setup();
    files['/b'] = { body: await archive({ revision: 'r1', roots: ['app', 'lib'], modules: { 'app/a.rego': APP('<'), 'lib/l.rego': LIB }, data: { lib: { limit: 10 } } }), etag: '"1"' };
    let compiles = engine.stats.compiles;
    await manager.trigger();
    expect(manager.bundle!.bundleStatuses()['main']!.active_revision).toBe('r1');
    expect(engine.stats.compiles - compiles).toBe(1);
    // The commit carried the compiled policy: the engine did not rebuild from the store.
    expect(engine.stats.rebuilds).toBe(0);
    expect(await allow(5)).toBe(true);
    expect(await allow(50)).toBeUndefined();

    // r2 refers to an undefined function: compiled once, refused, nothing changes.
    files['/b'] = { body: await archive({ revision: 'r2', roots: ['app', 'lib'], modules: { 'app/a.rego': 'package app\nallow if nope(input.n)\n', 'lib/l.rego': LIB }, data: { lib: { limit: 100 } } }), etag: '"2"' };
    const snap = engine.store.snapshot();
    compiles = engine.stats.compiles;
    await manager.trigger();
    const st = manager.bundle!.bundleStatuses()['main']!;
    expect(st.active_revision).toBe('r1');
    expect(st.code).toBe('bundle_error');
    expect(st.errors?.join('\n')).toMatch(/app\/a\.rego/);
    expect(engine.stats.compiles - compiles).toBe(1);
    expect(engine.store.snapshot()).toBe(snap);
    expect(await allow(50)).toBeUndefined();
    expect(engine.store.read(['lib', 'limit'])).toBe(10);

    // r3: modules replaced and one removed, data updated, still one compilation.
    files['/b'] = { body: await archive({ revision: 'r3', roots: ['app', 'lib'], modules: { 'app/a.rego': 'package app\nallow if input.n > data.lib.limit\n' }, data: { lib: { limit: 100 } } }), etag: '"3"' };
    compiles = engine.stats.compiles;
    await manager.trigger();
    expect(manager.bundle!.bundleStatuses()['main']!.active_revision).toBe('r3');
    expect(engine.stats.compiles - compiles).toBe(1);
    expect(engine.stats.rebuilds).toBe(0);
    expect(engine.listPolicies().map((p) => p.id)).toEqual(['main/app/a.rego']);
    expect(await allow(500)).toBe(true);
    expect(await allow(50)).toBeUndefined();
  });
});
