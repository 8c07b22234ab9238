// End to end: bundles served as static files by a real nginx (Debian package `nginx`,
// installed by .ci/run). Shows ETag / If-None-Match / 304 and updates picked up by polling.
// Skipped, with the reason printed, only when no nginx binary exists on the machine.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { archive, fastTiming, waitFor } from '../../loopback.js';
import { NGINX, startNginx, type Nginx } from '../../nginx.js';

if (!NGINX) console.log('nginx end-to-end test skipped: no nginx binary (apt-get install -y nginx)');

describe.skipIf(!NGINX)('bundles from nginx', () => {
  let nginx: Nginx;

  beforeAll(async () => {
    nginx = await startNginx();
  });

  afterAll(async () => {
    await nginx?.stop();
  });

  /** Replaces the served bundle (atomically, with a new mtime and so a new ETag). */
  const publish = (bytes: Buffer): void => nginx.publish('bundles/authz.tar.gz', bytes);

  it('activates, revalidates with ETag (304), and picks up an update by polling', async () => {
    const policy = (who: string) => ({ 'authz/p.rego': `package authz\nallow if input.user == "${who}"\n` });
    publish(await archive({ revision: 'v1', roots: ['authz'], modules: policy('alice') }));
    const config = validateConfig({
      services: { nginx: { url: nginx.url } },
      bundles: { authz: { service: 'nginx', resource: 'bundles/authz.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 2 } } },
    });
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config, engine, timing: fastTiming(50) });
    await manager.start();
    try {
      await waitFor('v1', () => manager.bundle!.bundleStatuses()['authz']!.active_revision === 'v1', 10_000);
      expect((await engine.evaluate(['authz', 'allow'], { input: { user: 'alice' } })).result).toBe(true);

      // nginx answers the conditional requests with 304 while the file is unchanged.
      const log = (): string[] => nginx.accessLog();
      await waitFor('a 304 from nginx', () => log().some((l) => / 304 /.test(l)), 10_000);
      const first200 = log().filter((l) => / 200 /.test(l)).length;
      expect(first200).toBe(1);
      // nginx logs before the plugin has handled the response: wait for the plugin to see it.
      await waitFor('a request after the download', () => {
        const st = manager.bundle!.bundleStatuses()['authz']!;
        return st.last_successful_request > st.last_successful_download;
      });

      publish(await archive({ revision: 'v2', roots: ['authz'], modules: policy('bob') }));
      await waitFor('v2', () => manager.bundle!.bundleStatuses()['authz']!.active_revision === 'v2', 10_000);
      expect((await engine.evaluate(['authz', 'allow'], { input: { user: 'bob' } })).result).toBe(true);
      expect((await engine.evaluate(['authz', 'allow'], { input: { user: 'alice' } })).result).toBeUndefined();
      expect(log().filter((l) => / 200 /.test(l)).length).toBe(2);
    } finally {
      await manager.stop();
    }
  });
});
