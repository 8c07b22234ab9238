import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const SAMPLE = join(ROOT, 'examples/sample');
const BOB_READS_ALICE = '{"method": "GET", "path": ["finance", "salary", "alice"], "user": "bob"}';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-eval-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('regolith eval', () => {
  it('prints OPA\'s JSON result document for a query over -d files and -i input', () => {
    const dir = tree({ 'input.json': BOB_READS_ALICE });
    const r = regolith(['eval', '-d', SAMPLE, '-i', join(dir, 'input.json'), 'data.httpapi.authz.allow']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      result: [{ expressions: [{ value: true, text: 'data.httpapi.authz.allow', location: { row: 1, col: 1 } }] }],
    });
  });

  it('reads the input from stdin with -I and the query from stdin with --stdin', () => {
    const r = regolith(['eval', '-I', '-d', SAMPLE, '--format', 'raw', 'data.httpapi.authz.user_roles'], { input: BOB_READS_ALICE });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('["employee","manager"]\n');
    const q = regolith(['eval', '--stdin', '--format', 'raw'], { input: 'concat("-", ["a", "b"])' });
    expect(q.stdout).toBe('a-b\n');
  });

  it('includes bindings in json, and prints values / bindings / raw formats', () => {
    const json = JSON.parse(regolith(['eval', 'x := [1, 2][_]']).stdout);
    expect(json.result.map((r: { bindings: unknown }) => r.bindings)).toEqual([{ x: 1 }, { x: 2 }]);
    expect(regolith(['eval', '--format', 'values', '1 + 1; "a"']).stdout.replace(/\s/g, '')).toBe('[2,"a"]');
    expect(regolith(['eval', '--format', 'bindings', 'x := 3']).stdout.replace(/\s/g, '')).toBe('{"x":3}');
    expect(regolith(['eval', '--format', 'raw', '"text"; {"a": 1}']).stdout).toBe('text {"a":1}\n');
  });

  it('pretty prints a single value, a table for bindings, and "undefined"', () => {
    expect(regolith(['eval', '--format', 'pretty', '{"b": [1, 2]}']).stdout).toBe('{\n  "b": [\n    1,\n    2\n  ]\n}\n');
    const table = regolith(['eval', '--format', 'pretty', 'x := [1, 2][_]; y := x * 10']).stdout;
    expect(table).toBe('+---+----+\n| x | y  |\n+---+----+\n| 1 | 10 |\n| 2 | 20 |\n+---+----+\n');
    const undef = regolith(['eval', '--format', 'pretty', 'data.nothing.here']);
    expect(undef.stdout).toBe('undefined\n');
    expect(undef.code).toBe(0);
  });

  it('prints an empty document for an undefined result in json', () => {
    const r = regolith(['eval', 'data.nothing.here']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
  });

  it('--fail exits 1 on undefined, --fail-defined exits 1 on a defined result', () => {
    expect(regolith(['eval', '--fail', 'data.nothing']).code).toBe(1);
    expect(regolith(['eval', '--fail', 'true']).code).toBe(0);
    expect(regolith(['eval', '--fail-defined', 'true']).code).toBe(1);
    expect(regolith(['eval', '--fail-defined', 'data.nothing']).code).toBe(0);
  });

  it('mounts data files at the root, under sub-directories, and under a prefix: path', () => {
    const dir = tree({
      'root.json': '{"top": 1}',
      'nested/deeper/data.yaml': 'answer: 42\n',
      'extra.json': '{"v": true}',
    });
    const r = regolith(['eval', '-d', join(dir, 'root.json'), '-d', join(dir, 'nested'), '-d', `pre.fix:${join(dir, 'extra.json')}`, '--format', 'raw', '[data.top, data.deeper.answer, data.pre.fix.v]']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('[1,42,true]\n');
  });

  it('loads bundles with -b (manifest rego_version honoured)', () => {
    const dir = tree({
      '.manifest': '{"roots": ["legacy"], "rego_version": 0}',
      'legacy/p.rego': 'package legacy\nallow { input.x == 1 }\n',
      'legacy/data.json': '{"limit": 3}',
    });
    const r = regolith(['eval', '-b', dir, '-I', '--format', 'raw', '[data.legacy.allow, data.legacy.limit]'], { input: '{"x": 1}' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('[true,3]\n');
  });

  it('--v0-compatible parses v0 policies given with -d', () => {
    const dir = tree({ 'p.rego': 'package p\nq[x] { x := [1, 2][_] }\n' });
    expect(regolith(['eval', '-d', dir, 'data.p.q']).code).toBe(2);
    const r = regolith(['eval', '--v0-compatible', '-d', dir, '--format', 'raw', 'data.p.q']);
    expect(r.stdout).toBe('[1,2]\n');
  });

  it('reports parse errors in OPA\'s JSON shape (stdout) and pretty form (stderr) with exit 2, as opa eval', () => {
    const dir = tree({ 'bad.rego': 'package bad\nallow if {\n' });
    const json = regolith(['eval', '-d', join(dir, 'bad.rego'), 'data.bad.allow']);
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout);
    expect(doc.errors[0].code).toBe('rego_parse_error');
    expect(doc.errors[0].location.file).toBe(join(dir, 'bad.rego'));
    const pretty = regolith(['eval', '-f', 'pretty', '-d', join(dir, 'bad.rego'), 'data.bad.allow']);
    expect(pretty.code).toBe(2);
    expect(pretty.stderr).toMatch(/^1 error occurred: .*bad\.rego:\d+: rego_parse_error: /);
  });

  it('reports compile errors and evaluation errors', () => {
    const dir = tree({ 'p.rego': 'package p\nx := y\n', 'q.rego': 'package q\nf := 1\nf := 2\n' });
    const unsafe = JSON.parse(regolith(['eval', '-d', join(dir, 'p.rego'), 'data.p.x']).stdout);
    expect(unsafe.errors[0].code).toMatch(/rego_(unsafe_var|compile)_error/);
    const conflict = regolith(['eval', '-d', join(dir, 'q.rego'), 'data.q.f']);
    expect(conflict.code).toBe(2);
    expect(JSON.parse(conflict.stdout).errors[0].code).toMatch(/rego_(compile|type)_error|eval_conflict_error/);
  });

  it('--strict-builtin-errors turns a built-in error into an eval_builtin_error', () => {
    expect(JSON.parse(regolith(['eval', 'x := to_number("nope")']).stdout)).toEqual({});
    const r = regolith(['eval', '--strict-builtin-errors', 'x := to_number("nope")']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).errors[0].code).toBe('eval_builtin_error');
  });

  it('--metrics adds timers, --explain notes shows trace() notes', () => {
    const m = JSON.parse(regolith(['eval', '--metrics', 'true']).stdout);
    expect(m.metrics.timer_rego_query_eval_ns).toBeGreaterThan(0);
    expect(m.metrics.timer_rego_query_parse_ns).toBeGreaterThan(0);
    const e = regolith(['eval', '--explain', 'notes', '-f', 'pretty', 'trace("hello note")']);
    expect(e.stdout).toContain('Note "hello note"');
  });

  it('--timeout ends a long evaluation with an error', () => {
    const dir = tree({ 'slow.rego': 'package slow\nxs := numbers.range(1, 300)\nn := count([x | x := xs[_] + xs[_] + xs[_]])\n' });
    const r = regolith(['eval', '--timeout', '100ms', '-d', dir, 'data.slow.n']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).errors[0].code).toBe('eval_cancel_error');
  }, 60_000);

  it('rejects wrong usage with a clear message and exit code 1 (a file that cannot be loaded: 2)', () => {
    const fmt = regolith(['eval', '--format', 'xml', 'true']);
    expect(fmt.code).toBe(1);
    expect(fmt.stderr).toContain('invalid argument "xml" for "-f, --format" flag');
    const flag = regolith(['eval', '--nope', 'true']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain("unknown option '--nope'");
    const missing = regolith(['eval', '-d', '/no/such/file.rego', 'true']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).errors[0].message).toContain('/no/such/file.rego: no such file or directory');
    // An input file it cannot read or parse stops eval before any policy is loaded, as OPA's
    // setupEval: the message on stderr, nothing on stdout, exit 2 (even with a bad -d beside it).
    const noInput = regolith(['eval', '-d', '/no/such/file.rego', '-i', '/no/such/input.json', 'true']);
    expect(noInput).toMatchObject({ code: 2, stdout: '', stderr: 'error: open /no/such/input.json: no such file or directory\n' });
    const broken = regolith(['eval', '-i', join(tree({ 'broken.json': '{"user": ' }), 'broken.json'), 'true']);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(/^error: unable to parse input from .*broken\.json: /);
    const noQuery = regolith(['eval']);
    expect(noQuery.code).toBe(1);
    expect(noQuery.stderr).toContain('specify query argument or --stdin');
    const source = regolith(['eval', '-f', 'source', 'data.x']);
    expect(source.code).toBe(1);
    expect(source.stderr).toContain('source is only for --partial');
    const timeout = regolith(['eval', '--timeout', 'soon', 'true']);
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toContain('invalid duration');
  });
});
