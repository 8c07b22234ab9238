// nd_builtin_cache end to end: config file key -> server -> decision log plugin ->
// loopback collector. The uploaded event carries the answers the decision used, masks can
// reach /nd_builtin_cache, and an event too large to upload goes without it (as OPA).

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { startServer } from '../../../src/server/index.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { fastTiming, gunzipJSON, httpServer, waitFor } from '../../loopback.js';

type Ev = Record<string, any>;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

const POLICY = `package nd

d := {"r": rand.intn("x", 1000000), "h": http.send({"method": "get", "url": input.url}).body}

small := {"r": rand.intn("x", 1000000), "ok": http.send({"method": "get", "url": input.url}).status_code == 200}
`;

async function setup(opts: { nd: boolean; limit?: number; policies?: Record<string, string>; payload?: string }) {
  const events: Ev[] = [];
  const col = await httpServer((req, res) => {
    events.push(...(gunzipJSON(req.body) as Ev[]));
    res.statusCode = 204;
    res.end();
  });
  cleanup.push(() => col.close());
  let n = 0;
  const upstream = await httpServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ n: ++n, payload: opts.payload ?? '' }));
  });
  cleanup.push(() => upstream.close());
  const config = validateConfig({
    services: { logs: { url: col.url } },
    decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 1, ...(opts.limit ? { upload_size_limit_bytes: opts.limit } : {}) } },
    ...(opts.nd ? { nd_builtin_cache: true } : {}),
  });
  const engine = new RegolithEngine();
  await engine.putPolicy('nd.rego', POLICY);
  for (const [id, text] of Object.entries(opts.policies ?? {})) await engine.putPolicy(id, text);
  const manager = new PluginManager({ config, engine, timing: fastTiming() });
  await manager.start();
  const server = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...manager.serverOptions() });
  cleanup.push(() => manager.stop());
  cleanup.push(() => server.close());
  const decide = async (rule = 'd'): Promise<Ev> => {
    const r = await fetch(`${server.url}/v1/data/nd/${rule}`, { method: 'POST', body: JSON.stringify({ input: { url: upstream.url + '/x' } }) });
    return (await r.json()) as Ev;
  };
  return { events, decide, upstreamURL: upstream.url + '/x', manager };
}

describe('nd_builtin_cache through the decision log plugin', () => {
  it('the uploaded event holds the values the decision used', async () => {
    const { events, decide, upstreamURL } = await setup({ nd: true });
    const r = await decide();
    const [ev] = await waitFor('an upload', () => (events.length ? events : undefined));
    expect(ev!.decision_id).toBe(r.decision_id);
    expect(ev!.nd_builtin_cache['rand.intn']).toEqual({ '["x",1000000]': r.result.r });
    const send = ev!.nd_builtin_cache['http.send'][JSON.stringify([{ method: 'get', url: upstreamURL }])];
    expect(send).toMatchObject({ status_code: 200, body: r.result.h });
  });

  it('is absent without the config key', async () => {
    const { events, decide } = await setup({ nd: false });
    await decide();
    const [ev] = await waitFor('an upload', () => (events.length ? events : undefined));
    expect(ev).not.toHaveProperty('nd_builtin_cache');
  });

  it('masks can erase entries under /nd_builtin_cache', async () => {
    const mask = 'package system.log\n\nmask contains "/nd_builtin_cache/http.send"\n';
    const { events, decide } = await setup({ nd: true, policies: { 'mask.rego': mask } });
    const r = await decide();
    const [ev] = await waitFor('an upload', () => (events.length ? events : undefined));
    expect(ev!.erased).toEqual(['/nd_builtin_cache/http.send']);
    expect(ev!.nd_builtin_cache).toEqual({ 'rand.intn': { '["x",1000000]': r.result.r } });
  });

  it('drops the cache from an event that would exceed upload_size_limit_bytes', async () => {
    const { randomBytes } = await import('node:crypto');
    // The decision itself is small; the cached http.send answer carries an
    // incompressible body that does not fit under the limit.
    const payload = randomBytes(600).toString('base64');
    const { events, decide, manager } = await setup({ nd: true, limit: 600, payload });
    const r = await decide('small');
    const [ev] = await waitFor('an upload', () => (events.length ? events : undefined));
    expect(ev!.decision_id).toBe(r.decision_id);
    expect(ev!.result).toEqual({ r: r.result.r, ok: true });
    expect(ev).not.toHaveProperty('nd_builtin_cache');
    const status = (manager as unknown as { decisionLogs?: { uploadStatus(): { metrics: Record<string, number> } } }).decisionLogs;
    expect(status?.uploadStatus().metrics['counter_decision_logs_nd_builtin_cache_dropped']).toBe(1);
  });
});
