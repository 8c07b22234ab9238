// Starts a real listening server on 127.0.0.1 (port 0) for contract tests.

import pino from 'pino';
import { gzipSync, gunzipSync } from 'node:zlib';
import { startServer, type RunningServer, type StartOptions } from '../../src/server/index.js';
import { FakeEngine } from './fake-engine.js';

export interface TestServer extends RunningServer {
  engine: FakeEngine;
}

export async function start(opts: Partial<StartOptions> & { engine?: FakeEngine } = {}): Promise<TestServer> {
  const engine = opts.engine ?? new FakeEngine();
  const s = await startServer({
    addr: '127.0.0.1:0',
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    ...opts,
    engine,
  });
  return { ...s, engine };
}

export async function req(
  s: RunningServer,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; json: unknown; headers: Headers }> {
  const r = await fetch(s.url + path, { method, body, headers });
  const text = await r.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, text, json, headers: r.headers };
}

export { gzipSync, gunzipSync };
