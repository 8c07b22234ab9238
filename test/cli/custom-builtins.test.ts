// --builtins <module> on eval, test, check, run (server and shell), exec, bench and capabilities: custom built-ins from a
// real JavaScript module, OPA's error shapes for errors inside them, and a clear error for
// a module that cannot be loaded.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { runExec, type ExecFlags } from '../../src/cli/commands/exec.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, regolith } from './helpers.js';
import { startRun, type RunProcess } from '../runtime/run-process.js';

const FIXTURES = join(import.meta.dirname, '../runtime/fixtures/builtins');
const LINTER = join(FIXTURES, 'linter.js');
const SILENT = pino({ level: 'silent' });

const POLICY = `package lint

parsed := custom.parse_module(input.text)

finding := result.new("bad package", {"row": 1}) if parsed.package == "bad"
`;

const TESTS = `package lint_test

import data.lint

test_parse if lint.parsed.package == "a.b" with input as {"text": "package a.b"}

test_async if custom.slow_upper("x") == "X"

test_fails if lint.parsed.package == "other" with input as {"text": "package a.b"}
`;

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'regolith-cli-builtins-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

beforeAll(() => ensureBuilt(), 300_000);

describe('regolith eval --builtins', () => {
  it('evaluates queries calling sync and async custom built-ins', () => {
    const d = dir({ 'lint.rego': POLICY, 'input.json': '{"text": "package bad\\n"}' });
    const r = regolith(['eval', '--builtins', LINTER, '-d', join(d, 'lint.rego'), '-i', join(d, 'input.json'), '--format', 'raw', '[data.lint.finding, custom.slow_upper("a")]']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([{ title: 'bad package', location: { row: 1 } }, 'A']);
  });

  it('--strict checks the modules with the custom built-ins declared', () => {
    const d = dir({ 'lint.rego': POLICY, 'input.json': '{"text": "package bad\\n"}' });
    const r = regolith(['eval', '--strict', '--builtins', LINTER, '-d', join(d, 'lint.rego'), '-i', join(d, 'input.json'), '--format', 'raw', 'data.lint.finding']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ title: 'bad package', location: { row: 1 } });
  });

  it('repeats: built-ins from several modules', () => {
    const r = regolith(['eval', '--builtins', LINTER, '--builtins', join(FIXTURES, 'commonjs.cjs'), '--format', 'raw', 'cjs.double(count(custom.parse_module("package x").package))']);
    expect(r.stdout.trim()).toBe('2');
  });

  it('an error inside a built-in is undefined, or eval_builtin_error with --strict-builtin-errors', () => {
    const d = dir({ 'lint.rego': POLICY, 'input.json': '{"text": "no package"}' });
    const args = ['eval', '--builtins', LINTER, '-d', join(d, 'lint.rego'), '-i', join(d, 'input.json'), 'data.lint.parsed'];
    const lenient = regolith(args);
    expect(lenient.code).toBe(0);
    expect(JSON.parse(lenient.stdout)).toEqual({});
    const strict = regolith([...args, '--strict-builtin-errors']);
    expect(strict.code).toBe(2);
    expect(JSON.parse(strict.stdout)).toEqual({
      errors: [{ code: 'eval_builtin_error', message: 'custom.parse_module: no package clause', location: { file: join(d, 'lint.rego'), row: 3, col: 11 } }],
    });
  });

  it('type-checks calls against the module\'s declarations', () => {
    const d = dir({ 'bad.rego': 'package bad\n\nx := custom.parse_module(42)\n' });
    const r = regolith(['eval', '--builtins', LINTER, '-d', join(d, 'bad.rego'), '--format', 'pretty', 'data.bad.x']);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toContain('rego_type_error: custom.parse_module: invalid argument(s)');
  });

  it('without the module the call is an undefined function', () => {
    const d = dir({ 'lint.rego': POLICY });
    const r = regolith(['eval', '-d', join(d, 'lint.rego'), 'data.lint.parsed']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('undefined function custom.parse_module');
  });

  it.each([
    ['missing.js', 'custom built-ins missing.js: no such file'],
    [join(FIXTURES, 'wrong-shape.js'), `custom built-ins ${join(FIXTURES, 'wrong-shape.js')}: the module must export an array of built-in definitions`],
    [join(FIXTURES, 'conflict.js'), 'custom built-in "upper": a built-in function of that name exists (custom built-ins cannot replace built-in functions)'],
  ])('--builtins %s: a clear error, exit 1', (file, message) => {
    const r = regolith(['eval', '--builtins', file, '1 == 1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });
});

describe('regolith test, check and capabilities --builtins', () => {
  it('test runs test rules calling custom built-ins', () => {
    const d = dir({ 'lint.rego': POLICY, 'lint_test.rego': TESTS });
    const r = regolith(['test', '--builtins', LINTER, '--format', 'json', d]);
    expect(r.code).toBe(2);
    const results = (JSON.parse(r.stdout) as { name: string; fail?: boolean }[]).map((t) => [t.name, !!t.fail]);
    expect(results).toEqual([
      ['test_parse', false],
      ['test_async', false],
      ['test_fails', true],
    ]);
  });

  it('check compiles with the declarations, and without them reports the undefined function', () => {
    const d = dir({ 'lint.rego': POLICY });
    expect(regolith(['check', '--builtins', LINTER, d]).code).toBe(0);
    const without = regolith(['check', d]);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('rego_type_error: undefined function custom.parse_module');
  });

  it('capabilities --current lists the custom built-ins with their declarations', () => {
    const r = regolith(['capabilities', '--current', '--builtins', LINTER, '--builtins', join(FIXTURES, 'named.mjs')]);
    const caps = JSON.parse(r.stdout) as { builtins: { name: string }[] };
    expect(caps.builtins.find((b) => b.name === 'result.new')).toEqual({
      name: 'result.new',
      decl: { args: [{ type: 'string' }, { type: 'any' }], result: { static: [{ key: 'title', value: { type: 'string' } }, { key: 'location', value: { type: 'any' } }], type: 'object' }, type: 'function' },
    });
    expect(caps.builtins.find((b) => b.name === 'counter.next')).toEqual({ name: 'counter.next', decl: { args: [], result: { type: 'number' }, type: 'function' }, nondeterministic: true });
    const plain = JSON.parse(regolith(['capabilities', '--current']).stdout) as { builtins: { name: string }[] };
    expect(plain.builtins.some((b) => b.name === 'result.new')).toBe(false);
  });
});

describe('regolith exec and bench with custom built-ins', () => {
  it("exec decides with the configuration's builtins.modules and --builtins", async () => {
    const d = dir({ 'lint.rego': POLICY, 'a.json': '{"text": "package bad"}', 'config.yaml': `builtins:\n  modules: [${JSON.stringify(LINTER)}]\n` });
    mkdirSync(join(d, 'bundle'));
    writeFileSync(join(d, 'bundle/lint.rego'), POLICY);
    const base = { bundle: [join(d, 'bundle')], set: [], setFile: [], format: 'json', logLevel: 'error', logFormat: 'json', timeout: '0s', decision: 'lint/finding' };
    const viaConfig = await runExec([join(d, 'a.json')], { ...base, configFile: join(d, 'config.yaml') } as unknown as ExecFlags, { logger: SILENT });
    expect(viaConfig.results.map((r) => r.result)).toEqual([{ title: 'bad package', location: { row: 1 } }]);
    const viaFlag = await runExec([join(d, 'a.json')], { ...base, builtins: [LINTER] } as unknown as ExecFlags, { logger: SILENT });
    expect(viaFlag.results.map((r) => r.result)).toEqual([{ title: 'bad package', location: { row: 1 } }]);
  });

  it('bench benchmarks a query calling them', () => {
    const r = regolith(['bench', '--builtins', LINTER, '--benchtime', '0.05', '--format', 'json', 'custom.parse_module("package q").package']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('regolith run (interactive shell) --builtins', () => {
  it('queries and rules typed in the shell call the custom built-ins', () => {
    const d = dir({ 'lint.rego': POLICY });
    const r = regolith(['run', '--history', join(d, 'history'), '--builtins', LINTER, join(d, 'lint.rego')], {
      input: 'custom.slow_upper("shell")\nn := custom.parse_module("package z").package\nn\n',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('"SHELL"\n');
    expect(r.stdout).toContain('"z"\n');
  });
});

describe('regolith run --server --builtins', () => {
  let run: RunProcess | undefined;
  afterEach(async () => {
    await run?.kill('SIGTERM');
    run = undefined;
  });

  it('serves decisions calling the custom built-ins', async () => {
    const d = dir({ 'lint.rego': POLICY });
    run = await startRun(['--builtins', LINTER, join(d, 'lint.rego')]);
    const res = await fetch(`${run.url}/v1/data/lint/finding`, { method: 'POST', body: JSON.stringify({ input: { text: 'package bad' } }) });
    expect(await res.json()).toEqual({ result: { title: 'bad package', location: { row: 1 } } });
  }, 120_000);
});
