// A real server with the console: a temporary assets directory holding a fake build, a
// real engine (the server's own store and policies, which the playground must not see).

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { startServer, type RunningServer, type StartOptions } from '../../../src/server/index.js';
import { consoleRoutes, type ConsoleOptions } from '../../../src/console/index.js';

export const INDEX_HTML = '<!doctype html><title>Regolith console</title><script src="/ui/assets/app-1234.js"></script>\n';

/** A directory laid out as the frontend build writes dist/ui. */
export function fakeBuild(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-ui-'));
  writeFileSync(join(dir, 'index.html'), INDEX_HTML);
  mkdirSync(join(dir, 'assets', 'fonts'), { recursive: true });
  writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log("app");\n');
  writeFileSync(join(dir, 'assets', 'app-1234.js.map'), '{"version":3}');
  writeFileSync(join(dir, 'assets', 'style.css'), 'body{}\n');
  writeFileSync(join(dir, 'assets', 'logo.svg'), '<svg/>');
  writeFileSync(join(dir, 'assets', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(join(dir, 'assets', 'fonts', 'mono.woff2'), Buffer.from('wOF2'));
  writeFileSync(join(dir, 'assets', 'data.bin'), Buffer.from([1, 2, 3]));
  // a secret beside the build: nothing under /ui may reach it
  writeFileSync(join(dir, 'secret.txt'), 'the crown jewels');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface UiServer extends RunningServer {
  engine: RegolithEngine;
}

export async function startUi(consoleOpts: ConsoleOptions | undefined, extra: Partial<StartOptions> = {}): Promise<UiServer> {
  const engine = (extra.engine as RegolithEngine | undefined) ?? new RegolithEngine();
  const s = await startServer({
    addr: '127.0.0.1:0',
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    shutdownGraceMs: 200,
    ...extra,
    engine,
    ...(consoleOpts ? { families: [consoleRoutes(consoleOpts)] } : {}),
  });
  return { ...s, engine };
}

type Answer = { status: number; json: any; text: string; headers: Headers };

/** The answer with its body as text and, when it parses, as JSON. */
async function answer(r: Response): Promise<Answer> {
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, text, headers: r.headers };
}

export async function post(s: RunningServer, path: string, body: unknown): Promise<Answer> {
  return answer(await fetch(s.url + path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) }));
}

export async function get(s: RunningServer, path: string): Promise<Answer> {
  return answer(await fetch(s.url + path));
}
