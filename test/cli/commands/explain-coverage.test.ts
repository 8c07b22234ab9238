// End-to-end: `regolith eval --explain`, `regolith test --coverage/--threshold`, the failed
// expressions of `regolith test -v`, and --timeout on a `some ... in` loop.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-cov-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const POLICY = `package cov

allow if {
	input.user == "alice"
}

allow if {
	input.user == "bob"
	input.admin
}

unused := x if {
	x := 1
}
`;

const TESTS = `package cov

test_alice if {
	allow with input as {"user": "alice"}
}

test_bob if {
	not allow with input as {"user": "bob", "admin": false}
}
`;

const FAILING = `package cov

test_bob_fails if {
	allow with input as {"user": "bob", "admin": false}
}
`;

describe('regolith eval --explain', () => {
  it('full: pretty trace lines with locations and depth', () => {
    const dir = tree({ 'p.rego': POLICY });
    const r = regolith(['eval', '--explain', 'full', '-f', 'pretty', '-d', dir, 'data.cov.allow']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^query:1\s+Enter data\.cov\.allow$/);
    expect(lines).toContainEqual(expect.stringMatching(/p\.rego:3\s+\| Enter data\.cov\.allow$/));
    expect(lines).toContainEqual(expect.stringMatching(/p\.rego:4\s+\| \| Fail input\.user == "alice"$/));
    expect(r.stdout).toMatch(/undefined\n$/);
  });

  it('fails with --format json: OPA trace events under "explanation"', () => {
    const dir = tree({ 'p.rego': POLICY });
    const r = regolith(['eval', '--explain', 'fails', '-d', dir, 'data.cov.allow']);
    const out = JSON.parse(r.stdout) as { explanation: { op: string; type: string; query_id: number; location: { row: number } }[] };
    // both rule bodies fail, then the query itself
    expect(out.explanation.filter((e) => e.op === 'fail').map((e) => e.location.row)).toEqual([4, 8, 1]);
    expect(out.explanation[0]).toMatchObject({ op: 'enter', type: 'body', query_id: 0 });
  });
});

describe('regolith test --coverage', () => {
  it('reports exact covered and not covered rows in OPA JSON shape', () => {
    const dir = tree({ 'p.rego': POLICY, 'p_test.rego': TESTS });
    const r = regolith(['test', '--coverage', dir]);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout);
    const row = (a: number, b = a) => ({ start: { row: a }, end: { row: b } });
    expect(rep.files[join(dir, 'p.rego')]).toEqual({
      covered: [row(3, 4), row(8, 9)],
      not_covered: [row(7), row(12, 13)],
      covered_lines: 4,
      not_covered_lines: 3,
      coverage: 57.15,
    });
    expect(rep.files[join(dir, 'p_test.rego')]).toMatchObject({ covered: [row(3, 4), row(7, 8)], coverage: 100 });
    expect(rep).toMatchObject({ covered_lines: 8, not_covered_lines: 3, coverage: 72.75 });
  });

  it('--threshold above the coverage exits 2 with OPA message', () => {
    const dir = tree({ 'p.rego': POLICY, 'p_test.rego': TESTS });
    const r = regolith(['test', '--coverage', '--threshold', '90', '--format', 'json', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Code coverage threshold not met: got 72.75 instead of 90.00');
    expect(regolith(['test', '--coverage', '--threshold', '50', dir]).code).toBe(0);
  });
});

describe('regolith test -v failures', () => {
  it('shows the failed expressions with their locations', () => {
    const dir = tree({ 'p.rego': POLICY, 'f_test.rego': FAILING });
    const r = regolith(['test', '-v', dir]);
    expect(r.code).toBe(2);
    const failures = r.stdout.slice(r.stdout.indexOf('FAILURES'));
    expect(failures).toMatch(/p\.rego:4\s+\| \| \| Fail input\.user == "alice"/);
    expect(failures).toMatch(/p\.rego:9\s+\| \| \| Fail input\.admin/);
    expect(failures).toMatch(/f_test\.rego:4\s+\| \| Fail allow with input as \{"user": "bob", "admin": false\}/);
  });
});

describe('regolith eval --timeout', () => {
  it('ends a some-in loop promptly with eval_cancel_error', () => {
    const dir = tree({ 'slow.rego': 'package slow\n\np if {\n\tsome x in numbers.range(1, 100000)\n\tsome y in numbers.range(1, 100000)\n\tx + y < 0\n}\n' });
    const t0 = Date.now();
    const r = regolith(['eval', '--timeout', '100ms', '-d', dir, 'data.slow.p']);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).errors[0]).toMatchObject({ code: 'eval_cancel_error', message: 'caller cancelled query execution' });
  }, 60_000);
});
