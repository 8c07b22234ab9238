// `regolith test` with `opa test`'s --count, --parallel and --max-errors, and the flags of
// test, check, fmt and build that regolith refuses with one clear error (never "unknown option").

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../run-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'regolith-test-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'p.rego'), 'package p\n\nallow if input.user == "alice"\n');
writeFileSync(join(dir, 'p_test.rego'), 'package p_test\n\nimport data.p\n\ntest_alice if p.allow with input as {"user": "alice"}\n\ntest_bob if not p.allow with input as {"user": "bob"}\n');
const files = [join(dir, 'p.rego'), join(dir, 'p_test.rego')];

describe('test --count, --parallel, --max-errors', () => {
  it('--count runs every test that many times and reports each run', async () => {
    const once = JSON.parse((await cli(['test', '--format', 'json', ...files])).stdout) as { name: string }[];
    expect(once.map((r) => r.name)).toEqual(['test_alice', 'test_bob']);
    const r = await cli(['test', '--count', '3', '--format', 'json', ...files]);
    expect(r.code).toBe(0);
    const thrice = JSON.parse(r.stdout) as { name: string }[];
    expect(thrice.map((x) => x.name)).toEqual(['test_alice', 'test_bob', 'test_alice', 'test_bob', 'test_alice', 'test_bob']);
    expect((await cli(['test', '--count', '2', ...files])).stdout).toContain('PASS: 4/4');
  });

  it('--parallel and --max-errors take OPA\'s values (the tests run one after another)', async () => {
    expect((await cli(['test', '-p', '4', ...files])).stdout).toContain('PASS: 2/2');
    expect((await cli(['test', '--parallel', '0', '-m', '3', ...files])).stdout).toContain('PASS: 2/2');
    const bad = await cli(['test', '--parallel', 'many', ...files]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid argument "many" for "-p, --parallel" flag');
    expect((await cli(['test', '--count', 'x', ...files])).stderr).toContain('--count');
  });
});

describe('flags OPA has that regolith refuses', () => {
  const cases: [string[], string][] = [
    [['test', '-t', 'wasm'], 'use -t rego'],
    [['test', '--capabilities', 'v1.0.0'], 'regolith capabilities --current'],
    [['test', '--watch'], 'file watcher'],
    [['check', '--capabilities', 'caps.json'], 'regolith capabilities --current'],
    [['check', '-t', 'wasm'], 'use -t rego'],
    [['build', '-e', 'p/allow'], 'no entrypoint'],
    [['build', '-O', '1'], 'drop -O'],
    [['build', '--prune-unused'], 'drop it'],
    [['build', '--capabilities', 'v1.0.0'], 'regolith capabilities --current'],
    [['build', '--signing-plugin', 'p'], '--signing-key'],
    [['build', '--follow-symlinks'], 'directories they point to'],
    [['build', '--partial-namespace', 'p'], 'drop it'],
    [['build', '--wasm-include-print'], 'drop it'],
  ];
  for (const [args, alternative] of cases) {
    it(args.join(' '), async () => {
      const r = await cli([...args, ...files]);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toContain('unknown option');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(alternative);
    });
  }

  it('build -t wasm and -t plan name the rego target and regolith run', async () => {
    for (const t of ['wasm', 'plan']) {
      const r = await cli(['build', '-t', t, '-o', join(dir, 'b.tar.gz'), ...files]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('regolith builds only the "rego" target');
      expect(r.stderr).toContain('regolith run');
    }
  });
});
