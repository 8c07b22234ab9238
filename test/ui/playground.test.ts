// The playground's tools in Chromium: print() output, evaluate selection (the selected text
// or the rule under the cursor, read in its module's package), Rego v0 or v1, an OPA
// capabilities file, and the server's data loaded into the Data panel. No request leaves
// the server; no console error.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { consoleRoutes } from '../../src/console/index.js';
import { buildUi, haveChromium, launch, onPage, ready, type Browser, type Watched } from './browser.js';

let build: ReturnType<typeof buildUi>;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  build = buildUi();
  const engine = new RegolithEngine();
  await engine.store.transact(async (txn) => txn.write('add', ['authz'], { owners: { doc1: 'dave' } }));
  server = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false, families: [consoleRoutes({ assetsDir: build.dir })] });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  build?.remove();
});

/** The playground opened on a state (as ui/src/share.ts encodes it), with local storage cleared. */
async function open(w: Watched, state: Record<string, unknown>): Promise<void> {
  const full = { input: '', data: '', query: 'data.p.allow', unknowns: '', explain: 'off', coverage: false, ...state };
  const s = deflateRawSync(Buffer.from(JSON.stringify(full))).toString('base64url');
  await w.page.goto(`${server.url}/ui#/status`);
  await w.page.evaluate('localStorage.clear()');
  await w.page.goto(`${server.url}/ui#/playground?s=${s}`);
  await w.page.reload();
  await ready(w.page, 'playground');
}

function clean(w: Watched): void {
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
}

/** Puts the cursor at the start of the editor's 1-based line `n`. */
async function cursorAt(page: Page, n: number): Promise<void> {
  await page.locator('.source .cm-content').click();
  await page.keyboard.press('Control+Home');
  for (let i = 1; i < n; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Home');
}

const HTTP_400 = /Failed to load resource: the server responded with a status of 400/;
const editorText = (page: Page, editor: string): Promise<string> =>
  page.evaluate(`[...document.querySelectorAll(${JSON.stringify(`${editor} .cm-content > .cm-line`)})].map((l) => l.textContent).join('\\n')`);

describe.skipIf(!haveChromium)('playground tools', () => {
  it('shows what print() wrote', async () => {
    await onPage(browser.ctx, server.url, 'pg-print', async (w) => {
      await open(w, { modules: { 'p.rego': 'package p\n\nallow if {\n\tprint("user is", input.user)\n\tinput.user == "alice"\n}\n' }, input: '{"user": "alice"}' });
      await w.page.click('button.eval');
      await w.page.waitForSelector('.output .printed-lines');
      expect(await w.page.locator('.output .printed-lines').innerText()).toBe('user is alice');
      expect(await w.page.locator('.output .value').innerText()).toBe('true');
      clean(w);
    });
  });

  it('evaluates the selection in its module\'s package, or the rule under the cursor', async () => {
    const mod = 'package p\n\nadmins := {"alice", "bob"}\n\nallow if {\n\tinput.user in admins\n}\n\nlabel := sprintf("for %s", [input.user])\n';
    await onPage(browser.ctx, server.url, 'pg-selection', async (w) => {
      const { page } = w;
      await open(w, { modules: { 'p.rego': mod }, input: '{"user": "bob"}', query: 'data.p.allow' });
      // the selected expression: `admins` is the package's rule, not an unsafe variable
      await cursorAt(page, 6);
      await page.keyboard.press('Shift+End');
      await page.click('button.eval-selection');
      await page.waitForSelector('.output .evaluated');
      expect(await page.locator('.output .evaluated').innerText()).toContain('input.user in admins');
      expect(await page.locator('.output .expr-text').innerText()).toBe('input.user in admins');
      expect(await page.locator('.output .value').innerText()).toBe('true');
      // nothing selected: the rule whose head is at or above the cursor
      await cursorAt(page, 9);
      await page.keyboard.press('End');
      await page.keyboard.press('Control+Shift+Enter');
      await expect.poll(() => page.locator('.output .expr-text').innerText()).toBe('label');
      expect(await page.locator('.output .value').innerText()).toBe('"for bob"');
      // the query box is left as it was
      expect(await page.locator('input.query').inputValue()).toBe('data.p.allow');
      clean(w);
    });
  });

  it('reads Rego v0 when chosen, and keeps the choice', async () => {
    await onPage(browser.ctx, server.url, 'pg-v0', async (w) => {
      const { page } = w;
      await open(w, { modules: { 'p.rego': 'package p\n\nallow { input.x == 1 }\n' }, input: '{"x": 1}' });
      await page.click('button.eval');
      await page.waitForSelector('.output .errors li.error');
      expect(await page.locator('.output .errors').innerText()).toContain('rego_parse_error');
      await page.selectOption('select.rego-version', 'v0');
      await page.click('button.eval');
      await page.waitForSelector('.output .value');
      expect(await page.locator('.output .value').innerText()).toBe('true');
      // Format keeps v0 syntax
      await page.click('button.fmt');
      await expect.poll(() => editorText(page, '.source')).toBe('package p\n\nallow {\n\tinput.x == 1\n}\n');
      await page.waitForFunction("(localStorage.getItem('regolith.playground') ?? '').includes('\"regoVersion\":\"v0\"')");
      // the playground as this browser left it (no shared link)
      await page.goto(`${server.url}/ui#/status`);
      await ready(page, 'status');
      await page.goto(`${server.url}/ui#/playground`);
      await ready(page, 'playground');
      expect(await page.locator('select.rego-version').inputValue()).toBe('v0');
      clean(w);
    }, [HTTP_400]);
  });

  it('limits the built-ins to a capabilities file, and back to all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-ui-caps-'));
    try {
      const caps = join(dir, 'opa-caps.json');
      writeFileSync(caps, JSON.stringify({ builtins: ['eq', 'equal', 'assign', 'count'].map((name) => ({ name, decl: {} })) }));
      await onPage(browser.ctx, server.url, 'pg-capabilities', async (w) => {
        const { page } = w;
        await open(w, { modules: { 'p.rego': 'package p\n\nallow := upper("x") == "X"\n' } });
        await page.setInputFiles('input.capabilities-file', caps);
        await expect.poll(() => page.locator('select.capabilities option:checked').innerText()).toContain('opa-caps.json (4 built-ins)');
        await page.click('button.eval');
        await page.waitForSelector('.output .errors li.error');
        expect(await page.locator('.output .errors').innerText()).toContain('undefined function upper');
        await page.selectOption('select.capabilities', 'all');
        await page.click('button.eval');
        await page.waitForSelector('.output .value');
        expect(await page.locator('.output .value').innerText()).toBe('true');
        clean(w);
      }, [HTTP_400]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads the server\'s data into the Data panel', async () => {
    await onPage(browser.ctx, server.url, 'pg-load-data', async (w) => {
      const { page } = w;
      await open(w, { modules: { 'p.rego': 'package p\n\nallow if data.authz.owners[input.doc] == input.user\n' }, input: '{"doc": "doc1", "user": "dave"}', data: '{}' });
      await page.click('button.eval');
      await page.waitForSelector('.output .undefined');
      await page.click('button.load-data');
      await expect.poll(() => editorText(page, '.data')).toContain('"doc1": "dave"');
      await page.click('button.eval');
      await page.waitForSelector('.output .value');
      expect(await page.locator('.output .value').innerText()).toBe('true');
      clean(w);
    });
  });
});
