// regolith deps-check: the built binary, run as CI runs it, against a stand-in insights
// service in this process (so the binary is spawned asynchronously: the stand-in must keep
// answering while it runs).

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVersion, insightsStandIn, type InsightsStandIn } from '../../integrations/package-insights/stand-in.js';
import { BIN, ensureBuilt, regolith, ROOT } from '../helpers.js';

let dir: string;
let api: InsightsStandIn;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-deps-'));
  mkdirSync(join(dir, 'big'));
  api = await insightsStandIn();
  api.pageSize = 3;
  addVersion(api, 'GO', 'github.com/gorilla/mux', 'v1.8.1', { licenses: ['BSD-3-Clause'] });
  addVersion(api, 'GO', 'golang.org/x/text', 'v0.14.0', { licenses: ['BSD-3-Clause'] });
  addVersion(api, 'CARGO', 'serde', '1.0.193', { licenses: ['MIT OR Apache-2.0'] });
  addVersion(api, 'CARGO', 'ring', '0.17.7', { licenses: ['non-standard'] });
  addVersion(api, 'PYPI', 'requests', '2.31.0', { licenses: ['Apache-2.0'], advisories: ['GHSA-j8r2-6x86-q33q'] });
  writeFileSync(
    join(dir, 'go.sum'),
    [
      'github.com/gorilla/mux v1.8.1 h1:TuBL49tXwgrFYWhqrNgrUNEY92u81SPhu7sTdzQEiWY=',
      'github.com/gorilla/mux v1.8.1/go.mod h1:AKf9I4AEqPTmMytcMc0KkNouC66V3BtZ4qD5fmWSiMQ=',
      'golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=',
      'golang.org/x/text v0.14.0/go.mod h1:18ZOQIKpY8NJVqYksKHtTdi31H5itFRjB5/qKTNYzSU=',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'Cargo.lock'),
    ['version = 3', '', '[[package]]', 'name = "app"', 'version = "0.1.0"', '', '[[package]]', 'name = "ring"', 'version = "0.17.7"', 'source = "registry+https://github.com/rust-lang/crates.io-index"', '', '[[package]]', 'name = "serde"', 'version = "1.0.193"', 'source = "registry+https://github.com/rust-lang/crates.io-index"', ''].join('\n'),
  );
  writeFileSync(join(dir, 'requirements.txt'), 'requests==2.31.0\n');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ supply_chain: { ignore_advisories: ['GHSA-j8r2-6x86-q33q'] } }));
});
afterAll(async () => {
  await api.close();
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, 'deps-check', ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('regolith deps-check', () => {
  it('exits 0 when every package passes the shipped policy', async () => {
    const r = await run(['--insights-url', api.url, 'go.sum']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('no violations (2 package versions checked)');
    expect(r.code).toBe(0);
  });

  it('exits 1 and lists the violations in the documented JSON shape', async () => {
    const r = await run(['--insights-url', api.url, '--format', 'json', 'go.sum', 'Cargo.lock', 'requirements.txt']);
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      violations: [
        { system: 'CARGO', package: 'ring', version: '0.17.7', rule: 'license', message: 'the licence is non-standard (no SPDX identifier): review it' },
        { system: 'PYPI', package: 'requests', version: '2.31.0', rule: 'advisory', message: 'advisory GHSA-j8r2-6x86-q33q' },
      ],
    });
    // no progress bar when stderr is not a terminal
    expect(r.stderr).toBe('');
  });

  it('pretty output is a table; settings come from -d', async () => {
    const r = await run(['--insights-url', api.url, '-d', join(dir, 'settings.json'), 'requirements.txt', 'Cargo.lock']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/CARGO\/ring@0\.17\.7 .*license/);
    expect(r.stdout).not.toContain('requests');
    expect(r.stdout).toContain('1 violation in 3 package versions');
  });

  it('reads the service from a configuration file', async () => {
    writeFileSync(join(dir, 'regolith.yaml'), `services:\n  insights:\n    url: ${api.url}\nadapters:\n  deps:\n    type: package_insights\n    service: insights\n    lockfiles: [go.sum]\n`);
    const r = await run(['-c', join(dir, 'regolith.yaml'), 'go.sum']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('exits 2 with a clear message on errors', async () => {
    writeFileSync(join(dir, 'requirements-dev.txt'), 'flask>=2\n');
    const cases: [string[], RegExp][] = [
      [['--insights-url', api.url, 'requirements-dev.txt'], /requirements-dev\.txt:1: "flask>=2" is not pinned to one version/],
      [['--insights-url', api.url, 'yarn.lock'], /yarn\.lock: unknown package list/],
      [['--insights-url', api.url, 'missing/go.sum'], /ENOENT|no such file/],
      [['--insights-url', 'http://127.0.0.1:1', 'go.sum'], /connection refused/],
      [['--insights-url', 'not a url', 'go.sum'], /--insights-url: invalid URL/],
      [['go.sum'], /name the insights service/],
      [['--insights-url', api.url, '--format', 'xml', 'go.sum'], /--format/],
      [['--insights-url', api.url, '--policy', join(dir, 'settings.json'), 'go.sum'], /does not define data\.regolith\.supply_chain\.violations/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stdout}`).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  }, 60_000);

  it('the shipped policies pass their own tests, and are formatted', () => {
    const r = regolith(['test', join(ROOT, 'policies')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS: \d+\/\d+/);
    const fmt = regolith(['fmt', '-l', join(ROOT, 'policies')]);
    expect(fmt.stdout + fmt.stderr).toBe('');
  });
});

describe('regolith deps-check on a terminal', () => {
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!hasScript)('draws a progress bar on stderr as pages arrive', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 12; i++) {
      const v = `v1.0.${i}`;
      addVersion(api, 'GO', `example.com/m${i}`, v, { licenses: ['MIT'] });
      lines.push(`example.com/m${i} ${v} h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`);
    }
    writeFileSync(join(dir, 'big', 'go.sum'), lines.join('\n') + '\n');
    // script gives the command a terminal; its output (stdout and stderr together) is ours
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      const p = spawn('script', ['-qec', `${process.execPath} ${BIN} deps-check --insights-url ${api.url} ${join(dir, 'big', 'go.sum')}`, '/dev/null'], { env: { ...process.env, NO_COLOR: '1' } });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
    expect(r.code).toBe(0);
    for (const n of [3, 6, 9, 12]) expect(r.out).toContain(`] ${n}/12 versions`);
    expect(r.out).toContain('no violations (12 package versions checked)');
  });
});
