// Chromium (playwright-core with Debian's /usr/bin/chromium) for the console's browser tests:
// the current ui/ sources built into a directory of the test's own (a concurrent build of
// dist/ must not pull it away), and pages watched for console errors and for any request to
// another origin than the server's (blocked, and each one a failure).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`test/ui skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/**
 * The console built from the current sources into a temporary directory; REGOLITH_UI_ASSETS
 * names a build to test instead (e.g. one of an earlier commit, to see a test fail before).
 */
export function buildUi(): { dir: string; remove: () => void } {
  const given = process.env['REGOLITH_UI_ASSETS'];
  if (given) return { dir: given, remove: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'regolith-ui-build-'));
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-ui.mjs'), '--out', dir], { stdio: 'ignore' });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Browser {
  ctx: BrowserContext;
  close(): Promise<void>;
}

export async function launch(): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'regolith-ui-'));
  const ctx = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 800 } });
  ctx.setDefaultTimeout(10_000);
  return {
    ctx,
    async close() {
      await ctx.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface Watched {
  page: Page;
  /** Requests to other origins (blocked). */
  outside: string[];
  /** Console errors and page errors, but those allowed. */
  errors: string[];
  /** Every URL the page asked the server for. */
  urls: string[];
}

/** A new page on `serverURL`'s console, watched. */
export async function watchedPage(ctx: BrowserContext, serverURL: string, allowErrors: RegExp[] = []): Promise<Watched> {
  const page = await ctx.newPage();
  const w: Watched = { page, outside: [], errors: [], urls: [] };
  const origin = new URL(serverURL).origin;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) {
      w.urls.push(url);
      return route.continue();
    }
    w.outside.push(url);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && !allowErrors.some((re) => re.test(m.text()))) w.errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => w.errors.push(`pageerror: ${e.message}`));
  return w;
}

/** Runs `fn` on a watched page; on failure saves a screenshot under test-results/ui/<name>.png. */
export async function onPage(ctx: BrowserContext, serverURL: string, name: string, fn: (w: Watched) => Promise<void>, allowErrors: RegExp[] = []): Promise<void> {
  const w = await watchedPage(ctx, serverURL, allowErrors);
  try {
    await fn(w);
  } catch (e) {
    mkdirSync(join(ROOT, 'test-results', 'ui'), { recursive: true });
    await w.page.screenshot({ path: join(ROOT, 'test-results', 'ui', `${name}.png`), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await w.page.close();
  }
}

/** Waits for the console's page `name` to have rendered (main[data-page][data-ready]). */
export function ready(page: Page, name: string): Promise<unknown> {
  return page.waitForSelector(`main[data-page="${name}"][data-ready]`, { state: 'attached' });
}

export const HTTP_401 = /Failed to load resource: the server responded with a status of 401/;
