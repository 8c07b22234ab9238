// The web console in a real browser (chromium through playwright-core) against a real
// server: a bundle with a revision, decision logging to the console feed, and impact
// analysis wired as `regolith run` wires it (src/console/impact/hook.ts over
// src/console/impact). Every request to anything but the server is
// blocked and must not be attempted; any console error or page error fails the test.
// UI_SCREENSHOTS=1 also saves docs/images/ui-*.png (scripts/ui-screenshots.mjs).

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import pino from 'pino';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { PluginManager } from '../../src/plugins/manager.js';
import { impactHook } from '../../src/console/impact/hook.js';
import { consoleRoutes } from '../../src/console/index.js';
import { buildUi } from './browser.js';
import { archive, fastTiming, httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../loopback.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SHOTS = process.env['UI_SCREENSHOTS'] === '1';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`test/ui skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** The policy the server runs (bundle "authz", revision rev-1). */
const SERVED = `package authz

default allow := false

allow if input.user == "alice"

allow if input.role == "admin"

# Owners may act on their resources (data.authz.owners, from the bundle's data).
allow if data.authz.owners[input.resource] == input.user
`;
/** A candidate that drops alice and lets carol in. */
const CANDIDATE = `package authz

default allow := false

allow if input.role == "admin"

allow if input.user == "carol"
`;

interface State {
  modules: Record<string, string>;
  input?: string;
  data?: string;
  query?: string;
  unknowns?: string;
  explain?: string;
  coverage?: boolean;
}

/** The playground link for a state, encoded as ui/src/share.ts does (deflate-raw, base64url). */
function stateHash(s: State): string {
  const full = { input: '', data: '', query: 'data.authz.allow', unknowns: '', explain: 'off', coverage: false, ...s };
  return `#/playground?s=${deflateRawSync(Buffer.from(JSON.stringify(full))).toString('base64url')}`;
}

let server: RunningServer;
let manager: PluginManager;
let bundles: TestHTTPServer;
const bundleFiles: BundleFiles = {};
let ctx: BrowserContext;
let userDataDir: string;
let assetsDir: string;

async function decide(input: unknown): Promise<{ result?: unknown; decision_id: string }> {
  const r = await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input }) });
  return (await r.json()) as { result?: unknown; decision_id: string };
}

let ctxEngine: RegolithEngine;

beforeAll(async () => {
  if (!haveChromium) return;
  // the current ui/ sources, built where a concurrent `npm run build` cannot pull them away
  assetsDir = buildUi().dir;
  bundleFiles['/bundles/authz.tar.gz'] = { body: await archive({ revision: 'rev-1', roots: ['authz'], modules: { 'authz/policy.rego': SERVED }, data: { authz: { owners: { doc1: 'dave' } } } }) };
  bundleFiles['/bundles/candidate.tar.gz'] = { body: await archive({ revision: 'rev-2', roots: ['authz'], modules: { 'authz/policy.rego': CANDIDATE } }) };
  bundles = await httpServer(serveBundles(bundleFiles));
  const config = validateConfig({
    services: { acme: { url: bundles.url } },
    bundles: { authz: { service: 'acme', resource: '/bundles/authz.tar.gz' } },
    decision_logs: { console: true },
    status: { console: true },
    labels: { env: 'test' },
  });
  ctxEngine = new RegolithEngine();
  manager = new PluginManager({ config, engine: ctxEngine, timing: fastTiming(), id: 'ui-test', version: '0.0.0', console: pino({ level: 'silent' }) });
  await manager.start();
  server = await startServer({
    addr: '127.0.0.1:0',
    engine: ctxEngine,
    config: config.raw,
    logger: pino({ level: 'silent' }),
    ...manager.serverOptions(),
    families: [consoleRoutes({ assetsDir, decisions: manager.decisionLogs, impact: impactHook({ engine: ctxEngine, recent: (n) => manager.decisionLogs!.recent(n) }) })],
  });
  // (not by deciding: the feed is to hold no decision made before the bundle was there)
  await waitFor('the bundle', () => ctxEngine.listPolicies().length > 0, 10_000);
  userDataDir = mkdtempSync(join(tmpdir(), 'regolith-ui-'));
  ctx = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 800 } });
  ctx.setDefaultTimeout(10_000);
}, 60_000);

