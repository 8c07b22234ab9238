// End to end: bundles served as static files by a real nginx (Debian package `nginx`,
// installed by .ci/run). Shows ETag / If-None-Match / 304 and updates picked up by polling.
// Skipped, with the reason printed, only when no nginx binary exists on the machine.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { archive, fastTiming, freePort, waitFor } from '../../loopback.js';

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
if (!NGINX) console.log('nginx end-to-end test skipped: no nginx binary (apt-get install -y nginx)');


describe.skipIf(!NGINX)('bundles from nginx', () => {
  let dir = '';
  let port = 0;
  let proc: ChildProcess | undefined;
  let stderr = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regolith-nginx-'));
    // nginx workers may run as an unprivileged user: the tree must be world-readable.
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'www', 'bundles'), { recursive: true, mode: 0o755 });
    mkdirSync(join(dir, 'tmp'), { mode: 0o755 });
    port = await freePort();
    const conf = `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  server {
    listen 127.0.0.1:${port};
    location / { root ${dir}/www; etag on; }
  }
}
`;
    writeFileSync(join(dir, 'nginx.conf'), conf);
    proc = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    await waitFor(
      'nginx to listen',
      async () => {
        if (proc!.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
        try {
          return (await fetch(`http://127.0.0.1:${port}/`)).status > 0;
        } catch {
          return false;
        }
      },
      10_000,
    );
  });

  afterAll(async () => {
    if (proc && proc.exitCode === null) {
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGQUIT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Replaces the served file atomically, with a distinct mtime (nginx's ETag is mtime-size). */
  function publish(bytes: Buffer, mtimeSec: number): void {
    const tmp = join(dir, 'www', 'bundles', '.next');
    writeFileSync(tmp, bytes, { mode: 0o644 });
    utimesSync(tmp, mtimeSec, mtimeSec);
    renameSync(tmp, join(dir, 'www', 'bundles', 'authz.tar.gz'));
  }

  it('activates, revalidates with ETag (304), and picks up an update by polling', async () => {
    const policy = (who: string) => ({ 'authz/p.rego': `package authz\nallow if input.user == "${who}"\n` });
    publish(await archive({ revision: 'v1', roots: ['authz'], modules: policy('alice') }), 1_700_000_000);
    const config = validateConfig({
      services: { nginx: { url: `http://127.0.0.1:${port}` } },
      bundles: { authz: { service: 'nginx', resource: 'bundles/authz.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 2 } } },
    });
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config, engine, timing: fastTiming(50) });
    await manager.start();
    try {
      await waitFor('v1', () => manager.bundle!.bundleStatuses()['authz']!.active_revision === 'v1', 10_000);
      expect((await engine.evaluate(['authz', 'allow'], { input: { user: 'alice' } })).result).toBe(true);

      // nginx answers the conditional requests with 304 while the file is unchanged.
      const log = (): string[] => readFileSync(join(dir, 'access.log'), 'utf8').trim().split('\n');
      await waitFor('a 304 from nginx', () => log().some((l) => / 304 /.test(l)), 10_000);
      const first200 = log().filter((l) => / 200 /.test(l)).length;
      expect(first200).toBe(1);
      // nginx logs before the plugin has handled the response: wait for the plugin to see it.
      await waitFor('a request after the download', () => {
        const st = manager.bundle!.bundleStatuses()['authz']!;
        return st.last_successful_request > st.last_successful_download;
      });

      publish(await archive({ revision: 'v2', roots: ['authz'], modules: policy('bob') }), 1_700_000_100);
      await waitFor('v2', () => manager.bundle!.bundleStatuses()['authz']!.active_revision === 'v2', 10_000);
      expect((await engine.evaluate(['authz', 'allow'], { input: { user: 'bob' } })).result).toBe(true);
      expect((await engine.evaluate(['authz', 'allow'], { input: { user: 'alice' } })).result).toBeUndefined();
      expect(log().filter((l) => / 200 /.test(l)).length).toBe(2);
    } finally {
      await manager.stop();
    }
  });
});
