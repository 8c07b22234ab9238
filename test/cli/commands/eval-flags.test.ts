// `regolith eval` with the rest of `opa eval`'s flags, against OPA's output shapes:
// --profile (JSON rows and the pretty table, --profile-sort, --profile-limit), --count
// (aggregated_metrics and aggregated_profile), --coverage (the report and the pretty row),
// --package/--import, --strict, --instrument, --disable-inlining, --nondeterministic-builtins,
// --fail-non-empty, and the flags OPA has that regolith refuses with one clear error.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../run-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'regolith-eval-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const policy = file(
  'authz.rego',
  `package authz

default allow := false

allow if {
	input.user == "alice"
	some r in input.roles
	r == "admin"
}

names contains n if {
	some n in ["a", "b"]
}
`,
);
const lib = file('lib.rego', 'package lib.q\n\nhelper(x) := x * 2\n');
const input = file('input.json', '{"user": "alice", "roles": ["x", "y", "admin"]}');
const json = (s: string) => JSON.parse(s) as Record<string, any>;

describe('eval --profile', () => {
  it('JSON: one row per expression line with OPA\'s fields, sorted by total_time_ns then num_eval...', async () => {
    const r = await cli(['eval', '-d', policy, '-i', input, '--profile', 'data.authz.allow']);
    expect(r.code).toBe(0);
    const out = json(r.stdout);
    expect(out.result[0].expressions[0].value).toBe(true);
    expect(Object.keys(out.metrics)).toContain('timer_rego_query_eval_ns'); // --profile implies --metrics
    const rows = out.profile as any[];
    expect(Object.keys(rows[0])).toEqual(['location', 'total_time_ns', 'num_eval', 'num_redo', 'num_gen_expr']);
    for (let i = 1; i < rows.length; i++) expect(rows[i - 1].total_time_ns).toBeGreaterThanOrEqual(rows[i].total_time_ns);
    const byRow = new Map(rows.filter((x) => x.location.file === policy).map((x) => [x.location.row, x]));
    // `some r in input.roles` yields three roles: evaluated once, redone; `r == "admin"` evaluated three times.
    expect(byRow.get(8)).toMatchObject({ num_eval: 3, num_gen_expr: 1, location: { file: policy, row: 8, col: 2 } });
    expect(byRow.get(6)).toMatchObject({ num_eval: 1, num_redo: 0 });
  });

  it('--profile-sort and --profile-limit (which imply --profile)', async () => {
    const r = await cli(['eval', '-d', policy, '-i', input, '--profile-sort', 'num_eval', '--profile-limit', '1', 'data.authz.allow']);
    const rows = json(r.stdout).profile as any[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ num_eval: 3, location: { row: 8 } });
    const all = json((await cli(['eval', '-d', policy, '-i', input, '--profile-limit', '0', 'data.authz.allow'])).stdout).profile as any[];
    expect(all.length).toBeGreaterThan(3);
  });

  it('pretty: the result, the metrics table, then the profile table with Go durations', async () => {
    const r = await cli(['eval', '-d', policy, '-i', input, '--profile', '--format', 'pretty', 'data.authz.allow']);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('true');
    const header = lines.findIndex((l) => /^\|\s+Time\s+\|\s+Num Eval\s+\|\s+Num Redo\s+\|\s+Num Gen Expr\s+\|\s+Location\s+\|$/.test(l));
    expect(header).toBeGreaterThan(lines.findIndex((l) => l.includes('timer_rego_query_eval_ns')));
    expect(lines.slice(header + 2).find((l) => l.includes(`${policy}:8`))).toMatch(/^\| \d+(\.\d+)?(ns|µs|ms|s) +\| 3 +\| \d+ +\| 1 +\| /);
  });
});