afterAll(async () => {
  await ctx?.close();
  await server?.close();
  await manager?.stop();
  await bundles?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  if (assetsDir) rmSync(assetsDir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  /** Requests to other origins (blocked). */
  outside: string[];
  /** Console errors and page errors. */
  errors: string[];
}

/** A page on the console, watched for errors and for requests to other origins. */
async function newPage(allowErrors: RegExp[] = [], serverURL = server.url): Promise<Opened> {
  const page = await ctx.newPage();
  const outside: string[] = [];
  const errors: string[] = [];
  const origin = new URL(serverURL).origin;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && !allowErrors.some((re) => re.test(m.text()))) errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return { page, outside, errors };
}

/**
 * Opens `hash` with local storage cleared and runs a browser check: no console error, no
 * request outside the server. On failure saves a screenshot under test-results/ui/.
 */
async function check(name: string, hash: string, fn: (o: Opened) => Promise<void>, allowErrors: RegExp[] = []): Promise<void> {
  const o = await newPage(allowErrors);
  const { page } = o;
  try {
    await page.goto(`${server.url}/ui#/status`);
    await page.evaluate('localStorage.clear()');
    await page.goto(`${server.url}/ui${hash}`);
    await page.reload();
    await page.waitForSelector(`main[data-page="${/^#\/(\w+)/.exec(hash)![1]}"][data-ready]`, { state: 'attached' });
    await fn(o);
    expect(o.errors).toEqual([]);
    expect(o.outside).toEqual([]);
  } catch (e) {
    mkdirSync(join(ROOT, 'test-results', 'ui'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'test-results', 'ui', `${name}.png`), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
  }
}

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
  await page.screenshot({ path: join(ROOT, 'docs', 'images', `ui-${name}.png`) });
}

/** 1-based numbers of the editor's lines carrying `cls` (or holding an element with it). */
function linesWith(page: Page, editor: string, cls: string): Promise<number[]> {
  // a string: the root tsconfig has no DOM types
  return page.evaluate(`[...document.querySelectorAll(${JSON.stringify(`${editor} .cm-content > .cm-line`)})]
    .flatMap((l, i) => (l.classList.contains(${JSON.stringify(cls)}) || l.querySelector(${JSON.stringify(`.${cls}`)}) ? [i + 1] : []))`);
}

/** The editor's text, line by line (innerText doubles empty lines). */
const editorText = (page: Page, editor: string): Promise<string> =>
  page.evaluate(`[...document.querySelectorAll(${JSON.stringify(`${editor} .cm-content > .cm-line`)})].map((l) => l.textContent).join('\\n')`);
const HTTP_400 = /Failed to load resource: the server responded with a status of 400/;

describe.skipIf(!haveChromium)('web console', () => {
  describe('playground', () => {
    it('evaluates a typed policy and shows the result and bindings', async () => {
      await check('playground-eval', '#/playground', async ({ page }) => {
        await page.locator('.source .cm-content').click();
        await page.keyboard.press('Control+A');
        await page.keyboard.press('Delete');
        await page.keyboard.type('package play\n\ndefault allow := false\n\nallow if input.user == "alice"\n');
        await page.locator('.input .cm-content').click();
        await page.keyboard.press('Control+A');
        await page.keyboard.press('Delete');
        await page.keyboard.type('{"user": "alice"}');
        await page.fill('input.query', 'x := data.play.allow');
        await page.click('button.eval');
        await page.waitForSelector('.output .result');
        expect(await page.locator('.output .expr-text').first().innerText()).toBe('x := data.play.allow');
        expect(await page.locator('.output .bindings pre').innerText()).toContain('"x": true');
        // an undefined query says so
        await page.fill('input.query', 'data.play.nothing');
        await page.click('button.eval');
        await page.waitForSelector('.output .undefined');
        await page.fill('input.query', 'data.play.allow');
        await page.click('button.eval');
        await page.waitForSelector('.output .value');
        expect(await page.locator('.output .value').innerText()).toBe('true');
      });
    });

    it('places an error on its line and lists it with its location', async () => {
      const hash = stateHash({ modules: { 'policy.rego': 'package authz\n\nallow if unknown_fn(1)\n' } });
      await check('playground-error', hash, async ({ page }) => {
        await page.click('button.eval');
        await page.waitForSelector('.output .errors li.error');
        expect(await page.locator('.output .errors li.error').innerText()).toContain('policy.rego:3:10');
        expect(await page.locator('.output .errors li.error').innerText()).toContain('undefined function unknown_fn');
        await page.waitForSelector('.source .cm-lintRange-error');
        expect(await linesWith(page, '.source', 'cm-lintRange-error')).toEqual([3]);
      }, [HTTP_400]);
    });

    it('formats the module with the Format button, and marks a syntax error instead', async () => {
      const hash = stateHash({ modules: { 'policy.rego': 'package authz\nallow   if   input.x==1' } });
      await check('playground-fmt', hash, async ({ page }) => {
        await page.click('button.fmt');
        await expect.poll(() => editorText(page, '.source')).toBe('package authz\n\nallow if input.x == 1\n');
        await page.locator('.source .cm-content').click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('\nbad := = 1');
        await page.click('button.fmt');
        await page.waitForSelector('.source .cm-lintRange-error');
        expect(await linesWith(page, '.source', 'cm-lintRange-error')).toEqual([5]);
      }, [HTTP_400]);
    });

    it('shows an explanation trace next to the source and highlights the traced line', async () => {
      const policy = 'package authz\n\ndefault allow := false\n\nallow if {\n\tinput.user == "bob"\n\tinput.admin == true\n}\n\nallow if input.user == "alice"\n';
      const hash = stateHash({ modules: { 'policy.rego': policy }, input: '{"user": "alice"}', explain: 'full' });
      await check('playground-explain', hash, async ({ page }) => {
        expect(await page.locator('select.explain').inputValue()).toBe('full');
        await page.click('button.eval');
        await page.waitForSelector('.trace .trace-event');
        expect(await page.locator('.trace').isVisible()).toBe(true);
        const fail = page.locator('.trace .trace-event.op-fail').first();
        expect(await fail.innerText()).toContain('input.user == "bob"');
        await fail.click();
        expect(await linesWith(page, '.source', 'cm-traced')).toEqual([6]);
        await page.locator('.trace .trace-event', { hasText: 'input.user == "alice"' }).first().click();
        expect(await linesWith(page, '.source', 'cm-traced')).toEqual([10]);
        // side by side: the trace is right of the editor
        const ed = await page.locator('.source').boundingBox();
        const tr = await page.locator('.trace').boundingBox();
        expect(tr!.x).toBeGreaterThanOrEqual(ed!.x + ed!.width - 1);
        await shot(page, 'playground');
      });
    });

    it('paints the coverage of the last evaluation on the source', async () => {
      const policy = 'package authz\n\ndefault allow := false\n\nallow if {\n\tinput.user == "bob"\n\tinput.admin == true\n}\n\nallow if input.user == "alice"\n';
      const hash = stateHash({ modules: { 'policy.rego': policy }, input: '{"user": "alice"}' });
      await check('playground-coverage', hash, async ({ page }) => {
        await page.check('input.coverage');
        await page.click('button.eval');
        await page.waitForSelector('.source .cm-covered');
        expect(await linesWith(page, '.source', 'cm-covered')).toEqual([6, 10]);
        expect(await linesWith(page, '.source', 'cm-not-covered')).toEqual([3, 5, 7]);
        expect(await page.locator('.coverage-summary').innerText()).toContain('40%');
        // an edit makes the painting stale: it goes away
        await page.locator('.source .cm-content').click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('\n');
        expect(await linesWith(page, '.source', 'cm-covered')).toEqual([]);
      });
    });

    it('shows partial evaluation when unknowns are given', async () => {
      const hash = stateHash({ modules: { 'policy.rego': SERVED } });
      await check('playground-partial', hash, async ({ page }) => {
        await page.fill('input.unknowns', 'input');
        await page.click('button.eval');
        await page.waitForSelector('.partial');
        const q = await page.locator('.partial-queries').innerText();
        expect(q).toContain('input.user == "alice"');
        expect(q).toContain('input.role == "admin"');
      });
    });

    it('shares the state as a link that restores it, with no server storage', async () => {
      await check('playground-share', '#/playground', async ({ page }) => {
        await page.locator('.source .cm-content').click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('\n# shared comment\n');
        await page.fill('input.query', 'data.authz');
        await page.fill('input.unknowns', 'input.user');
        await page.selectOption('select.explain', 'notes');
        await page.click('button.tab-add');
        await page.locator('.source .cm-content').click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('\nsecond := 2\n');
        await page.click('button.share');
        await page.waitForSelector('input.share-url:not([hidden])');
        const url = await page.locator('input.share-url').inputValue();
        expect(url).toMatch(/#\/playground\?s=[A-Za-z0-9_-]+$/);
        expect(page.url()).toBe(url);
        const module1 = await editorText(page, '.source');
        await page.click('.tab-name[data-file="policy.rego"]');
        const policy = await editorText(page, '.source');
        expect(policy).toContain('# shared comment');

        // a fresh browser state: only the link carries the playground
        await page.evaluate('localStorage.clear()');
        await page.goto(`${server.url}/ui#/status`);
        await page.goto(url);
        await page.waitForSelector('main[data-page="playground"]');
        await page.waitForSelector('.source .cm-content');
        expect(await editorText(page, '.source')).toBe(policy);
        expect(await page.locator('input.query').inputValue()).toBe('data.authz');
        expect(await page.locator('input.unknowns').inputValue()).toBe('input.user');
        expect(await page.locator('select.explain').inputValue()).toBe('notes');
        expect(await page.locator('.tab-name').allInnerTexts()).toEqual(['policy.rego', 'module2.rego']);
        await page.click('.tab-name[data-file="module2.rego"]');
        expect(await editorText(page, '.source')).toBe(module1);
      });
    });
  });

  describe('live decisions', () => {
    it('shows decisions as they are made, filters them, plots the rate, and opens one in the playground', async () => {
      await check('decisions', '#/decisions', async ({ page }) => {
        await page.waitForSelector('.live.on');
        const alice = await decide({ user: 'alice' });
        const bob = await decide({ user: 'bob', note: 'stream' });
        await decide({ user: 'root', role: 'admin' });
        await page.waitForSelector(`tr.decision[data-id="${bob.decision_id}"]`);
        await page.waitForSelector(`tr.decision[data-id="${alice.decision_id}"]`);
        const bobRow = page.locator(`tr.decision[data-id="${bob.decision_id}"]`);
        expect(await bobRow.locator('td.path').innerText()).toBe('authz/allow');
        expect(await bobRow.locator('td.result').innerText()).toBe('false');
        expect(await bobRow.locator('td.rev').innerText()).toBe('authz@rev-1');
        // newest first
        expect(await page.locator('tr.decision').first().getAttribute('data-id')).not.toBe(alice.decision_id);

        // rate plot: a series for the path
        await page.waitForSelector('.rate-plot polyline.series[data-series="authz/allow"]');
        expect(await page.locator('.legend-item[data-path="authz/allow"]').innerText()).toMatch(/authz\/allow — \d+\.\d\d\/s/);

        // filters
        await page.selectOption('select.f-result', 'false');
        await expect.poll(async () => (await page.locator('tr.decision td.result').allInnerTexts()).every((t) => t === 'false')).toBe(true);
        expect(await page.locator(`tr.decision[data-id="${alice.decision_id}"]`).count()).toBe(0);
        await page.selectOption('select.f-result', 'any');
        await page.fill('input.f-id', alice.decision_id);
        await expect.poll(() => page.locator('tr.decision').count()).toBe(1);
        await page.fill('input.f-id', '');
        await page.fill('input.f-path', 'no/such/path');
        await expect.poll(() => page.locator('tr.decision').count()).toBe(0);
        await page.fill('input.f-path', 'authz');
        await page.selectOption('select.f-time', '60');
        await expect.poll(() => page.locator(`tr.decision[data-id="${bob.decision_id}"]`).count()).toBe(1);
        if (SHOTS) {
          // a livelier picture: a few seconds of traffic on two paths
          for (let i = 0; i < 24; i++) {
            await decide({ user: ['alice', 'bob', 'carol'][i % 3] });
            if (i % 3 === 0) await fetch(`${server.url}/v1/data/authz`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) });
            await new Promise((r) => setTimeout(r, 150));
          }
          await page.waitForTimeout(1200);
        }
        await shot(page, 'decisions');

        // a row opens to its input and result; "open in playground" replays it
        await bobRow.click();
        expect(await page.locator('tr.detail:not([hidden])').innerText()).toContain('"note": "stream"');
        await bobRow.locator('button.open').click();
        await page.waitForSelector('main[data-page="playground"] .banner.note');
        const note = await page.locator('.banner.note').innerText();
        expect(note).toContain(bob.decision_id);
        expect(note).toContain('authz@rev-1');
        expect(await page.locator('input.query').inputValue()).toBe('data.authz.allow');
        expect(await editorText(page, '.input')).toContain('"user": "bob"');
        expect(await editorText(page, '.source')).toContain('allow if input.user == "alice"');
        await page.click('button.eval');
        await page.waitForSelector('.output .value');
        expect(await page.locator('.output .value').innerText()).toBe('false');
        // tabs carry the bundle-relative name, not the policy id (authz/authz/policy.rego)
        expect(await page.locator('.tabs .tab-name').allInnerTexts()).toEqual(['authz/policy.rego']);
      });
    });

    it('replays a decision that needed the bundle\'s data with that data: the same result as logged', async () => {
      await check('decisions-replay-data', '#/decisions', async ({ page }) => {
        await page.waitForSelector('.live.on');
        const dave = await decide({ user: 'dave', resource: 'doc1' });
        expect(dave.result).toBe(true);
        await page.locator(`tr.decision[data-id="${dave.decision_id}"] button.open`).click();
        await page.waitForSelector('main[data-page="playground"] .banner.note');
        expect(await page.locator('.banner.note').innerText()).toContain('returned true');
        expect(await page.locator('.banner.warning').count()).toBe(0);
        expect(await editorText(page, '.data')).toContain('"doc1": "dave"');
        await page.click('button.eval');
        await page.waitForSelector('.output .value');
        expect(await page.locator('.output .value').innerText()).toBe('true');
      });
    });

    it('warns when the bundle that decided has moved on since', async () => {
      const revision = () => ctxEngine.store.read(['system', 'bundles', 'authz', 'manifest', 'revision']);
      const served = bundleFiles['/bundles/authz.tar.gz'];
      const d = await decide({ user: 'alice' });
      try {
        bundleFiles['/bundles/authz.tar.gz'] = { body: await archive({ revision: 'rev-1b', roots: ['authz'], modules: { 'authz/policy.rego': SERVED }, data: { authz: { owners: { doc1: 'dave' } } } }) };
        await waitFor('rev-1b', () => revision() === 'rev-1b', 10_000);
        await check('decisions-replay-moved', '#/decisions', async ({ page }) => {
          await page.locator(`tr.decision[data-id="${d.decision_id}"] button.open`).click();
          await page.waitForSelector('main[data-page="playground"] .banner.warning');
          const warning = await page.locator('.banner.warning').innerText();
          expect(warning).toContain('rev-1b');
          expect(warning).toContain('rev-1');
        });
      } finally {
        bundleFiles['/bundles/authz.tar.gz'] = served;
        await waitFor('rev-1 again', () => revision() === 'rev-1', 10_000);
      }
    });

    it('warns when the data changed since, at the same bundle revision', async () => {
      const d = await decide({ user: 'alice' });
      // data outside the bundle's roots, as a PUT through the Data API writes it
      await ctxEngine.store.transact((txn) => txn.write('add', ['tenants'], { acme: { plan: 'gold' } }));
      try {
        await check('decisions-replay-data-changed', '#/decisions', async ({ page }) => {
          await page.locator(`tr.decision[data-id="${d.decision_id}"] button.open`).click();
          await page.waitForSelector('main[data-page="playground"] .banner.warning');
          const warning = await page.locator('.banner.warning').innerText();
          expect(warning).toContain("the server's policies or data changed at");
          expect(warning).toContain('the result may differ');
        });
        // a decision made after the change replays without the warning
        const later = await decide({ user: 'alice' });
        await check('decisions-replay-after-change', '#/decisions', async ({ page }) => {
          await page.locator(`tr.decision[data-id="${later.decision_id}"] button.open`).click();
          await page.waitForSelector('main[data-page="playground"] .banner.note');
          expect(await page.locator('.banner.warning').count()).toBe(0);
        });
      } finally {
        await ctxEngine.store.transact((txn) => txn.write('remove', ['tenants']));
      }
    });

    it('says how to turn decision logging on when it is off', async () => {
      const engine = new RegolithEngine();
      const off = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false, families: [consoleRoutes({ assetsDir })] });
      const { page, errors, outside } = await newPage([], off.url);
      try {
        await page.goto(`${off.url}/ui#/decisions`);
        await page.waitForSelector('.banner.disabled');
        const text = await page.locator('.banner.disabled').innerText();
        expect(text).toContain('Decision logging is off');
        expect(text).toContain('decision_logs');
        expect(errors).toEqual([]);
        expect(outside).toEqual([]);
      } finally {
        await page.close();
        await off.close();
      }
    });
  });

  describe('impact analysis', () => {
    it('replays recent decisions against the playground modules and finds allow→deny', async () => {
      await decide({ user: 'alice' });
      await decide({ user: 'carol' });
      const hash = stateHash({ modules: { 'authz/policy.rego': CANDIDATE }, data: '{"owners": {}}' });
      await check('impact-modules', hash, async ({ page }) => {
        // the playground keeps its state for the impact page
        await page.locator('.source .cm-content').click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('\n');
        await page.waitForFunction("(localStorage.getItem('regolith.playground') ?? '').includes('carol')");
        await page.click('nav a[href="#/impact"]');
        await page.waitForSelector('main[data-page="impact"] button.run');
        expect(await page.locator('input[name=candidate][value=modules]').isChecked()).toBe(true);
        // the replay uses the server's data, not the playground's Data panel: the page says so
        const dataNote = await page.locator('.data-note').innerText();
        expect(dataNote).toContain("the server's current data");
        expect(dataNote).toContain("the playground's Data panel is not used");
        await page.click('button.run');
        await page.waitForSelector('table.by-path tbody tr[data-path="authz/allow"]');
        const row = page.locator('table.by-path tr[data-path="authz/allow"]');
        expect(Number(await row.locator('td.a2d').innerText())).toBeGreaterThanOrEqual(1);
        expect(Number(await row.locator('td.d2a').innerText())).toBeGreaterThanOrEqual(1);
        expect(Number(await page.locator('.stat[data-stat="changed"] .stat-n').innerText())).toBeGreaterThanOrEqual(2);
        const ex = page.locator('details.example[data-kind="allow->deny"]').first();
        await ex.locator('summary').click();
        expect(await ex.locator('ul.diff').innerText()).toContain('true');
        expect(await ex.locator('ul.diff').innerText()).toContain('false');
        expect(await ex.locator('pre').first().innerText()).toContain('"user": "alice"');
        expect(await ex.locator('ul.rules').innerText()).toContain('authz.allow');
        await shot(page, 'impact');
      });
    });

    it('replays an uploaded NDJSON file against an uploaded bundle', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'regolith-ui-impact-'));
      try {
        const bundleFile = join(dir, 'candidate.tar.gz');
        writeFileSync(bundleFile, await archive({ revision: 'rev-2', roots: ['authz'], modules: { 'authz/policy.rego': CANDIDATE } }));
        const ndjson = join(dir, 'decisions.ndjson');
        const ev = (id: string, user: string, result: boolean) => JSON.stringify({ decision_id: id, path: 'authz/allow', input: { user }, result, timestamp: new Date().toISOString() });
        writeFileSync(ndjson, [ev('d1', 'alice', true), ev('d2', 'alice', true), ev('d3', 'dave', false), '{not json'].join('\n') + '\n');
        await check('impact-upload', '#/impact', async ({ page }) => {
          await page.setInputFiles('input.bundle-file', bundleFile);
          await page.setInputFiles('input.ndjson-file', ndjson);
          expect(await page.locator('input[name=candidate][value=file]').isChecked()).toBe(true);
          expect(await page.locator('input[name=decisions][value=upload]').isChecked()).toBe(true);
          await page.click('button.run');
          await page.waitForSelector('table.by-path tr[data-path="authz/allow"]');
          expect(await page.locator('.stat[data-stat="decisions"] .stat-n').innerText()).toBe('4');
          expect(await page.locator('.stat[data-stat="replayed"] .stat-n').innerText()).toBe('3');
          expect(await page.locator('.stat[data-stat="allow → deny"] .stat-n').innerText()).toBe('2');
          expect(await page.locator('.skipped').innerText()).toContain('malformed (1)');
          expect(await page.locator('details.example[data-kind="allow->deny"]').count()).toBe(2);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('replays recent decisions against a bundle URL', async () => {
      await decide({ user: 'alice' });
      await check('impact-url', '#/impact', async ({ page }) => {
        await page.fill('input.bundle-url', `${bundles.url}/bundles/candidate.tar.gz`);
        expect(await page.locator('input[name=candidate][value=url]').isChecked()).toBe(true);
        await page.click('button.run');
        await page.waitForSelector('table.by-path tr[data-path="authz/allow"]');
        expect(Number(await page.locator('table.by-path tr[data-path="authz/allow"] td.a2d').innerText())).toBeGreaterThanOrEqual(1);
      });
    });

    it('reports a decision that was undefined and is now allowed (deny→allow)', async () => {
      const ndjson = JSON.stringify({ decision_id: 'u1', path: 'authz/allow', input: { user: 'carol' }, timestamp: new Date().toISOString() }) + '\n';
      const dir = mkdtempSync(join(tmpdir(), 'regolith-ui-impact-'));
      try {
        writeFileSync(join(dir, 'undefined.ndjson'), ndjson);
        await check('impact-undefined', '#/impact', async ({ page }) => {
          await page.fill('input.bundle-url', `${bundles.url}/bundles/candidate.tar.gz`);
          await page.setInputFiles('input.ndjson-file', join(dir, 'undefined.ndjson'));
          await page.click('button.run');
          await page.waitForSelector('.impact-out .stats, .impact-out .banner.error');
          expect(await page.locator('.impact-out .banner.error').count()).toBe(0);
          expect(await page.locator('.stat[data-stat="deny → allow"] .stat-n').innerText()).toBe('1');
          expect(await page.locator('details.example[data-kind="deny->allow"] .before-after').textContent()).toContain('before undefined');
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('shows the error of a candidate that does not compile', async () => {
      await check('impact-error', stateHash({ modules: { 'bad.rego': 'package authz\n\nallow if unknown_fn(1)\n' } }), async ({ page }) => {
        await page.click('nav a[href="#/impact"]');
        await page.click('button.run');
        await page.waitForSelector('.impact-out .banner.error');
        expect(await page.locator('.impact-out .banner.error').innerText()).toContain('unknown_fn');
      }, [HTTP_400]);
    });
  });

  describe('status', () => {
    it('shows bundles, plugins, decision rate, latency and memory', async () => {
      for (let i = 0; i < 5; i++) await decide({ user: i % 2 ? 'alice' : 'bob' });
      await check('status', '#/status', async ({ page }) => {
        await page.waitForSelector('.card.bundles tbody tr');
        const bundle = await page.locator('.card.bundles tbody tr').first().innerText();
        expect(bundle).toContain('authz');
        expect(bundle).toContain('rev-1');
        expect(bundle).toMatch(/ago\)/);
        const plugins = await page.locator('.card.plugins tbody').innerText();
        expect(plugins).toContain('bundle');
        expect(plugins).toContain('decision_logs');
        expect(plugins).toContain('OK');
        expect(await page.locator('.card.paths tbody').innerText()).toContain('authz/allow');
        expect(Number(await page.locator('.stat[data-stat="decisions/s"] .stat-n').innerText())).toBeGreaterThan(0);
        expect(await page.locator('.stat[data-stat="latency p50"] .stat-n').innerText()).toMatch(/(ms|µs)$/);
        expect(await page.locator('.stat[data-stat="latency p99"] .stat-n').innerText()).toMatch(/(ms|µs)$/);
        expect(await page.locator('.stat[data-stat="memory rss"] .stat-n').innerText()).toMatch(/MiB$/);
        expect(await page.locator('.stat[data-stat="uptime"] .stat-n').innerText()).toMatch(/\d+s$/);
        await shot(page, 'status');
      });
    });

    it('shows the bundle name, revision and activation without the status plugin', async () => {
      // bundles and decision logs configured, no status: section
      const config = validateConfig({
        services: { acme: { url: bundles.url } },
        bundles: { authz: { service: 'acme', resource: '/bundles/authz.tar.gz' } },
        decision_logs: { console: true },
      });
      const engine = new RegolithEngine();
      const m = new PluginManager({ config, engine, timing: fastTiming(), id: 'ui-test-2', version: '0.0.0', console: pino({ level: 'silent' }) });
      await m.start();
      const plain = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'silent' }), processMetrics: false, ...m.serverOptions(), families: [consoleRoutes({ assetsDir, decisions: m.decisionLogs })] });
      const { page, errors, outside } = await newPage([], plain.url);
      try {
        await waitFor('the bundle', () => engine.listPolicies().length > 0, 10_000);
        await page.goto(`${plain.url}/ui#/status`);
        await page.waitForSelector('.card.bundles tbody tr');
        await expect.poll(() => page.locator('.card.bundles tbody tr').first().innerText()).toContain('rev-1');
        const row = await page.locator('.card.bundles tbody tr').first().innerText();
        expect(row).toContain('authz');
        expect(row).toMatch(/ago\)/);
        expect(row).toContain('OK');
        expect(errors).toEqual([]);
        expect(outside).toEqual([]);
      } finally {
        await page.close();
        await plain.close();
        await m.stop();
      }
    });
  });
});
