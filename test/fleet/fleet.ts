// A fleet from the parts users run, for the fleet end-to-end tests: `regolith run --server`
// replicas (the built binary) behind Debian's nginx, one OCI registry (Debian's
// docker-registry) they poll for the bundle, one decision-log collector that keeps every
// event it receives. nginx names the replica that answered each request (X-Upstream), so a
// test can tell which replica a failure came from; a replica can be killed and restarted
// on its address, the registry stopped and started again on its storage.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushBundle } from '../../src/plugins/bundle/oci-push.js';
import { ServiceClient } from '../../src/plugins/services/client.js';
import { freePort, REGISTRY_BIN, startRegistry, type Registry } from '../plugins/bundle/registry.js';
import { archive, gunzipJSON, httpServer, waitFor, type TestHTTPServer } from '../loopback.js';
import { startRun, type RunProcess } from '../runtime/run-process.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
export { REGISTRY_BIN };
/** Why the fleet tests cannot run here, or undefined. */
export const MISSING = [!NGINX && 'no nginx binary (apt-get install -y nginx)', !REGISTRY_BIN && 'no docker-registry binary (apt-get install -y docker-registry)'].filter(Boolean).join(', ') || undefined;

const policy = (rev: string) => ({ 'fleet/p.rego': `package fleet\n\ndecision := {"revision": "${rev}", "allow": input.user == "alice"}\n` });

