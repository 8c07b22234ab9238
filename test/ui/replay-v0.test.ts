// "Open in playground" on a server running Rego v0 policies (--v0-compatible): the
// playground opens with Rego v0 chosen, so the server's modules parse and the replay
// answers what the decision answered.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { consoleRoutes } from '../../src/console/index.js';
import { buildUi, haveChromium, launch, onPage, ready, type Browser } from './browser.js';

let build: ReturnType<typeof buildUi>;
let server: RunningServer;
let browser: Browser;

// a decision as the decision log keeps it
const EVENT = JSON.stringify({ decision_id: 'd-v0', path: 'authz/allow', input: { user: 'alice' }, result: true, timestamp: new Date().toISOString() });

beforeAll(async () => {
  if (!haveChromium) return;
  build = buildUi();
  const engine = new RegolithEngine({ regoVersion: 'v0' });
  // v0 only: no `if`, rule bodies in braces
  await engine.putPolicy('authz.rego', 'package authz\n\ndefault allow = false\n\nallow { input.user == "alice" }\n');
  const decisions = { recent: () => [EVENT], subscribe: () => () => {} };
  server = await startServer({
    addr: '127.0.0.1:0',
    engine,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    families: [consoleRoutes({ assetsDir: build.dir, decisions, regoVersion: 'v0' })],
  });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  build?.remove();
});

describe.skipIf(!haveChromium)('open in playground, Rego v0', () => {
  it('chooses Rego v0 and answers as the decision did', async () => {
    await onPage(browser.ctx, server.url, 'replay-v0', async ({ page, errors, outside }) => {
      await page.goto(`${server.url}/ui#/decisions`);
      await ready(page, 'decisions');
      await page.locator('tr.decision[data-id="d-v0"] button.open').click();
      await ready(page, 'playground');
      expect(await page.locator('select.rego-version').inputValue()).toBe('v0');
      await page.click('button.eval');
      await page.waitForSelector('.output .value');
      expect(await page.locator('.output .value').innerText()).toBe('true');
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });
});
