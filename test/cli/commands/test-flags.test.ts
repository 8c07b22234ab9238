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
  it('--count runs the tests that many times, each run with its own report, as opa test', async () => {
    const once = JSON.parse((await cli(['test', '--format', 'json', ...files])).stdout) as { name: string }[];
    expect(once.map((r) => r.name)).toEqual(['test_alice', 'test_bob']);
    const r = await cli(['test', '--count', '3', '--format', 'json', ...files]);
    expect(r.code).toBe(0);
    // three JSON arrays, one per run
    const runs = r.stdout.trim().split(/\n(?=\[)/).map((t) => (JSON.parse(t) as { name: string }[]).map((x) => x.name));
    expect(runs).toEqual([['test_alice', 'test_bob'], ['test_alice', 'test_bob'], ['test_alice', 'test_bob']]);
    expect((await cli(['test', '--count', '2', ...files])).stdout).toBe('PASS: 2/2\nPASS: 2/2\n');
  });

  it('--count stops after the first run that does not pass (exit 2)', async () => {
    const failing = join(dir, 'f_test.rego');
    writeFileSync(failing, 'package f_test\n\ntest_no if false\n');
    try {
      const r = await cli(['test', '--count', '3', ...files, failing]);
      expect(r.code).toBe(2);
      expect(r.stdout.match(/FAIL: 1\/3/g)).toHaveLength(1);
    } finally {
      rmSync(failing);
    }
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

describe('test --coverage, --threshold and -f gobench as opa test', () => {
  it('--threshold alone turns coverage on: the JSON coverage report', async () => {
    const r = await cli(['test', '--threshold', '10', ...files]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ coverage: expect.any(Number), files: expect.any(Object) });
  });

  it('below the threshold: no report, the message on stderr (with -v the lines not covered), exit 2', async () => {
    const policy = join(dir, 'half.rego');
    const half = join(dir, 'half_test.rego');
    writeFileSync(policy, 'package half\n\nallow if input.user == "alice"\n\nother if {\n\tinput.x\n\tinput.y\n}\n');
    writeFileSync(half, 'package half_test\n\nimport data.half\n\ntest_alice if half.allow with input as {"user": "alice"}\n');
    try {
      const r = await cli(['test', '--threshold', '100', policy, half]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^Code coverage threshold not met: got \d+\.\d\d instead of 100\.00\n$/);
      const v = await cli(['test', '-v', '--coverage', '--threshold', '100', policy, half]);
      expect(v.stderr).toContain(`\nLines not covered:\n\t${policy}:5-7\n`);
    } finally {
      rmSync(policy);
      rmSync(half);
    }
  });

  it('with --coverage a failing test ends the command: the failure report, its line on stderr, exit 1', async () => {
    const failing = join(dir, 'g_test.rego');
    writeFileSync(failing, 'package g_test\n\ntest_no if false\n');
    try {
      const r = await cli(['test', '--coverage', ...files, failing]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('data.g_test.test_no: FAIL');
      expect(r.stdout).not.toContain('"coverage"');
      expect(r.stderr).toMatch(/^data\.g_test\.test_no: FAIL \(/);
    } finally {
      rmSync(failing);
    }
  });

  it('--bench -f gobench names each benchmark as the Go format wants (BenchmarkDataPTestTestAlice)', async () => {
    const r = await cli(['test', '--bench', '-f', 'gobench', '-r', 'test_alice', ...files]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^BenchmarkDataPTestTestAlice\t +\d+\t +\d+ ns\/op/);
    const plain = await cli(['test', '--bench', '-r', 'test_alice', ...files]);
    expect(plain.stdout).toMatch(/^data\.p_test\.test_alice\t/);
  }, 30_000);
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
