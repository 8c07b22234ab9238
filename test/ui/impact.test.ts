// Impact analysis in Chromium, beyond the counts: every changed decision a page at a time
// with NDJSON and CSV export, the candidate against the live policy, which recent
// decisions were replayed (count and time range), zero counts left unpainted and the
// result diff in words. No request leaves the server; no console error.

import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { consoleRoutes } from '../../src/console/index.js';
import { impactHook } from '../../src/console/impact/hook.js';
import { buildUi, haveChromium, launch, onPage, ready, type Browser } from './browser.js';

const LIVE = 'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n\nallow if input.role == "admin"\n\nis_admin if input.role == "admin"\n';
const CANDIDATE = 'package authz\n\ndefault allow := false\n\nallow if input.role == "admin"\n\nallow if input.user == "carol"\n\nis_admin if input.role == "admin"\n';

let build: ReturnType<typeof buildUi>;
let server: RunningServer;
let browser: Browser;

/** 60 logged decisions, 10:00:00.250 to 10:00:59.250: 55 of alice (allowed, denied by the candidate), 5 of bob (denied either way). */
const recent = Array.from({ length: 60 }, (_, i) => {
  const user = i % 12 === 11 ? 'bob' : 'alice';
  return JSON.stringify({ decision_id: `d${String(i).padStart(2, '0')}`, path: 'authz/allow', input: { user }, result: user === 'alice', timestamp: `2026-11-26T10:00:${String(i).padStart(2, '0')}.250Z` });
});
// and two that change nothing, on another path, in between
recent.splice(30, 0, ...['a1', 'a2'].map((id) => JSON.stringify({ decision_id: id, path: 'authz/is_admin', input: { role: 'admin' }, result: true, timestamp: '2026-11-26T10:00:30.500Z' })));

beforeAll(async () => {
  if (!haveChromium) return;
  build = buildUi();
  const engine = new RegolithEngine();
  await engine.putPolicy('policies/authz.rego', LIVE);
  server = await startServer({
    addr: '127.0.0.1:0',
    engine,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    families: [consoleRoutes({ assetsDir: build.dir, impact: impactHook({ engine, recent: (n) => recent.slice(-n) }) })],
  });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  build?.remove();
});

