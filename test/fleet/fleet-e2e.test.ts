// A fleet, end to end, from the parts users run: three `regolith run --server` processes
// behind Debian's nginx as the load balancer, one OCI registry (Debian's docker-registry)
// they pull the bundle from, one decision-log collector. Revision 2 is pushed while a load
// runs through the balancer: every replica converges within its polling window, no request
// fails during the rollover, each replica's /v1/status shows the revision, and the
// collector receives every decision exactly once. Prints convergence time per replica and
// the requests served during the rollover. Skipped, with the reason printed, only when
// nginx or docker-registry is missing (.ci/run installs both).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushBundle } from '../../src/plugins/bundle/oci-push.js';
import { ServiceClient } from '../../src/plugins/services/client.js';
import { ensureBuilt } from '../cli/helpers.js';
import { freePort, REGISTRY_BIN, startRegistry, type Registry } from '../plugins/bundle/registry.js';
import { archive, gunzipJSON, httpServer, waitFor, type TestHTTPServer } from '../loopback.js';
import { startRun, type RunProcess } from '../runtime/run-process.js';

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
if (!NGINX || !REGISTRY_BIN) console.log(`fleet end-to-end test skipped: ${!NGINX ? 'no nginx binary (apt-get install -y nginx)' : ''} ${!REGISTRY_BIN ? 'no docker-registry binary (apt-get install -y docker-registry)' : ''}`);

const REPLICAS = 3;
const policy = (rev: string) => ({ 'fleet/p.rego': `package fleet\n\ndecision := {"revision": "${rev}", "allow": input.user == "alice"}\n` });

