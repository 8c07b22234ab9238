// A real server with its plugin manager, configured like a user's configuration file, for
// the adapters' end-to-end tests: decisions and status are read over HTTP.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { registerIntegrations } from '../../../src/integrations/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { startServer, type RunningServer, type ServerOptions } from '../../../src/server/index.js';
import { fastTiming } from '../../loopback.js';

// The shipped adapter types, as the runtime registers them before it reads a configuration.
registerIntegrations();

export const ROOT = resolve(import.meta.dirname, '../../..');

/** The policies regolith ships, by file name under policies/. */
export function shippedPolicy(rel: string): string {
  return readFileSync(join(ROOT, 'policies', rel), 'utf8');
}

export interface Served {
  server: RunningServer;
  manager: PluginManager;
  engine: RegolithEngine;
  get(path: string): Promise<{ status: number; body: any }>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export async function serve(config: Record<string, unknown>, policies: Record<string, string> = {}, server_: Partial<ServerOptions> = {}, msPerSecond = 20): Promise<Served> {
  // the status plugin gives /v1/status (as in OPA); its console copy goes nowhere here
  const cfg = validateConfig({ status: { console: true }, ...config });
  const engine = new RegolithEngine();
  for (const [id, text] of Object.entries(policies)) await engine.putPolicy(id, text);
  const manager = new PluginManager({ config: cfg, engine, timing: fastTiming(msPerSecond), id: 'adapter-test', version: '0.0.0', console: pino({ level: 'silent' }) });
  await manager.start();
  const server = await startServer({ addr: '127.0.0.1:0', engine, config: cfg.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions(), ...server_ });
  const call = async (path: string, init?: RequestInit) => {
    const r = await fetch(server.url + path, init);
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  let stopped = false;
  return {
    server,
    manager,
    engine,
    get: (path) => call(path),
    post: (path, body, headers = {}) => call(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } }),
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await manager.stop();
    },
  };
}