describe('eval --count', () => {
  it('aggregated_metrics and aggregated_profile instead of metrics and profile', async () => {
    const r = await cli(['eval', '-d', policy, '-i', input, '--count', '3', '--profile', 'data.authz.allow']);
    const out = json(r.stdout);
    expect(out.metrics).toBeUndefined();
    expect(out.profile).toBeUndefined();
    const t = out.aggregated_metrics.timer_rego_query_eval_ns;
    expect(Object.keys(t)).toEqual(['75%', '90%', '95%', '99%', '99.9%', '99.99%', 'count', 'max', 'mean', 'median', 'min', 'stddev']);
    expect(t.count).toBe(3);
    expect(t.min).toBeLessThanOrEqual(t.mean);
    expect(t.mean).toBeLessThanOrEqual(t.max);
    const row = (out.aggregated_profile as any[]).find((x) => x.location.row === 8);
    expect(Object.keys(row)).toEqual(['total_time_ns_stats', 'location', 'num_eval', 'num_redo', 'num_gen_expr']);
    expect(row.total_time_ns_stats.count).toBe(3);
    expect(row.num_eval).toBe(3);
  });

  it('pretty: the aggregated tables (Metric, Min, Max, Mean, 90%, 99%)', async () => {
    const r = await cli(['eval', '-d', policy, '-i', input, '--count', '2', '--metrics', '--format', 'pretty', 'data.authz.allow']);
    expect(r.stdout).toMatch(/\|\s+Metric\s+\|\s+Min\s+\|\s+Max\s+\|\s+Mean\s+\|\s+90%\s+\|\s+99%\s+\|/);
    expect(r.stdout).toMatch(/\| timer_rego_query_eval_ns +\| \d+ +\| \d+ +\|/);
  });

  it('refuses a count below 1', async () => {
    const r = await cli(['eval', '--count', '0', 'true']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--count');
  });
});

describe('eval --coverage', () => {
  it('JSON: the report in cover.Report\'s field order', async () => {
    const r = await cli(['eval', '-d', policy, '-i', input, '--coverage', 'data.authz.allow']);
    const c = json(r.stdout).coverage;
    expect(Object.keys(c)).toEqual(['files', 'covered_lines', 'not_covered_lines', 'coverage']);
    const f = c.files[policy];
    expect(Object.keys(f)).toEqual(['covered', 'not_covered', 'covered_lines', 'not_covered_lines', 'coverage']);
    expect(f.covered).toEqual([{ start: { row: 5 }, end: { row: 8 } }]);
    expect(f.not_covered).toEqual([{ start: { row: 3 }, end: { row: 3 } }, { start: { row: 11 }, end: { row: 12 } }]);
    expect(c.coverage).toBe(57.15);
  });

  it('pretty: the Overall Coverage row after the result', async () => {
    const r = await cli(['eval', '-d', policy, '-i', input, '--coverage', '--format', 'pretty', 'data.authz.allow']);
    expect(r.stdout).toBe('true\n+------------------+-------+\n| Overall Coverage | 57.15 |\n+------------------+-------+\n');
  });
});

describe('eval --package and --import', () => {
  it('read the query inside the package, with the imports', async () => {
    const r = await cli(['eval', '-d', policy, '-d', lib, '-i', input, '--package', 'authz', '--import', 'data.lib.q', '--format', 'raw', 'allow; q.helper(2)']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true 4\n');
  });

  it('without --package, a rule name is an unsafe var in the query', async () => {
    const r = await cli(['eval', '-d', policy, '--format', 'raw', 'allow']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('var allow is unsafe');
  });
});

describe('eval: other flags', () => {
  it('--strict: the compiler\'s strict mode over the modules (an unused import is an error)', async () => {
    const strictPolicy = file('strict.rego', 'package s\n\nimport data.lib.q\n\nx := 1\n');
    expect((await cli(['eval', '-d', strictPolicy, '--format', 'raw', 'data.s.x'])).stdout).toBe('1\n');
    const r = await cli(['eval', '-d', strictPolicy, '--strict', 'data.s.x']);
    expect(r.code).toBe(2);
    expect(json(r.stdout).errors[0]).toMatchObject({ code: 'rego_compile_error', message: expect.stringContaining('import data.lib.q unused') });
  });

  it('--instrument implies --metrics', async () => {
    const out = json((await cli(['eval', '--instrument', 'true'])).stdout);
    expect(Object.keys(out.metrics)).toContain('timer_rego_query_eval_ns');
  });

  it('--disable-inlining keeps a rule out of the residual query (with --partial)', async () => {
    const inl = file('inl.rego', 'package p\n\nallow if input.x == 1\n');
    const inlined = json((await cli(['eval', '-d', inl, '--partial', 'data.p.allow'])).stdout);
    expect(inlined.partial.modules).toBeUndefined();
    const kept = json((await cli(['eval', '-d', inl, '--partial', '--disable-inlining', 'data.p.allow', 'data.p.allow'])).stdout);
    expect(kept.partial.modules).toHaveLength(1);
    expect(JSON.stringify(kept.partial.queries)).toContain('"partial"');
  });

  it('--nondeterministic-builtins (and OPA\'s spelling) evaluates them during partial evaluation', async () => {
    const nd = file('nd.rego', 'package nd\n\nt if {\n\ttime.now_ns() > 0\n\tinput.x\n}\n');
    const kept = (await cli(['eval', '-d', nd, '--partial', '--format', 'source', 'data.nd.t'])).stdout;
    expect(kept).toContain('time.now_ns');
    for (const flag of ['--nondeterministic-builtins', '--nondeterminstic-builtins']) {
      const evaluated = (await cli(['eval', '-d', nd, '--partial', flag, '--format', 'source', 'data.nd.t'])).stdout;
      expect(evaluated).not.toContain('time.now_ns');
      expect(evaluated).toContain('input.x');
    }
  });

  it('--fail-non-empty: exit 1 on a non-empty result, 0 on an empty one; not with --fail', async () => {
    expect((await cli(['eval', '--fail-non-empty', '[1]'])).code).toBe(1);
    expect((await cli(['eval', '--fail-non-empty', '[]'])).code).toBe(0);
    expect((await cli(['eval', '--fail-non-empty', 'input.missing'])).code).toBe(0);
    const both = await cli(['eval', '--fail-non-empty', '--fail', 'true']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('specify --fail-non-empty or --fail but not both');
  });

  it('--show-builtin-errors: the errors of undefined built-in calls beside the results; not fatal; not with --strict-builtin-errors', async () => {
    expect(json((await cli(['eval', 'y := to_number("a")'])).stdout)).toEqual({});
    const r = await cli(['eval', '--show-builtin-errors', 'x := 1; y := to_number("nope")']);
    expect(r.code).toBe(0);
    const out = json(r.stdout);
    expect(out.errors).toEqual([{ message: expect.stringContaining('to_number'), code: 'eval_builtin_error', location: { file: '', row: 1, col: 14 } }]);
    expect(out.result).toBeUndefined();
    const mixed = json((await cli(['eval', '--show-builtin-errors', '[x | x := to_number(["1", "a", "2"][_])]'])).stdout);
    expect(mixed.errors).toHaveLength(1);
    expect(mixed.result[0].expressions[0].value).toEqual([1, 2]);
    const pretty = await cli(['eval', '--show-builtin-errors', '--format', 'pretty', 'to_number("a")']);
    expect(pretty.code).toBe(0);
    expect(pretty.stderr).toMatch(/^1 error occurred: .*eval_builtin_error: to_number: /);
    expect(pretty.stdout).toBe('');
    const both = await cli(['eval', '--show-builtin-errors', '--strict-builtin-errors', 'true']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('cannot use --show-builtin-errors with --strict-builtin-errors');
  });

  it('--format discard: the JSON document with "discarded" in place of the results', async () => {
    const r = await cli(['eval', '--format', 'discard', '--metrics', '[1, 2]']);
    const out = json(r.stdout);
    expect(out.result).toBe('discarded');
    expect(out.metrics).toBeDefined();
    expect(json((await cli(['eval', '--format', 'discard', 'input.missing'])).stdout)).toEqual({});
  });

  it('accepts OPA\'s optimization switches that do not change results', async () => {
    for (const flag of ['--disable-indexing', '--disable-early-exit', '--read-ast-values-from-store']) {
      expect((await cli(['eval', flag, '--format', 'raw', '1 + 1'])).stdout).toBe('2\n');
    }
    expect((await cli(['eval', '-t', 'rego', '-O', '0', '--format', 'raw', '1 + 1'])).stdout).toBe('2\n');
  });

  it('--var-values adds the variables column to the pretty trace; --optimize-store-for-read-speed is accepted', async () => {
    const r = await cli(['eval', '--explain', 'full', '--var-values', '-f', 'pretty', 'x := 1; y := x + 1; y > 5']);
    expect(r.stdout).toMatch(/\| Eval y := x \+ 1 +\{x: 1\}\n/);
    expect(r.stdout).toMatch(/\| Fail y > 5 +\{y: 2\}\n/);
    const plain = await cli(['eval', '--explain', 'full', '-f', 'pretty', 'x := 1; y := x + 1; y > 5']);
    expect(plain.stdout).not.toContain('{x: 1}');
    expect((await cli(['eval', '--optimize-store-for-read-speed', '--format', 'raw', '1 + 1'])).stdout).toBe('2\n');
  });

  it('refuses what it cannot do with one clear error naming the alternative, never "unknown option"', async () => {
    const cases: [string[], string][] = [
      [['-t', 'wasm'], 'use -t rego'],
      [['--target', 'plan'], 'use -t rego'],
      [['-O', '2'], 'drop -O'],
      [['-e', 'authz/allow'], 'drop it'],
      [['--shallow-inlining'], '--disable-inlining'],
      [['--capabilities', 'v1.0.0'], 'regolith capabilities --current'],
    ];
    for (const [flags, alternative] of cases) {
      const r = await cli(['eval', ...flags, 'true']);
      expect(r.code, flags.join(' ')).toBe(1);
      expect(r.stderr).not.toContain('unknown option');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(alternative);
    }
  });

  it('-t with a target OPA does not have either: OPA\'s flag error, for eval, test and bench', async () => {
    for (const cmd of [['eval', '-t', 'js', 'true'], ['test', '-t', 'js', '.'], ['bench', '-t', 'js', 'true']]) {
      const r = await cli(cmd);
      expect(r.code, cmd[0]).toBe(1);
      expect(r.stderr, cmd[0]).toContain('invalid argument "js" for "-t, --target" flag: must be one of {rego,wasm}');
    }
  });
});
