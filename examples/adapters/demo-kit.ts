// What both adapter demos do around their stand-ins: run the built `regolith` (the server in
// the background, commands to completion), wait for the server to be healthy, and print
// each step under a heading.

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'dist/cli/main.js');

/** A `regolith` command run to completion (asynchronously: the stand-ins answering it live in this process). */
export function regolith(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd: ROOT });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.on('close', (code) => done({ code, out }));
  });
}

/**
 * The demo server's port: the variable `name`, else `fallback` (not 8181, which `npm start`
 * holds). A port already taken is said plainly: otherwise the demo would talk to whatever
 * server holds it and fail on answers that are not the ones it expects.
 */
export async function serverPort(name: string, fallback: number): Promise<number> {
  const port = Number(process.env[name] ?? fallback);
  const free = await new Promise<boolean>((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
  if (!free) throw new Error(`port ${port} is taken (another server, e.g. npm start's, is listening there): set ${name} to a free port`);
  return port;
}

export async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await fetch(`${url}/health?bundles&plugins`).then((r) => r.status === 200, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not become healthy in 20 s');
}

export const show = (title: string, v: unknown): void => console.log(`\n## ${title}\n${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}`);
