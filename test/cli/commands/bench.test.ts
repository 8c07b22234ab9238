import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const SAMPLE = join(ROOT, 'examples/sample');
const INPUT = '{"method": "GET", "path": ["finance", "salary", "alice"], "user": "bob"}';

describe('regolith bench', () => {
  it('prints samples, ns/op, B/op, allocs/op and latency percentiles as a table', () => {
    const r = regolith(['bench', '--benchtime', '0.2', '-d', SAMPLE, '-I', 'data.httpapi.authz.allow'], { input: INPUT });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = Object.fromEntries([...r.stdout.matchAll(/^\| (\S+)\s+\|\s+(\d+) \|$/gm)].map((m) => [m[1], Number(m[2])]));
    expect(rows['samples']).toBeGreaterThan(0);
    expect(rows['ns/op']).toBeGreaterThan(0);
    expect(rows['B/op']).toBeGreaterThanOrEqual(0);
    expect(rows['allocs/op']).toBeGreaterThanOrEqual(0);
    expect(rows['histogram_eval_op_latency_99%']).toBeGreaterThanOrEqual(rows['histogram_eval_op_latency_median']!);
  }, 60_000);

  it('prints Go\'s BenchmarkResult JSON with --format json, once per --count', () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-bench-'));
    writeFileSync(join(dir, 'input.json'), INPUT);
    const r = regolith(['bench', '--benchtime', '0.1', '--count', '2', '--format', 'json', '--no-metrics', '-d', SAMPLE, '-i', join(dir, 'input.json'), 'data.httpapi.authz.allow']);
    expect(r.code).toBe(0);
    const docs = r.stdout.trim().split(/\n(?=\{)/).map((t) => JSON.parse(t) as Record<string, number>);
    expect(docs).toHaveLength(2);
    for (const d of docs) {
      expect(d.N).toBeGreaterThan(0);
      expect(d.T).toBeGreaterThan(0);
      expect(d).toHaveProperty('MemAllocs');
      expect(d).toHaveProperty('MemBytes');
    }
  }, 60_000);

  it('prints a Go benchmark line with --format gobench', () => {
    const r = regolith(['bench', '--benchtime', '0.1', '--format', 'gobench', '--no-metrics', 'count([1, 2, 3])']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^BenchmarkREGOEval\t\s*\d+\t\s*[\d.]+ ns\/op\t\s*\d+ B\/op\t\s*\d+ allocs\/op\n$/);
  }, 60_000);

  it('fails on an undefined result (unless --no-fail), on errors and on wrong usage', () => {
    const undef = regolith(['bench', '--benchtime', '0.1', 'data.nothing']);
    expect(undef.code).toBe(1);
    expect(undef.stderr).toContain('undefined result');
    expect(regolith(['bench', '--benchtime', '0.1', '--no-fail', '--no-metrics', 'data.nothing']).code).toBe(0);
    const bad = regolith(['bench', 'x := ']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rego_parse_error');
    const fmt = regolith(['bench', '--format', 'csv', 'true']);
    expect(fmt.code).toBe(1);
    expect(fmt.stderr).toContain('invalid argument "csv" for "-f, --format" flag');
    const missing = regolith(['bench', '-d', '/no/such.rego', 'true']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('/no/such.rego: no such file or directory');
    const noQuery = regolith(['bench']);
    expect(noQuery.code).toBe(1);
    expect(noQuery.stderr).toContain('specify query argument or --stdin');
  }, 60_000);
});