export interface Fleet {
  /** The load balancer. */
  lb: string;
  reg: Registry;
  /** Current process of each replica (a restart replaces it). */
  replicas: RunProcess[];
  /** host:port of each replica, as nginx names it in X-Upstream. */
  hosts: string[];
  /** Every decision-log event the collector received, in order of arrival. */
  events: Record<string, any>[];
  /** Pushes a bundle of revision `rev` to the tag every replica polls. */
  push(rev: string): Promise<void>;
  /** The revision replica `i` reports active in /v1/status (undefined when it does not answer). */
  revision(i: number): Promise<string | undefined>;
  /** The bundle's status in replica `i`'s /v1/status (undefined when it does not answer). */
  bundleStatus(i: number): Promise<{ active_revision: string; code?: string; message?: string } | undefined>;
  /** SIGKILL: no shutdown, no last flush, as in a crash. */
  kill(i: number): Promise<void>;
  /** Starts replica `i` again on its address with its configuration (and its persisted bundle). */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

export interface FleetOptions {
  replicas: number;
  /** bundles.fleet.persist, with a persistence directory per replica. */
  persist?: boolean;
}

/** Starts the fleet from the built binary (the caller runs ensureBuilt first, in a hook of its own). */
export async function startFleet(opts: FleetOptions): Promise<Fleet> {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-fleet-'));
  const reg = await startRegistry();
  const ref = `${reg.host}/policies/fleet:live`;
  const client = new ServiceClient({ name: 'reg', url: reg.url, type: 'oci', headers: {}, allow_insecure_tls: false, response_header_timeout_seconds: 10, credentials: {} });
  const push = async (rev: string): Promise<void> => void (await pushBundle(client, ref, await archive({ revision: rev, roots: ['fleet'], modules: policy(rev) })));
  await push('r1');

  const events: Record<string, any>[] = [];
  const collector: TestHTTPServer = await httpServer((req, res) => {
    if (req.url === '/logs') events.push(...(gunzipJSON(req.body) as Record<string, any>[]));
    res.statusCode = req.url === '/logs' ? 204 : 200;
    res.end();
  });

  const configs: string[] = [];
  const replicas: RunProcess[] = [];
  for (let i = 0; i < opts.replicas; i++) {
    const cfg = join(dir, `replica-${i}.yaml`);
    writeFileSync(
      cfg,
      JSON.stringify({
        labels: { replica: `r${i}` },
        services: { registry: { url: reg.url, type: 'oci' }, collector: { url: collector.url } },
        bundles: { fleet: { service: 'registry', resource: ref, persist: !!opts.persist, polling: { min_delay_seconds: 1, max_delay_seconds: 2 } } },
        decision_logs: { service: 'collector', reporting: { min_delay_seconds: 1, max_delay_seconds: 1 } },
        status: { service: 'collector' },
        ...(opts.persist ? { persistence_directory: join(dir, `replica-${i}-state`) } : {}),
      }),
    );
    configs.push(cfg);
    replicas.push(await startRun(['-c', cfg]));
  }
  const hosts = replicas.map((r) => new URL(r.url).host);
  for (const r of replicas) await waitFor('a replica to activate r1', async () => (await fetch(`${r.url}/health?bundles`)).status === 200, 30_000);

  const { nginx, lb } = await startNginx(dir, hosts);
  const fleet: Fleet = {
    lb,
    reg,
    replicas,
    hosts,
    events,
    push,
    async bundleStatus(i) {
      try {
        const st = (await (await fetch(`${replicas[i]!.url}/v1/status`)).json()) as { result: { bundles: Record<string, { active_revision: string; code?: string; message?: string }> } };
        return st.result.bundles['fleet'];
      } catch {
        return undefined;
      }
    },
    async revision(i) {
      return (await fleet.bundleStatus(i))?.active_revision;
    },
    async kill(i) {
      await replicas[i]!.kill('SIGKILL');
    },
    async restart(i) {
      replicas[i] = await startRun(['-c', configs[i]!], { addr: hosts[i] });
    },
    async stop() {
      if (nginx.exitCode === null) {
        nginx.kill('SIGQUIT');
        await new Promise((r) => setTimeout(r, 200));
        if (nginx.exitCode === null) nginx.kill('SIGKILL');
      }
      // together: each flushes its decision logs and status before it exits
      await Promise.all(replicas.map((r) => r.kill('SIGTERM')));
      await collector.close();
      await reg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return fleet;
}

/**
 * nginx in front of the replicas. A replica that refuses a connection is left out for one
 * second (fail_timeout), so a restarted one gets requests again soon; X-Upstream names the
 * replica (or replicas, when nginx moved on from one that refused) behind each answer.
 */
async function startNginx(dir: string, hosts: string[]): Promise<{ nginx: ChildProcess; lb: string }> {
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
${hosts.map((h) => `    server ${h} max_fails=1 fail_timeout=1s;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://regolith;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`,
  );
  let stderr = '';
  const nginx = spawn(NGINX!, ['-p', join(dir, 'nginx'), '-c', join(dir, 'nginx', 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  nginx.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const lb = `http://127.0.0.1:${port}`;
  await waitFor(
    'nginx',
    async () => {
      if (nginx.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
      return fetch(`${lb}/health`).then((r) => r.status === 200, () => false);
    },
    10_000,
  );
  return { nginx, lb };
}

export interface Answer {
  status: number;
  id?: string;
  revision?: string;
  /** The replica(s) nginx tried, last one answering (X-Upstream). */
  upstream?: string;
  /** When the request was sent and when its answer came. */
  t: number;
  done: number;
}

/** `clients` loops of decisions through the load balancer until stop(). */
export function startLoad(lb: string, clients: number): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      const t = Date.now();
      try {
        const r = await fetch(`${lb}/v1/data/fleet/decision`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) });
        const text = await r.text();
        let b: { decision_id?: string; result?: { revision: string } } = {};
        try {
          b = JSON.parse(text) as typeof b;
        } catch {
          /* an nginx error page */
        }
        answers.push({ status: r.status, id: b.decision_id, revision: b.result?.revision, upstream: r.headers.get('x-upstream') ?? undefined, t, done: Date.now() });
      } catch {
        answers.push({ status: 0, t, done: Date.now() });
      }
    }
  };
  const loops = Array.from({ length: clients }, loop);
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Waits until replica `i` reports `rev` active; resolves with the time it was seen. */
export async function converged(fleet: Fleet, i: number, rev: string, timeoutMs: number): Promise<number> {
  await waitFor(`replica ${i} to activate ${rev}`, async () => (await fleet.revision(i)) === rev, timeoutMs);
  return Date.now();
}
