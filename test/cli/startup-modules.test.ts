// What each subcommand loads at start-up. The built CLI runs with a preload that logs every
// module the process resolves (ES modules through a loader hook, CommonJS ones from
// require.cache); bundled chunks are traced back to their sources through their source
// maps. A subcommand must not load code it never uses: an eager import of the server, the
// plugins or a heavy library on the path of `version`, `parse` or `eval` fails here. No
// timing is measured (bench/startup.mjs does that).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from './helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const PRELOAD = join(import.meta.dirname, 'fixtures/module-log/preload.mjs');
const work = mkdtempSync(join(tmpdir(), 'regolith-startup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Libraries that only some subcommands or built-ins need. */
const HEAVY = ['hono', '@hono/node-server', 'prom-client', 'pino', 'graphql', 'ajv', 'ajv-formats', 'jose', 'tar', 'protobufjs', 'fast-json-patch'];

interface Loaded {
  /** Regolith's own source files, relative to the repository (src/...). */
  sources: Set<string>;
  /** npm packages, bundled or loaded from node_modules. */
  packages: Set<string>;
  exitCode: number;
  stdout: string;
}

function packageOf(path: string): string | undefined {
  const m = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return m ? m[1] : undefined;
}

/** Runs the built CLI (or a script) and lists what it loaded. */
function loaded(args: string[], script?: string): Loaded {
  const log = join(work, `modules-${Math.random().toString(36).slice(2)}.log`);
  const argv = script ? ['--import', PRELOAD, '--input-type=module', '-e', script] : ['--import', PRELOAD, BIN, ...args];
  const r = spawnSync(process.execPath, argv, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', REGOLITH_MODULE_LOG: log } });
  const dist = dirname(dirname(BIN));
  const sources = new Set<string>();
  const packages = new Set<string>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (!line || line.startsWith('node:')) continue;
    const path = line.startsWith('file:') ? fileURLToPath(line) : line;
    if (path.startsWith(dist + '/') || path.startsWith(join(ROOT, 'dist') + '/')) {
      // A bundled file: its source map names the sources it holds.
      const map = JSON.parse(readFileSync(path + '.map', 'utf8')) as { sources: string[] };
      for (const s of map.sources) {
        const pkg = packageOf(s);
        if (pkg) packages.add(pkg);
        else sources.add(s.replace(/^(\.\.\/)+/, ''));
      }
    } else if (path.startsWith(PRELOAD.replace(/preload\.mjs$/, ''))) {
      continue;
    } else {
      const pkg = packageOf(path);
      if (pkg) packages.add(pkg);
    }
  }
  return { sources, packages, exitCode: r.status ?? -1, stdout: r.stdout };
}

function under(sources: Set<string>, folder: string): string[] {
  return [...sources].filter((s) => s.startsWith(folder));
}

describe('start-up loads only what a subcommand uses', () => {
  const policy = join(work, 'small.rego');
  const input = join(work, 'input.json');
  writeFileSync(policy, 'package x\n\nallow if input.user == "alice"\n');
  writeFileSync(input, '{"user": "alice"}');

  it('the module log sees the bundled sources (the check below is not vacuous)', () => {
    const r = loaded(['eval', '-d', policy, '-i', input, 'data.x.allow']);
    expect(r.exitCode).toBe(0);
    expect(under(r.sources, 'src/compiler/').length).toBeGreaterThan(0);
    expect(r.packages.has('chevrotain')).toBe(true);
    expect(existsSync(PRELOAD)).toBe(true);
  });

  it('version: the command line only (no parser, evaluator, server or plugins)', () => {
    const r = loaded(['version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Version: ');
    for (const folder of ['src/lang/', 'src/compiler/', 'src/eval/', 'src/server/', 'src/plugins/', 'src/storage/', 'src/console/', 'src/integrations/']) expect(under(r.sources, folder)).toEqual([]);
    expect([...r.packages].filter((p) => p !== 'commander')).toEqual([]);
    // Only the file of the subcommand that runs (src/cli/commands/index.ts lists the others).
    expect(under(r.sources, 'src/cli/commands/').sort()).toEqual(['src/cli/commands/index.ts', 'src/cli/commands/version.ts']);
  });

  it('parse: the parser, not the evaluator, server, plugins or heavy libraries', () => {
    const r = loaded(['parse', policy]);
    expect(r.exitCode).toBe(0);
    for (const folder of ['src/compiler/', 'src/eval/builtins/', 'src/server/', 'src/plugins/']) expect(under(r.sources, folder)).toEqual([]);
    expect([...r.packages].filter((p) => HEAVY.includes(p) || p === 're2')).toEqual([]);
  });

  it('eval: no server, no plugins beyond reading bundles, no library a built-in loads on first call', () => {
    const r = loaded(['eval', '-d', policy, '-i', input, 'data.x.allow']);
    expect(r.exitCode).toBe(0);
    expect(under(r.sources, 'src/server/')).toEqual([]);
    expect(under(r.sources, 'src/plugins/')).toEqual([]);
    expect(under(r.sources, 'src/console/')).toEqual([]);
    expect(under(r.sources, 'src/integrations/')).toEqual([]);
    for (const f of ['write', 'build', 'inspect']) expect(r.sources.has(`src/bundle/${f}.ts`)).toBe(false);
    expect([...r.packages].filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('a built-in that needs a library loads it on first call', () => {
    const r = loaded(['eval', '--format', 'raw', 'graphql.is_valid("{ a }", "type Query { a: Int }")']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe('true');
    expect(r.packages.has('graphql')).toBe(true);
    const s = loaded(['eval', '--format', 'raw', 'json.verify_schema({"type": "string", "format": "email"})']);
    expect(s.exitCode).toBe(0);
    expect(s.stdout.trim()).toBe('[true,null]');
    expect(s.packages.has('ajv')).toBe(true);
  });

  it('the library (dist/index.js): no server, plugins or heavy libraries', () => {
    const lib = join(dirname(dirname(BIN)), 'index.js');
    const r = loaded([], `const { Regolith } = await import(${JSON.stringify(lib)}); if (typeof Regolith !== 'function') process.exit(3);`);
    expect(r.exitCode).toBe(0);
    expect(under(r.sources, 'src/compiler/').length).toBeGreaterThan(0);
    for (const folder of ['src/server/', 'src/plugins/', 'src/console/', 'src/integrations/', 'src/runtime/', 'src/cli/']) expect(under(r.sources, folder)).toEqual([]);
    expect([...r.packages].filter((p) => HEAVY.includes(p))).toEqual([]);
  });
});
