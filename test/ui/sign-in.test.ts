// Signing in to a locked console (--authentication=token --authorization=basic): the
// authorization policy lets anyone fetch the page shell, and only the operator's token
// reach /ui/api. The console asks for the token, keeps it for the tab, sends it with every
// request (the live stream included) and never in a URL; a wrong token is refused in words.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { consoleRoutes, type ConsoleOptions } from '../../src/console/index.js';
import { buildUi, haveChromium, HTTP_401, launch, onPage, ready, ROOT, type Browser } from './browser.js';

const TOKEN = 's3cret-operator-token';

const AUTHZ = `package system.authz

default allow := false

# the page shell (HTML, scripts, styles) carries no data: anyone may fetch it
allow if {
	input.method == "GET"
	input.path == ["ui"]
}

allow if {
	input.method == "GET"
	input.path[0] == "ui"
	input.path[1] == "assets"
}

# everything else only for the operator
allow if input.identity == "${TOKEN}"
`;

let build: ReturnType<typeof buildUi>;
let server: RunningServer;
let browser: Browser;
const listeners = new Set<(json: string) => void>();
const seen: { path: string; auth: string | undefined }[] = [];

const decisions: ConsoleOptions['decisions'] = {
  recent: () => [],
  subscribe(fn) {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
};

function publish(id: string): void {
  const ev = JSON.stringify({ decision_id: id, path: 'authz/allow', input: { user: 'alice' }, result: true, timestamp: new Date().toISOString() });
  for (const fn of listeners) fn(ev);
}

beforeAll(async () => {
  if (!haveChromium) return;
  build = buildUi();
  const engine = new RegolithEngine();
  await engine.putPolicy('authz.rego', AUTHZ);
  server = await startServer({
    addr: '127.0.0.1:0',
    engine,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    access: { authentication: 'token', authorization: 'basic' },
    families: [consoleRoutes({ assetsDir: build.dir, decisions })],
  });
  browser = await launch();
  // what reached the server, as the server saw it
  browser.ctx.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/ui/api')) seen.push({ path: u.pathname + u.search, auth: r.headers()['authorization'] });
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  build?.remove();
});

const tokenInTab = (page: import('playwright-core').Page) => page.evaluate("sessionStorage.getItem('regolith.token')");

describe.skipIf(!haveChromium)('sign-in to a locked console', () => {
  it('asks for the token, refuses a wrong one, keeps the right one for the tab and streams with it', async () => {
    await onPage(browser.ctx, server.url, 'sign-in', async ({ page, errors, outside, urls }) => {
      await page.goto(`${server.url}/ui#/decisions`);
      await ready(page, 'signin');
      expect(await page.locator('form.signin').isVisible()).toBe(true);

      // a wrong token: said so, not kept
      await page.fill('form.signin input.token', 'not-the-token');
      await page.click('form.signin button[type=submit]');
      await page.waitForSelector('form.signin .signin-error');
      expect(await page.locator('form.signin .signin-error').innerText()).toContain('refused');
      expect(await page.locator('form.signin .signin-error').innerText()).toContain('request rejected by administrative policy');
      expect(await tokenInTab(page)).toBeNull();
      // the README's screenshot (scripts/ui-screenshots.mjs): the form with the refusal in words
      if (process.env['UI_SCREENSHOTS'] === '1') {
        mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
        await page.screenshot({ path: join(ROOT, 'docs', 'images', 'ui-sign-in.png') });
      }

      // the right one: the page asked for opens, and the stream carries decisions
      await page.fill('form.signin input.token', TOKEN);
      await page.click('form.signin button[type=submit]');
      await ready(page, 'decisions');
      await page.waitForSelector('.live.on');
      expect(await tokenInTab(page)).toBe(TOKEN);
      publish('streamed-1');
      await page.waitForSelector('tr.decision[data-id="streamed-1"]');

      // every API request after sign-in carried the token; none carried it in its URL
      const after = seen.slice(seen.findIndex((s) => s.auth === `Bearer ${TOKEN}`));
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((s) => s.auth === `Bearer ${TOKEN}`)).toBe(true);
      expect(after.some((s) => s.path.startsWith('/ui/api/decisions/stream'))).toBe(true);
      expect(urls.filter((u) => u.includes(TOKEN))).toEqual([]);

      // a reload keeps the tab signed in
      await page.reload();
      await ready(page, 'decisions');
      await page.waitForSelector('.live.on');
      publish('streamed-2');
      await page.waitForSelector('tr.decision[data-id="streamed-2"]');

      // signing out forgets the token and closes the stream
      await page.click('header button.sign-out');
      await ready(page, 'signin');
      expect(await tokenInTab(page)).toBeNull();
      await expect.poll(() => listeners.size).toBe(0);
      expect(await page.locator('header button.sign-out').count()).toBe(0);
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    }, [HTTP_401]);
  });

  it('keeps the token for the tab only: another tab asks again', async () => {
    await onPage(browser.ctx, server.url, 'sign-in-other-tab', async ({ page, errors }) => {
      await page.goto(`${server.url}/ui#/status`);
      await ready(page, 'signin');
      await page.fill('form.signin input.token', TOKEN);
      await page.click('form.signin button[type=submit]');
      await ready(page, 'status');
      await page.waitForSelector('.status-grid .card');
      await onPage(browser.ctx, server.url, 'sign-in-second-tab', async (other) => {
        await other.page.goto(`${server.url}/ui#/status`);
        await ready(other.page, 'signin');
        expect(await tokenInTab(other.page)).toBeNull();
      }, [HTTP_401]);
      expect(errors).toEqual([]);
    }, [HTTP_401]);
  });

  it('asks again when the server stops accepting the token the tab holds', async () => {
    await onPage(browser.ctx, server.url, 'sign-in-revoked', async ({ page, errors }) => {
      await page.goto(`${server.url}/ui#/status`);
      await ready(page, 'signin');
      await page.evaluate("sessionStorage.setItem('regolith.token', 'revoked-token')");
      await page.reload();
      await ready(page, 'signin');
      expect(await page.locator('form.signin .signin-error').innerText()).toContain('refused');
      expect(await tokenInTab(page)).toBeNull();
      expect(errors).toEqual([]);
    }, [HTTP_401]);
  });
});
