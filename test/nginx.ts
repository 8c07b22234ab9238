// A real nginx (Debian package `nginx`, installed by .ci/run) serving a directory of static
// files on loopback, with ETags (nginx's are mtime-size): publish() replaces a file
// atomically with a distinct mtime so that every version has its own ETag. Shared by the
// bundle-polling and discovery end-to-end tests.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, waitFor } from './loopback.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

export interface Nginx {
  url: string;
  /** Serves `bytes` at `/<path>` from now on. */
  publish(path: string, bytes: Buffer): void;
  /** The lines of nginx's access log so far. */
  accessLog(): string[];
  stop(): Promise<void>;
}

export async function startNginx(): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-nginx-'));
  // nginx workers may run as an unprivileged user: the tree must be world-readable.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'www'), { mode: 0o755 });
  mkdirSync(join(dir, 'tmp'), { mode: 0o755 });
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
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
`,
  );
  let stderr = '';
  const proc: ChildProcess = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    'nginx to listen',
    async () => {
      if (proc.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
      try {
        return (await fetch(`${url}/`)).status > 0;
      } catch {
        return false;
      }
    },
    10_000,
  );
  let mtime = 1_700_000_000;
  return {
    url,
    publish(path, bytes) {
      const file = join(dir, 'www', path);
      mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
      const tmp = `${file}.next`;
      writeFileSync(tmp, bytes, { mode: 0o644 });
      mtime += 100;
      utimesSync(tmp, mtime, mtime);
      renameSync(tmp, file);
    },
    accessLog() {
      return readFileSync(join(dir, 'access.log'), 'utf8').trim().split('\n');
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGQUIT');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
