// Crash safety of what `regolith run --server` persists (issue 28): the built binary, with
// a persisted bundle and a persisted adapter document that both change on every poll, is
// killed with SIGKILL over and over — at random moments, and right as a persisted file is
// being written (a temporary file beside it just appeared) — and after every kill:
//   - the files on disk are whole (the archive reads and its data matches its checksum and
//     its policy; the adapter document holds one read, never parts of two),
//   - they are at least as new as the last revision the server reported persisted (it logs
//     "... activated" only after the write), so a kill never rolls the state back,
//   - the restarted server serves exactly what is on disk before any service answers, and
//     the temporary files the kill left are gone.
// The Data API is not part of it: like OPA without disk storage, Regolith keeps data
// written through /v1/data in memory only, so nothing of it is on disk to tear.
// REGOLITH_CRASH_SEED and REGOLITH_CRASH_KILLS change the seed and the number of kills.

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundleFromBytes } from '../../src/bundle/index.js';
import { ensureBuilt } from '../cli/helpers.js';
import { archive, httpServer, type Recorded, type TestHTTPServer } from '../loopback.js';
import { startRun, type RunProcess } from './run-process.js';
import { seededRandom } from '../seeded-random.js';

const SEED = Number(process.env['REGOLITH_CRASH_SEED'] ?? 28);
const KILLS = Number(process.env['REGOLITH_CRASH_KILLS'] ?? 10);
const PACKAGES = Array.from({ length: 1500 }, (_, i) => `NPM/pkg-${i}@1.0.${i % 7}`);

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** A service that answers each request with a new revision, or holds requests while `held`. */
interface Changing extends TestHTTPServer {
  held: boolean;
  revision: number;
  release(): void;
}

async function changing(answer: (rev: number, req: Recorded, res: http.ServerResponse) => Promise<void> | void): Promise<Changing> {
  const waiting: (() => void)[] = [];
  const s = Object.assign(await httpServer(() => {}), { held: false, revision: 0, release: () => {} }) as Changing;
  s.handler = async (req, res) => {
    if (s.held) await new Promise<void>((r) => waiting.push(r));
    await answer(++s.revision, req, res);
  };
  s.release = () => {
    s.held = false;
    for (const r of waiting.splice(0)) r();
  };
  return s;
}

let dir: string;
let bundles: Changing;
let insights: Changing;

beforeAll(async () => {
  ensureBuilt();
  dir = fs.mkdtempSync(join(tmpdir(), 'regolith-crash-'));
  // ~1.3 MB archives of incompressible data: each write takes a while, so kills land in it
  bundles = await changing(async (rev, _req, res) => {
    const blob = randomBytes(900_000).toString('base64');
    const body = await archive({
      revision: `r${rev}`,
      roots: ['crash'],
      data: { crash: { rev, blob, sum: sha(blob) } },
      modules: { 'crash/policy.rego': `package crash\n\npolicy_rev := ${rev}\n` },
    });
    res.writeHead(200, { etag: `"r${rev}"`, 'content-type': 'application/gzip' });
    res.end(body);
  });
  // the package insights API: every version of one read carries that read's number
  insights = await changing((rev, req, res) => {
    const requests = (JSON.parse(req.body.toString()) as { requests: { versionKey: Record<string, string> }[] }).requests;
    const responses = requests.map((r) => ({ request: r, version: { versionKey: r.versionKey, licenses: [`REV-${rev}`], note: randomBytes(150).toString('hex') } }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ responses }));
  });
  const poll = { min_delay_seconds: 0, max_delay_seconds: 0 };
  fs.writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      services: { registry: { url: bundles.url }, insights: { url: insights.url } },
      bundles: { crash: { service: 'registry', resource: '/crash.tar.gz', persist: true, polling: poll } },
      adapters: { pkgs: { type: 'package_insights', service: 'insights', packages: PACKAGES, persist: true, polling: poll } },
      persistence_directory: join(dir, 'persist'),
    }),
  );
}, 900_000);

afterAll(async () => {
  bundles?.release();
  insights?.release();
  await bundles?.close();
  await insights?.close();
});

const bundleDir = (): string => join(dir, 'persist', 'bundles', 'crash');
const adapterDir = (): string => join(dir, 'persist', 'adapters', 'pkgs');
const temps = (d: string): string[] => (fs.existsSync(d) ? fs.readdirSync(d).filter((n) => n.endsWith('.tmp')) : []);

interface OnDisk {
  bundle?: number;
  adapter?: { revision: string; rev: number };
}

/** What is persisted, checked whole: throws on a torn or mixed file. */
async function readDisk(): Promise<OnDisk> {
  const out: OnDisk = {};
  const bfile = join(bundleDir(), 'bundle.tar.gz');
  if (fs.existsSync(bfile)) {
    const b = await readBundleFromBytes(fs.readFileSync(bfile));
    const crash = (b.data as Record<string, any>)['crash'];
    expect(sha(crash.blob), 'the archive data matches its checksum').toBe(crash.sum);
    expect(b.manifest.revision).toBe(`r${crash.rev}`);
    expect(b.modules[0]!.text).toContain(`policy_rev := ${crash.rev}\n`);
    out.bundle = crash.rev as number;
  }
  const afile = join(adapterDir(), 'data.json');
  if (fs.existsSync(afile)) {
    const doc = JSON.parse(fs.readFileSync(afile, 'utf8')) as { revision: string; document: { versions: Record<string, { licenses: string[] }> } };
    const revs = new Set(Object.values(doc.document.versions).map((v) => v.licenses[0]));
    expect(Object.keys(doc.document.versions)).toHaveLength(PACKAGES.length);
    expect([...revs], 'one read, never parts of two').toHaveLength(1);
    out.adapter = { revision: doc.revision, rev: Number([...revs][0]!.slice(4)) };
  }
  return out;
}