describe.skipIf(!haveChromium)('impact analysis report', () => {
  it('lists every change paged, exports them, diffs the policies and says what it replayed', async () => {
    await onPage(browser.ctx, server.url, 'impact-report', async ({ page, errors, outside }) => {
      const state = { modules: { 'authz.rego': CANDIDATE }, input: '', data: '', query: 'data.authz.allow', unknowns: '', explain: 'off', coverage: false };
      await page.goto(`${server.url}/ui#/status`);
      await page.evaluate(`localStorage.setItem('regolith.playground', ${JSON.stringify(JSON.stringify(state))})`);
      await page.goto(`${server.url}/ui#/impact`);
      await ready(page, 'impact');
      await page.click('button.run');
      await page.waitForSelector('table.changes tr.change');

      // which decisions: how many, from when to when (to the millisecond)
      const range = await page.locator('.replayed-range').innerText();
      expect(range).toContain('62 most recent decisions');
      expect(range).toMatch(/from 2026-11-26 \d\d:00:00\.250 to 2026-11-26 \d\d:00:59\.250/);

      // every change, 50 a page
      expect(await page.locator('table.changes tr.change').count()).toBe(50);
      expect(await page.locator('.changes .page-info').innerText()).toBe('1–50 of 55');
      expect(await page.locator('button.page-prev').isDisabled()).toBe(true);
      await page.click('button.page-next');
      await expect.poll(() => page.locator('table.changes tr.change').count()).toBe(5);
      expect(await page.locator('.changes .page-info').innerText()).toBe('51–55 of 55');
      expect(await page.locator('button.page-next').isDisabled()).toBe(true);
      expect(await page.locator('table.changes tr.change').first().getAttribute('data-id')).toBe('d54');

      // exported whole, as NDJSON and as CSV
      const [nd] = await Promise.all([page.waitForEvent('download'), page.click('button.export-ndjson')]);
      expect(nd.suggestedFilename()).toBe('impact-changes.ndjson');
      const lines = readFileSync((await nd.path())!, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(lines).toHaveLength(55);
      expect(lines[0]).toEqual({ decision_id: 'd00', path: 'authz/allow', kind: 'allow->deny', timestamp: '2026-11-26T10:00:00.250Z', input: { user: 'alice' }, before: true, after: false });
      const [csv] = await Promise.all([page.waitForEvent('download'), page.click('button.export-csv')]);
      const rows = readFileSync((await csv.path())!, 'utf8').trimEnd().split('\r\n');
      expect(rows).toHaveLength(56);
      expect(rows[0]).toBe('decision_id,timestamp,path,kind,input,before,after');
      expect(rows[1]).toBe('d00,2026-11-26T10:00:00.250Z,authz/allow,allow->deny,"{""user"":""alice""}",true,false');

      // the candidate against the live policy (shown as authz.rego, not its server path)
      const file = page.locator('details.file-diff[data-file="authz.rego"][data-status="changed"]');
      expect(await file.locator('.dl-del').allInnerTexts()).toEqual(['- allow if input.user == "alice"\n', '- \n']);
      expect(await file.locator('.dl-add').allInnerTexts()).toEqual(['+ \n', '+ allow if input.user == "carol"\n']);

      // zero counts are not painted; a count above zero is
      const color = (path: string, sel: string) =>
        page.locator(`table.by-path tr[data-path="${path}"] ${sel}`).evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color);
      const plain = await color('authz/allow', 'td:first-child');
      expect(await page.locator('table.by-path tr[data-path="authz/is_admin"] td.a2d').innerText()).toBe('0');
      expect(await color('authz/is_admin', 'td.a2d')).toBe(plain);
      expect(await color('authz/allow', 'td.d2a')).toBe(plain);
      expect(await color('authz/allow', 'td.a2d')).not.toBe(plain);
      expect(await page.locator('.stat[data-stat="deny → allow"]').getAttribute('class')).toBe('stat');

      // the result diff in words
      const ex = page.locator('details.example[data-kind="allow->deny"]').first();
      await ex.locator('summary').click();
      const diff = await ex.locator('ul.diff').innerText();
      expect(diff).toBe('result changed from true to false');
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });

  it('keeps every column of the changed decisions inside the page, however long the input', async () => {
    await onPage(browser.ctx, server.url, 'impact-wide', async ({ page, errors, outside }) => {
      const state = { modules: { 'authz.rego': CANDIDATE }, input: '', data: '', query: 'data.authz.allow', unknowns: '', explain: 'off', coverage: false };
      await page.goto(`${server.url}/ui#/status`);
      await page.evaluate(`localStorage.setItem('regolith.playground', ${JSON.stringify(JSON.stringify(state))})`);
      await page.goto(`${server.url}/ui#/impact`);
      await ready(page, 'impact');
      // inputs and results whose JSON has no space to break at, as the decision log writes them
      const input = { amount: 300, role: 'manager', user: 'alice', account: 'DE89370400440532013000', department: 'paymentsandsettlements' };
      const result = { allow: true, is_admin: false, limits: { alice: 500, bob: 100, carol: 250, dave: 1000 }, approvers: ['financeapprovers', 'treasuryreaders'] };
      const events = [0, 1, 2].map((i) => JSON.stringify({ decision_id: `c5526f99-afcf-451f-b909-606d6d4005c${i}`, path: 'authz', input, result, timestamp: '2026-11-26T10:00:00.250Z' }));
      await page.setInputFiles('input.ndjson-file', { name: 'decisions.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(events.join('\n')) });
      await page.click('button.run');
      await page.waitForSelector('table.changes tr.change');
      const overflow = await page.evaluate(`(() => {
        const panel = document.querySelector('section.panel.changes').getBoundingClientRect();
        const id = document.querySelector('table.changes tr.change td:last-child code').getBoundingClientRect();
        return { panelRight: panel.right, idRight: id.right };
      })()`) as { panelRight: number; idRight: number };
      expect(overflow.idRight).toBeLessThanOrEqual(overflow.panelRight);
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });

  it('tells the changes the candidate did not make from those it did', async () => {
    await onPage(browser.ctx, server.url, 'impact-since', async ({ page, errors, outside }) => {
      const state = { modules: { 'authz.rego': CANDIDATE }, input: '', data: '', query: 'data.authz.allow', unknowns: '', explain: 'off', coverage: false };
      await page.goto(`${server.url}/ui#/status`);
      await page.evaluate(`localStorage.setItem('regolith.playground', ${JSON.stringify(JSON.stringify(state))})`);
      await page.goto(`${server.url}/ui#/impact`);
      await ready(page, 'impact');
      // s1 was logged false under an earlier policy; the live one and the candidate both say true
      // today (is_admin is the same in both). a1 changes because of the candidate (alice dropped).
      const events = [
        { decision_id: 's1', path: 'authz/is_admin', input: { role: 'admin' }, result: false, timestamp: '2026-11-26T10:00:00.250Z' },
        { decision_id: 'a1', path: 'authz/allow', input: { user: 'alice' }, result: true, timestamp: '2026-11-26T10:00:01.250Z' },
      ].map((e) => JSON.stringify(e));
      await page.setInputFiles('input.ndjson-file', { name: 'decisions.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(events.join('\n')) });
      await page.click('button.run');
      await page.waitForSelector('table.changes tr.change');
      expect(await page.locator('.since-note').innerText()).toContain("1 of the 2 changes are not the candidate's");
      expect(await page.locator('table.changes tr.change[data-id="s1"] .badge.since').count()).toBe(1);
      expect(await page.locator('table.changes tr.change[data-id="a1"] .badge.since').count()).toBe(0);
      expect(await page.locator('details.example[data-id="s1"] .badge.since').count()).toBe(1);
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });
  });
});
