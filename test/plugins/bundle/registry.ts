// A real OCI registry for the tests: Debian's `docker-registry` (the distribution project's
// registry:2), started on a loopback port with storage in a temporary directory; and a
// token-auth front for it, as hosted registries do (401 with a Bearer challenge, a token
// service that takes Basic credentials, then the registry behind it).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { freePort } from '../../loopback.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REGISTRY_BIN = ['/usr/bin/docker-registry', '/usr/local/bin/docker-registry', '/usr/bin/registry'].find((p) => existsSync(p));

export { freePort } from '../../loopback.js';

export interface Registry {
  /** host:port */
  host: string;
  url: string;
  stop(): Promise<void>;
  /** Stops the registry process (SIGKILL), keeping its storage: clients see connection refused. */
  halt(): Promise<void>;
  /** Starts it again on the same port and storage after halt(). */
  resume(): Promise<void>;
}

export async function startRegistry(): Promise<Registry> {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-registry-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'config.yml'),
    `version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: ${dir}/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:${port}
`,
  );
  const url = `http://127.0.0.1:${port}`;
  let proc: ChildProcess = await spawnRegistry(dir, url);
  const exited = (p: ChildProcess): Promise<void> => new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));
  return {
    host: `127.0.0.1:${port}`,
    url,
    async stop() {
      proc.kill('SIGTERM');
      await exited(proc);
      rmSync(dir, { recursive: true, force: true });
    },
    async halt() {
      proc.kill('SIGKILL');
      await exited(proc);
    },
    async resume() {
      proc = await spawnRegistry(dir, url);
    },
  };
}

async function spawnRegistry(dir: string, url: string): Promise<ChildProcess> {
  let stderr = '';
  const proc: ChildProcess = spawn(REGISTRY_BIN!, ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/v2/`)).status === 200) return proc;
    } catch {
      /* not listening yet */
    }
    if (i > 100 || proc.exitCode !== null) throw new Error(`docker-registry did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface TokenFront {
  host: string;
  url: string;
  /** Requests seen: method and path, and whether they carried a valid token. */
  seen: { method: string; path: string; token: boolean }[];
  tokensIssued: number;
  stop(): Promise<void>;
}

/** Bearer-token auth in front of `backend`: tokens for `user:password` only. */
export async function tokenFront(backend: Registry, user: string, password: string): Promise<TokenFront> {
  const tokens = new Set<string>();
  const front: TokenFront = { host: '', url: '', seen: [], tokensIssued: 0, stop: async () => {} };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/token')) {
      const auth = req.headers['authorization'] ?? '';
      if (auth !== `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        return void res.end('{"errors":[{"code":"UNAUTHORIZED","message":"bad credentials"}]}');
      }
      const t = `tok-${++front.tokensIssued}`;
      tokens.add(t);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ token: t, expires_in: 300 }));
    }
    const m = /^Bearer (.+)$/.exec(req.headers['authorization'] ?? '');
    const ok = !!m && tokens.has(m[1]!);
    front.seen.push({ method: req.method ?? '', path, token: ok });
    if (!ok) {
      const repo = /^\/v2\/(.+?)\/(?:manifests|blobs)\//.exec(path)?.[1] ?? '';
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer realm="${front.url}/token",service="front",scope="repository:${repo}:pull,push"`,
      });
      return void res.end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
    }
    const headers = { ...req.headers, host: backend.host };
    delete headers['authorization'];
    const up = http.request(`${backend.url}${path}`, { method: req.method, headers }, (r) => {
      const h = { ...r.headers };
      // the registry's upload locations point at itself: send clients back through the front
      if (typeof h['location'] === 'string') h['location'] = h['location'].replace(backend.url, front.url);
      res.writeHead(r.statusCode ?? 502, h);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  front.host = `127.0.0.1:${port}`;
  front.url = `http://${front.host}`;
  front.stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return front;
}
