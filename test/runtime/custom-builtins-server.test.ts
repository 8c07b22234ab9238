// `regolith run --server` with custom built-ins from the configuration (builtins.modules):
// decisions call them (an async one too), errors inside them follow strict-builtin-errors,
// a module that cannot be loaded stops start-up, and the key is validated.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, regolith } from '../cli/helpers.js';
import { startRun, type RunProcess } from './run-process.js';
import { validateConfig, ConfigError } from '../../src/plugins/config/index.js';

const FIXTURES = join(import.meta.dirname, 'fixtures/builtins');
const POLICY = `package lint

import rego.v1

parsed := custom.parse_module(input.text)

finding := result.new("bad package", {"row": 1}) if parsed.package == "bad"

loud := custom.slow_upper(input.text)
`;

let run: RunProcess | undefined;
afterEach(async () => {
  await run?.kill('SIGTERM');
  run = undefined;
});

function setup(config: string): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-builtins-'));
  writeFileSync(join(dir, 'lint.rego'), POLICY);
  writeFileSync(join(dir, 'config.yaml'), config);
  return { dir, config: join(dir, 'config.yaml') };
}

describe('regolith run --server with builtins.modules', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('answers decisions that call the custom built-ins', async () => {
    const s = setup(`builtins:\n  modules:\n    - ${join(FIXTURES, 'linter.js')}\n`);
    run = await startRun(['--config-file', s.config, join(s.dir, 'lint.rego')]);
    const post = async (path: string, input: unknown) =>
      (await fetch(`${run!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) })).json();
    expect(await post('/v1/data/lint/parsed', { text: 'package bad\n' })).toEqual({ result: { package: 'bad', lines: 2 } });
    expect(await post('/v1/data/lint/finding', { text: 'package bad\n' })).toEqual({ result: { title: 'bad package', location: { row: 1 } } });
    expect(await post('/v1/data/lint/loud', { text: 'abc' })).toEqual({ result: 'ABC' });
    // an error inside the built-in: undefined by default, eval_builtin_error when strict
    expect(await post('/v1/data/lint/parsed', { text: 'no package' })).toEqual({});
    const strict = await post('/v1/data/lint/parsed?strict-builtin-errors', { text: 'no package' });
    expect(strict).toMatchObject({ code: 'internal_error', errors: [{ code: 'eval_builtin_error', message: 'custom.parse_module: no package clause' }] });
  }, 120_000);

  it('a module that cannot be loaded stops start-up with its message', () => {
    const s = setup(`builtins:\n  modules:\n    - ${join(FIXTURES, 'bad-type.js')}\n`);
    const r = regolith(['run', '--server', '--addr', '127.0.0.1:0', '--config-file', s.config, join(s.dir, 'lint.rego')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`custom built-ins ${join(FIXTURES, 'bad-type.js')}: custom built-in "bad.type": argument 1: type "strng": unknown type "strng"`);
  }, 60_000);

  it('without the module, the policy does not compile', () => {
    const s = setup('{}\n');
    const r = regolith(['run', '--server', '--addr', '127.0.0.1:0', '--config-file', s.config, join(s.dir, 'lint.rego')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('undefined function custom.parse_module');
  }, 60_000);
});

describe('builtins configuration key', () => {
  it('is a list of module paths', () => {
    expect(validateConfig({ builtins: { modules: ['a.js', 'b.mjs'] } }).builtins).toEqual(['a.js', 'b.mjs']);
    expect(validateConfig({}).builtins).toBeUndefined();
  });

  it.each([
    [{ builtins: ['a.js'] }, 'builtins: expected an object'],
    [{ builtins: { modules: 'a.js' } }, 'builtins.modules: expected a list of strings'],
    [{ builtins: { module: ['a.js'] } }, 'builtins.module: unknown configuration key'],
  ])('refuses %j', (raw, message) => {
    expect(() => validateConfig(raw as Record<string, unknown>)).toThrow(ConfigError);
    expect(() => validateConfig(raw as Record<string, unknown>)).toThrow(message);
  });
});
