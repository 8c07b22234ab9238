// PluginManager.stop(graceMs): the plugins' stop is bounded by the shutdown grace period,
// as OPA's manager bounds its plugins' Stop. A decision-log collector that accepts the last
// upload but never answers would hold the stop until the service's response header timeout
// (10 s by default); with a grace period the stop returns at its end, says which plugin
// was still stopping, and closes the connection so that nothing stays in flight.

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { PluginManager } from '../../src/plugins/manager.js';
import type { PluginLogger } from '../../src/plugins/plugin.js';
import { httpServer, waitFor, type TestHTTPServer } from '../loopback.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

function recording(): PluginLogger & { lines: { level: string; msg?: string; obj: Record<string, unknown> }[] } {
  const lines: { level: string; msg?: string; obj: Record<string, unknown> }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, msg, obj: obj as Record<string, unknown> });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

/** A collector that takes the request and never answers. */
async function silentCollector(): Promise<TestHTTPServer> {
  const s = await httpServer(() => new Promise(() => {}));
  cleanup.push(() => s.close());
  return s;
}

async function managerLogging(collector: TestHTTPServer): Promise<{ manager: PluginManager; log: ReturnType<typeof recording> }> {
  const config = validateConfig({
    services: { collector: { url: collector.url } },
    decision_logs: { service: 'collector', reporting: { min_delay_seconds: 600, max_delay_seconds: 600 } },
  });
  const log = recording();
  const manager = new PluginManager({ config, engine: new RegolithEngine(), logger: log, console: pino({ level: 'silent' }) });
  await manager.start();
  await manager.decisionLogs!.record({ decision_id: 'd1', path: 'data.app.allow', input: { user: 'alice' }, result: true });
  return { manager, log };
}

describe('PluginManager.stop with a grace period', () => {
  it('returns at the end of the grace period when a plugin hangs in stop, naming it and closing its connections', async () => {
    const collector = await silentCollector();
    const { manager, log } = await managerLogging(collector);
    const t0 = Date.now();
    await manager.stop(300);
    const ms = Date.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(2000);
    expect(collector.requests.map((r) => r.url)).toEqual(['/logs']); // the last upload was attempted
    expect(log.lines).toContainEqual({ level: 'error', msg: 'Plugin did not stop within the shutdown grace period; closing its connections.', obj: { plugin: 'decision_logs', grace_period_seconds: 0.3 } });
    // the upload in flight fails at once instead of waiting for its header timeout
    await waitFor('the upload to fail', () => log.lines.some((l) => l.msg === 'Decision log upload failed.'), 2000);
  });

  it('waits for a plugin that finishes within the grace period', async () => {
    const collector = await httpServer(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 200));
      res.end();
    });
    cleanup.push(() => collector.close());
    const { manager, log } = await managerLogging(collector);
    await manager.stop(5000);
    expect(log.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(manager.decisionLogs!.uploadStatus()).toMatchObject({ metrics: { counter_decision_logs_uploaded: 1 } });
  });
});
