import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-test-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

// A v0-syntax policy directory as `opa test --v0-compatible` users have them.
const V0 = {
  'authz/authz.rego': `package authz

default allow = false

allow {
  input.user == "admin"
}

allow {
  input.method == "GET"
  input.path = ["public", _]
}

users[name] { name := data.users[_].name }
`,
  'authz/authz_test.rego': `package authz

test_admin_allowed {
  allow with input as {"user": "admin"}
}

test_public_get {
  allow with input as {"method": "GET", "path": ["public", "x"]}
}

test_anon_denied {
  not allow with input as {"user": "bob", "method": "POST"}
}

test_users {
  print("users are", users)
  users == {"alice", "bob"}
}

test_wrong_expectation {
  allow with input as {"user": "bob"}
}

todo_test_later {
  false
}
`,
  'data.json': '{"users": [{"name": "alice"}, {"name": "bob"}]}',
};

const PASSING = {
  'p.rego': 'package p\n\nallow if input.x > 1\n',
  'p_test.rego': 'package p_test\n\nimport data.p\n\ntest_big if p.allow with input as {"x": 2}\n\ntest_small if not p.allow with input as {"x": 0}\n',
};

describe('regolith test', () => {
  it('runs v0 tests with --v0-compatible and reports counts as opa test does (exit 2 on failure)', () => {
    const dir = tree(V0);
    const r = regolith(['test', '--v0-compatible', dir]);
    expect(r.code).toBe(2);
    const file = join(dir, 'authz/authz_test.rego');
    expect(r.stdout).toBe(
      `${file}:\ndata.authz.test_wrong_expectation: FAIL (${r.stdout.match(/FAIL \(([^)]+)\)/)![1]})\ndata.authz.todo_test_later: SKIPPED\n` +
        `${'-'.repeat(80)}\nPASS: 4/6\nFAIL: 1/6\nSKIPPED: 1/6\n`,
    );
  });

  it('without --v0-compatible, v0 policies are parse errors (exit 1)', () => {
    const r = regolith(['test', tree(V0)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rego_parse_error: `if` keyword is required before rule body');
    expect(r.stdout).toBe('');
  });

  it('prints only the summary when everything passes, and exits 0', () => {
    const r = regolith(['test', tree(PASSING)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('PASS: 2/2\n');
  });

  it('-v lists every test with its duration, print output, and a FAILURES section', () => {
    const r = regolith(['test', '-v', '--v0-compatible', tree(V0)]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^data\.authz\.test_admin_allowed: PASS \(\d+(\.\d+)?(ns|µs|ms|s)\)$/m);
    expect(r.stdout).toContain('\n  users are {"alice", "bob"}\n');
    expect(r.stdout).toMatch(/FAILURES\n-{80}\ndata\.authz\.test_wrong_expectation: FAIL/);
    expect(r.stdout).toMatch(/PASS: 4\/6\nFAIL: 1\/6\nSKIPPED: 1\/6\n$/);
  });

  it('--run selects tests by regular expression on the full name', () => {
    const r = regolith(['test', '--v0-compatible', '--run', 'authz.test_(admin|public)', tree(V0)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('PASS: 2/2\n');
  });

  it('-z lets skipped tests exit 0', () => {
    const r = regolith(['test', '--v0-compatible', '-z', '--run', 'admin|todo', tree(V0)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('SKIPPED: 1/2');
  });

  it('--format json prints OPA\'s result array (durations in ns, print output in base64)', () => {
    const dir = tree(V0);
    const r = regolith(['test', '--v0-compatible', '--format', 'json', dir]);
    expect(r.code).toBe(2);
    const rs = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rs.map((x) => x.name)).toEqual(['test_admin_allowed', 'test_public_get', 'test_anon_denied', 'test_users', 'test_wrong_expectation', 'todo_test_later']);
    const users = rs.find((x) => x.name === 'test_users')!;
    expect(users.package).toBe('data.authz');
    expect(users.location).toEqual({ file: join(dir, 'authz/authz_test.rego'), row: 15, col: 1 });
    expect(Buffer.from(users.output as string, 'base64').toString()).toBe('users are {"alice", "bob"}\n');
    expect(typeof users.duration).toBe('number');
    expect(rs.find((x) => x.name === 'test_wrong_expectation')!.fail).toBe(true);
    expect(rs.find((x) => x.name === 'todo_test_later')!.skip).toBe(true);
  });

  it('reports evaluation errors as ERROR with the message', () => {
    const dir = tree({ 'e_test.rego': 'package e\n\ntest_conflict if {\n  f == 1\n}\n\nf := x if { some x in [1, 2] }\n' });
    const r = regolith(['test', dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/data\.e\.test_conflict: ERROR \(/);
    expect(r.stdout).toContain('eval_conflict_error');
    expect(r.stdout).toContain('ERROR: 1/1');
  });

  it('--bench prints a Go benchmark line per passing test', () => {
    const r = regolith(['test', '--bench', tree(PASSING)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^data\.p_test\.test_big\t\s*\d+\t\s*\d+(\.\d+)? ns\/op\t\s*\d+ B\/op\t\s*\d+ allocs\/op$/m);
  }, 60_000);

  it('rejects wrong usage with a clear message', () => {
    const none = regolith(['test']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("missing required argument 'path'");
    const fmt = regolith(['test', '--format', 'xml', '.']);
    expect(fmt.code).toBe(1);
    expect(fmt.stderr).toContain('invalid argument "xml" for "-f, --format" flag');
    const missing = regolith(['test', '/no/such/dir']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('stat /no/such/dir: no such file or directory');
    const cov = regolith(['test', '--coverage', '--bench', tree(PASSING)]);
    expect(cov.code).toBe(1);
    expect(cov.stderr).toContain('coverage reporting is not supported when benchmarking tests');
    const thr = regolith(['test', '--threshold', '120', '.']);
    expect(thr.code).toBe(1);
    expect(thr.stderr).toContain('Code coverage threshold must be between 0 and 100');
  });
});
