// Live decisions in Chromium: times to the millisecond, a plot with axes, pause and resume,
// search by an input field, and the decision log's upload and drop counters, read from a
// real decision-log plugin whose service refuses every upload (so nothing is uploaded,
// events past the buffer's small limit are dropped, and the last error is shown).

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { PluginManager } from '../../src/plugins/manager.js';
import { consoleRoutes } from '../../src/console/index.js';
import { fastTiming, httpServer, waitFor, type TestHTTPServer } from '../loopback.js';
import { buildUi, haveChromium, launch, onPage, ready, type Browser } from './browser.js';

let build: ReturnType<typeof buildUi>;
let server: RunningServer;
let manager: PluginManager;
let logs: TestHTTPServer;
let browser: Browser;

async function decide(input: unknown): Promise<{ decision_id: string }> {
  const r = await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input }) });
  return (await r.json()) as { decision_id: string };
}

beforeAll(async () => {
  if (!haveChromium) return;
  build = buildUi();
  logs = await httpServer((_req, res) => {
    res.statusCode = 503;
    res.end('unavailable');
  });
  const config = validateConfig({
    services: { logs: { url: logs.url } },
    // a buffer of a few events: the oldest are dropped as new ones come
    decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 2, buffer_size_limit_bytes: 2000 } },
  });
  const engine = new RegolithEngine();
  await engine.putPolicy('authz.rego', 'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n');
  // the log masks one field no other case reads: a replay of such a decision must say so
  await engine.putPolicy('mask.rego', 'package system.log\n\nmask contains "/input/secret"\n');
  manager = new PluginManager({ config, engine, timing: fastTiming(), id: 'ui-decisions', version: '0.0.0', console: pino({ level: 'silent' }), logger: pino({ level: 'silent' }) });
  await manager.start();
  server = await startServer({
    addr: '127.0.0.1:0',
    engine,
    config: config.raw,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    ...manager.serverOptions(),
    families: [consoleRoutes({ assetsDir: build.dir, decisions: manager.decisionLogs })],
  });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await manager?.stop();
  await logs?.close();
  build?.remove();
});

describe.skipIf(!haveChromium)('live decisions', () => {
  it('shows milliseconds, plots with axes, pauses and resumes, and searches by input field', async () => {
    await onPage(browser.ctx, server.url, 'decisions-live', async ({ page, errors, outside }) => {
      await page.goto(`${server.url}/ui#/decisions`);
      await ready(page, 'decisions');
      await page.waitForSelector('.live.on');
      const alice = await decide({ user: 'alice', team: { name: 'red' } });
      const row = page.locator(`tr.decision[data-id="${alice.decision_id}"]`);
      await row.waitFor();
      expect(await row.locator('td.time').innerText()).toMatch(/^\d\d:\d\d:\d\d\.\d{3}$/);

      // the plot: a y axis with its scale and title, an x axis from a minute ago to now
      await page.waitForSelector('.rate-plot polyline.series[data-series="authz/allow"]');
      expect(await page.locator('.rate-plot .x-axis text').allTextContents()).toEqual(['60s ago', '45s ago', '30s ago', '15s ago', 'now']);
      const y = await page.locator('.rate-plot .y-axis text').allTextContents();
      expect(y[0]).toBe('0/s');
      expect(y).toContain('decisions/s');

      // paused: new decisions wait and are counted; resumed: they are shown
      await page.click('button.pause');
      const bob = await decide({ user: 'bob', team: { name: 'blue' } });
      await expect.poll(() => page.locator('.held').innerText()).toBe('paused: 1 new');
      expect(await page.locator(`tr.decision[data-id="${bob.decision_id}"]`).count()).toBe(0);
      await page.click('button.pause');
      await page.locator(`tr.decision[data-id="${bob.decision_id}"]`).waitFor();
      expect(await page.locator('.held').innerText()).toBe('');

      // search by an input field (nested, with or without "input."), or by any text
      await page.fill('input.f-input', 'team.name=blue');
      // (the filter applies after typing settles: wait for the rows it leaves, not for a count
      // the previous filter may also give)
      const ids = () => page.locator('tr.decision').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
      await expect.poll(ids).toEqual([bob.decision_id]);
      await page.fill('input.f-input', 'input.user="alice"');
      await expect.poll(ids).toEqual([alice.decision_id]);
      await page.fill('input.f-input', 'red');
      await expect.poll(ids).toEqual([alice.decision_id]);
      await page.fill('input.f-input', '');
      await expect.poll(() => page.locator('tr.decision').count()).toBe(2);
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });

  it('shows the decision log\'s upload and drop counters and its last upload error', async () => {
    for (let i = 0; i < 40; i++) await decide({ user: `user-${i}`, note: 'x'.repeat(40) });
    await waitFor('an upload attempt', () => logs.requests.length > 0, 10_000);
    await onPage(browser.ctx, server.url, 'decisions-counters', async ({ page, errors, outside }) => {
      await page.goto(`${server.url}/ui#/decisions`);
      await ready(page, 'decisions');
      await page.waitForSelector('.log-counters [data-counter="uploaded"]');
      const n = async (k: string) => Number(await page.locator(`.log-counters [data-counter="${k}"] b`).innerText());
      expect(await n('uploaded')).toBe(0);
      // (what is buffered comes and goes as uploads are tried: only that it is shown)
      expect(await n('buffered')).toBeGreaterThanOrEqual(0);
      expect(await n('dropped_buffer_size_limit')).toBeGreaterThan(0);
      await expect.poll(() => page.locator('.log-counters .log-error').innerText(), { timeout: 10_000 }).toContain('503');
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });

  it('warns that a replay may differ when the decision log masked part of the input', async () => {
    await onPage(browser.ctx, server.url, 'decisions-masked', async ({ page, errors, outside }) => {
      await page.goto(`${server.url}/ui#/decisions`);
      await ready(page, 'decisions');
      await page.waitForSelector('.live.on');
      const d = await decide({ user: 'alice', secret: 'hunter2' });
      await page.locator(`tr.decision[data-id="${d.decision_id}"] button.open`).click();
      await ready(page, 'playground');
      const warning = await page.locator('.banner.warning').innerText();
      expect(warning).toContain('the decision log masked /input/secret');
      expect(warning).toContain('the result may differ');
      expect(await page.locator('.page').innerText()).not.toContain('hunter2');
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });
});