describe.skipIf(!NGINX || !REGISTRY_BIN)('a fleet of replicas behind nginx, fed by one registry, logging to one collector', () => {
  let dir = '';
  let reg: Registry;
  let collector: TestHTTPServer & { events: Record<string, any>[] };
  const replicas: RunProcess[] = [];
  let nginx: ChildProcess | undefined;
  let lb = '';
  let ref = '';
  const client = () => new ServiceClient({ name: 'reg', url: reg.url, type: 'oci', headers: {}, allow_insecure_tls: false, response_header_timeout_seconds: 10, credentials: {} });

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'regolith-fleet-'));
    reg = await startRegistry();
    ref = `${reg.host}/policies/fleet:live`;
    await pushBundle(client(), ref, await archive({ revision: 'r1', roots: ['fleet'], modules: policy('r1') }));
    collector = Object.assign(await httpServer(() => {}), { events: [] as Record<string, any>[] });
    collector.handler = (req, res) => {
      if (req.url === '/logs') collector.events.push(...(gunzipJSON(req.body) as Record<string, any>[]));
      res.statusCode = req.url === '/logs' ? 204 : 200;
      res.end();
    };
    for (let i = 0; i < REPLICAS; i++) {
      const cfg = join(dir, `replica-${i}.yaml`);
      writeFileSync(
        cfg,
        JSON.stringify({
          labels: { replica: `r${i}` },
          services: { registry: { url: reg.url, type: 'oci' }, collector: { url: collector.url } },
          bundles: { fleet: { service: 'registry', resource: ref, polling: { min_delay_seconds: 1, max_delay_seconds: 2 } } },
          decision_logs: { service: 'collector', reporting: { min_delay_seconds: 1, max_delay_seconds: 1 } },
          status: { service: 'collector' },
        }),
      );
      replicas.push(await startRun(['-c', cfg]));
    }
    for (const r of replicas) await waitFor('a replica to activate r1', async () => (await fetch(`${r.url}/health?bundles`)).status === 200, 30_000);
    const port = await freePort();
    mkdirSync(join(dir, 'nginx', 'tmp'), { recursive: true });
    writeFileSync(
      join(dir, 'nginx', 'nginx.conf'),
      `daemon off;
worker_processes 1;
pid ${dir}/nginx/nginx.pid;
error_log ${dir}/nginx/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/nginx/tmp/body;
  proxy_temp_path ${dir}/nginx/tmp/proxy;
  fastcgi_temp_path ${dir}/nginx/tmp/fastcgi;
  uwsgi_temp_path ${dir}/nginx/tmp/uwsgi;
  scgi_temp_path ${dir}/nginx/tmp/scgi;
  upstream regolith {
${replicas.map((r) => `    server ${new URL(r.url).host};`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://regolith;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
    );
    let stderr = '';
    nginx = spawn(NGINX!, ['-p', join(dir, 'nginx'), '-c', join(dir, 'nginx', 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    nginx.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    lb = `http://127.0.0.1:${port}`;
    await waitFor('nginx', async () => {
      if (nginx!.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
      return fetch(`${lb}/health`).then((r) => r.status === 200, () => false);
    }, 10_000);
  }, 120_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      nginx.kill('SIGQUIT');
      await new Promise((r) => setTimeout(r, 200));
      if (nginx.exitCode === null) nginx.kill('SIGKILL');
    }
    for (const r of replicas) await r.kill('SIGTERM');
    await collector?.close();
    await reg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('rolls revision 2 out to every replica with no failed request, and logs every decision exactly once', async () => {
    const answers: { status: number; id?: string; revision?: string; t: number }[] = [];
    let running = true;
    const load = async (): Promise<void> => {
      while (running) {
        const t = Date.now();
        try {
          const r = await fetch(`${lb}/v1/data/fleet/decision`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) });
          const b = (await r.json()) as { decision_id?: string; result?: { revision: string } };
          answers.push({ status: r.status, id: b.decision_id, revision: b.result?.revision, t });
        } catch {
          answers.push({ status: 0, t });
        }
      }
    };
    const loaders = Array.from({ length: 6 }, load);
    await new Promise((r) => setTimeout(r, 500));

    const pushedAt = Date.now();
    await pushBundle(client(), ref, await archive({ revision: 'r2', roots: ['fleet'], modules: policy('r2') }));
    const converged: number[] = [];
    await Promise.all(
      replicas.map(async (r, i) => {
        await waitFor(`replica ${i} to activate r2`, async () => {
          const st = (await (await fetch(`${r.url}/v1/status`)).json()) as { result: { bundles: Record<string, { active_revision: string }> } };
          return st.result.bundles['fleet']?.active_revision === 'r2';
        }, 20_000);
        converged[i] = Date.now() - pushedAt;
      }),
    );
    const allAt = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await Promise.all(loaders);

    const during = answers.filter((a) => a.t >= pushedAt && a.t <= allAt);
    console.log(`fleet: convergence after the push, per replica: ${converged.map((ms, i) => `r${i} ${ms} ms`).join(', ')}; ${during.length} requests served during the rollover (${answers.length} in all)`);
    // polling window: max_delay_seconds 2, plus the download and activation
    for (const ms of converged) expect(ms).toBeLessThan(5_000);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.every((a) => a.revision === 'r1' || a.revision === 'r2')).toBe(true);
    // after every replica reported r2, nobody answers r1
    expect(answers.filter((a) => a.t > allAt && a.revision !== 'r2')).toEqual([]);
    expect(during.length).toBeGreaterThan(0);

    const ids = answers.map((a) => a.id!);
    expect(new Set(ids).size).toBe(ids.length);
    await waitFor('every decision at the collector', () => collector.events.length >= ids.length, 15_000);
    await new Promise((r) => setTimeout(r, 1500)); // a late duplicate would arrive by now
    const logged = collector.events.map((e) => e['decision_id'] as string);
    expect(logged.length).toBe(ids.length);
    expect(new Set(logged)).toEqual(new Set(ids));
    // each event names the revision that decided it and the replica that logged it
    const byId = new Map(collector.events.map((e) => [e['decision_id'], e]));
    for (const a of answers) {
      const e = byId.get(a.id)!;
      expect(e['bundles']).toEqual({ fleet: { revision: a.revision } });
      expect(e['labels']['replica']).toMatch(/^r[0-2]$/);
    }
    expect(new Set(collector.events.map((e) => e['labels']['replica'])).size).toBe(REPLICAS);
  }, 90_000);
});
