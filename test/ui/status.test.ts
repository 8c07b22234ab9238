// The status page in Chromium: the server's version and labels, the active configuration
// without its secrets, the history of bundle errors, and the last hour drawn as charts of
// decisions per second, latency percentiles and memory. No request leaves the server.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { regolithVersion } from '../../src/engine/version.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { PluginManager } from '../../src/plugins/manager.js';
import { consoleRoutes } from '../../src/console/index.js';
import { fastTiming, httpServer, waitFor, type TestHTTPServer } from '../loopback.js';
import { buildUi, haveChromium, launch, onPage, ready, type Browser } from './browser.js';

let build: ReturnType<typeof buildUi>;
let server: RunningServer;
let manager: PluginManager;
let bundles: TestHTTPServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  build = buildUi();
  // the bundle server has no such bundle: every download fails
  bundles = await httpServer((_req, res) => {
    res.statusCode = 404;
    res.end('not found');
  });
  const config = validateConfig({
    services: { acme: { url: bundles.url, credentials: { bearer: { token: 'SECRET-TOKEN' } } } },
    bundles: { authz: { service: 'acme', resource: '/bundles/authz.tar.gz' } },
    labels: { env: 'staging', team: 'payments' },
  });
  const engine = new RegolithEngine();
  await engine.putPolicy('p.rego', 'package p\n\nallow := true\n');
  // a bundle the command line activated (-b): its manifest in the store, its name from the runtime
  await engine.store.transact((txn) => {
    txn.makeDir(['system', 'bundles']);
    txn.write('add', ['system', 'bundles', './local-b1'], { manifest: { revision: 'r7', roots: ['x'] }, etag: '' });
  });
  manager = new PluginManager({ config, engine, timing: fastTiming(), id: 'ui-status', version: '0.0.0', console: pino({ level: 'silent' }), logger: pino({ level: 'silent' }) });
  await manager.start();
  server = await startServer({
    addr: '127.0.0.1:0',
    engine,
    config: config.raw,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    ...manager.serverOptions(),
    families: [consoleRoutes({ assetsDir: build.dir, statusSampleMs: 250, localBundles: () => ['./local-b1'] })],
  });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await manager?.stop();
  await bundles?.close();
  build?.remove();
});

describe.skipIf(!haveChromium)('status page', () => {
  it('shows the version, labels, redacted configuration, bundle errors and the last hour', async () => {
    await waitFor('a failed download', () => bundles.requests.length > 0, 10_000);
    for (let i = 0; i < 20; i++) await fetch(`${server.url}/v1/data/p/allow`, { method: 'POST', body: '{}' });
    await new Promise((r) => setTimeout(r, 600));
    await onPage(browser.ctx, server.url, 'status-server', async ({ page, errors, outside }) => {
      await page.goto(`${server.url}/ui#/status`);
      await ready(page, 'status');
      await page.waitForSelector('.card.server .version');
      expect(await page.locator('.card.server .version').innerText()).toBe(regolithVersion());
      expect(await page.locator('.card.server .label[data-label="env"]').innerText()).toBe('env=staging');
      expect(await page.locator('.card.server .label[data-label="team"]').innerText()).toBe('team=payments');

      await page.click('.card.server details.config summary');
      const cfg = await page.locator('.card.server details.config pre').innerText();
      expect(cfg).toContain('"acme"');
      expect(cfg).toContain('/bundles/authz.tar.gz');
      expect(cfg).not.toContain('SECRET-TOKEN');
      // the disclosure stays open across the page's refreshes
      await page.waitForTimeout(2500);
      expect(await page.locator('.card.server details.config').getAttribute('open')).toBe('');

      await expect.poll(() => page.locator('.card.bundle-errors tbody').innerText(), { timeout: 10_000 }).toContain('server replied with Not Found');
      expect(await page.locator('.card.bundle-errors tbody tr').first().innerText()).toContain('authz');
      // the local bundle is listed beside the downloaded one, with its manifest's revision
      const local = page.locator('.card.bundles tbody tr', { hasText: './local-b1 (local)' });
      expect(await local.locator('code').innerText()).toBe('r7');

      // three charts over the last hour, with their axes and series
      expect(await page.locator('.card.last-hour svg.chart').count()).toBe(3);
      expect(await page.locator('.history-chart.decisions .x-axis text').allTextContents()).toEqual(['60m ago', '45m ago', '30m ago', '15m ago', 'now']);
      // attached, not visible: seconds of samples on an hour's axis with equal values make a
      // line with no width or height, which the browser counts as hidden
      const drawn = { state: 'attached' } as const;
      await page.waitForSelector('.history-chart.decisions polyline[data-series="decisions/s"]', drawn);
      for (const s of ['p50', 'p90', 'p99']) await page.waitForSelector(`.history-chart.latency polyline[data-series="${s}"]`, drawn);
      await page.waitForSelector('.history-chart.memory polyline[data-series="rss"]', drawn);
      const top = await page.locator('.history-chart.decisions .y-axis text').allTextContents();
      expect(Number(top[2])).toBeGreaterThan(0);

      // no hole in the grid: the server card has the bundles beside it, not an empty column
      const topOf = (sel: string) => page.locator(sel).evaluate((el) => Math.round((el as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top));
      expect(await topOf('.card.bundles')).toBe(await topOf('.card.server'));
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });
});