/** The revisions this life reported persisted, in order (JSON log lines). */
function logged(output: string, msg: string): string[] {
  const out: string[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes(msg)) continue;
    try {
      out.push(String((JSON.parse(line) as { revision: string }).revision));
    } catch {
      /* a line cut by the kill */
    }
  }
  return out;
}

async function getJSON(url: string): Promise<any> {
  const r = await fetch(url);
  return ((await r.json()) as { result: unknown }).result;
}

/** Resolves when a temporary file (a write in progress) appears in one of the directories. */
function nextWrite(dirs: string[]): { seen: Promise<string>; close(): void } {
  const watchers: fs.FSWatcher[] = [];
  const seen = new Promise<string>((resolve) => {
    for (const d of dirs) watchers.push(fs.watch(d, (_e, name) => name?.endsWith('.tmp') && resolve(join(d, name))));
  });
  return { seen, close: () => watchers.forEach((w) => w.close()) };
}

describe('regolith run --server killed with SIGKILL while persisting', () => {
  it(`serves the last complete state after every kill (seed ${SEED}, ${KILLS} kills)`, async () => {
    const random = seededRandom(SEED);
    fs.mkdirSync(bundleDir(), { recursive: true });
    fs.mkdirSync(adapterDir(), { recursive: true });
    let disk: OnDisk = {};
    let midWrite = 0;
    const report: string[] = [];
    for (let life = 0; life < KILLS; life++) {
      // the services hold their answers: what is served now comes from disk alone
      bundles.held = insights.held = true;
      let run: RunProcess | undefined;
      try {
        run = await startRun(['-c', join(dir, 'config.json')]);
        if (disk.bundle !== undefined) {
          const crash = await getJSON(`${run.url}/v1/data/crash`);
          expect(crash, `life ${life}: the persisted bundle is served`).toMatchObject({ rev: disk.bundle, policy_rev: disk.bundle });
          expect(sha(crash.blob)).toBe(crash.sum);
        }
        if (disk.adapter) {
          const versions = (await getJSON(`${run.url}/v1/data/insights/versions`)) as Record<string, { licenses: string[] }>;
          expect(new Set(Object.values(versions).map((v) => v.licenses[0])), `life ${life}: the persisted adapter document is served`).toEqual(new Set([`REV-${disk.adapter.rev}`]));
          expect(logged(run.output(), 'Adapter data loaded from disk.')).toEqual([disk.adapter.revision]);
        }
        // what the previous kill left half-written was swept at start-up
        expect([...temps(bundleDir()), ...temps(adapterDir())], `life ${life}: temporary files after restart`).toEqual([]);

        // now the revisions flow, and the kill comes: at a random moment, or right inside a write
        const pick = random();
        const mode = pick < 0.4 ? 'random moment' : pick < 0.7 ? 'inside a bundle write' : 'inside an adapter write';
        const watch = nextWrite(mode === 'inside a bundle write' ? [bundleDir()] : [adapterDir()]);
        bundles.release();
        insights.release();
        if (mode === 'random moment') await new Promise((r) => setTimeout(r, Math.floor(random() * 3000)));
        else {
          await Promise.race([watch.seen, new Promise((r) => setTimeout(r, 30_000))]);
          await new Promise((r) => setTimeout(r, Math.floor(random() * 4)));
        }
        run.child.kill('SIGKILL');
        await run.kill('SIGKILL');
        watch.close();
        const left = [...temps(bundleDir()), ...temps(adapterDir())];
        if (left.length) midWrite++;

        const out = run.output();
        const next = await readDisk();
        // never older than what the server said it had persisted
        const bundleRevs = logged(out, 'Bundle loaded and activated successfully.').map((r) => Number(r.slice(1)));
        if (bundleRevs.length) expect(next.bundle, `life ${life}: bundle on disk vs reported`).toBeGreaterThanOrEqual(bundleRevs.at(-1)!);
        if (disk.bundle !== undefined) expect(next.bundle).toBeGreaterThanOrEqual(disk.bundle);
        const adapterRevs = logged(out, 'Adapter data activated.');
        if (adapterRevs.length) {
          // the last one reported, or a newer one whose write finished before the kill
          expect(adapterRevs.slice(0, -1), `life ${life}: adapter document on disk vs reported`).not.toContain(next.adapter!.revision);
          expect(next.adapter!.rev).toBeGreaterThanOrEqual(disk.adapter?.rev ?? 0);
        }
        report.push(`${mode}: bundle r${next.bundle ?? '-'} (reported r${bundleRevs.at(-1) ?? '-'}), adapter REV-${next.adapter?.rev ?? '-'}${left.length ? `, killed mid-write (${left.length} temporary file)` : ''}`);
        disk = next;
      } finally {
        await run?.kill('SIGKILL');
      }
    }
    console.log(`crash safety, seed ${SEED}:\n  ${report.join('\n  ')}\n  ${midWrite} of ${KILLS} kills left a write unfinished`);
    expect(disk.bundle).toBeDefined();
    expect(disk.adapter).toBeDefined();
  }, 600_000);
});
