// The "done when": `regolith test --v0-compatible` over a Kubernetes-admission-style
// library written in v0 syntax (fixtures/k8s-v0: policies, data.json and _test.rego files
// with passing, one failing and one todo test) reports counts as `opa test` does.

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, regolith } from './helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const LIB = join(ROOT, 'test/cli/fixtures/k8s-v0');

describe('regolith test over a v0 policy library', () => {
  it('reports PASS/FAIL/SKIPPED counts, the failing and skipped tests, and exits 2', () => {
    const r = regolith(['test', '--v0-compatible', LIB]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`${join(LIB, 'lib/admission_test.rego')}:\n`);
    expect(r.stdout).toMatch(/^data\.kubernetes\.admission\.test_missing_owner_denied: FAIL \(\d/m);
    expect(r.stdout).toMatch(/^data\.kubernetes\.admission\.todo_test_host_network_denied: SKIPPED$/m);
    // Passing tests are listed only with -v, as opa test does.
    expect(r.stdout).not.toContain('test_trusted_image_allowed');
    expect(r.stdout).toMatch(/-{80}\nPASS: 5\/7\nFAIL: 1\/7\nSKIPPED: 1\/7\n$/);
  });

  it('-v lists every test and shows the expression that failed', () => {
    const r = regolith(['test', '--v0-compatible', '-v', LIB]);
    expect(r.code).toBe(2);
    for (const t of ['test_trusted_image_allowed', 'test_untrusted_image_denied', 'test_privileged_denied']) {
      expect(r.stdout).toMatch(new RegExp(`^data\\.kubernetes\\.admission\\.${t}: PASS`, 'm'));
    }
    expect(r.stdout).toMatch(/^data\.kubernetes\.lib\.images\.test_untrusted_registry: PASS/m);
    expect(r.stdout).toContain('FAILURES');
    expect(r.stdout).toMatch(/admission_test\.rego:23 .*Fail deny\["pods need an owner label"\] with input as/);
  });

  it('--run narrows the run; only passing tests selected exits 0', () => {
    const r = regolith(['test', '--v0-compatible', '--run', 'lib\\.images', LIB]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('PASS: 2/2\n');
  });

  it('--format json marks the failing test with fail and the todo test with skip', () => {
    const r = regolith(['test', '--v0-compatible', '--format', 'json', LIB]);
    expect(r.code).toBe(2);
    const rows = JSON.parse(r.stdout) as { package: string; name: string; fail?: boolean; skip?: boolean; duration: number }[];
    expect(rows).toHaveLength(7);
    expect(rows.filter((t) => t.fail).map((t) => t.name)).toEqual(['test_missing_owner_denied']);
    expect(rows.filter((t) => t.skip).map((t) => t.name)).toEqual(['todo_test_host_network_denied']);
    expect(rows.every((t) => t.package.startsWith('data.kubernetes.') && t.duration >= 0)).toBe(true);
  });

  it('without --v0-compatible the library is a parse error (exit 1)', () => {
    const r = regolith(['test', LIB]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rego_parse_error: `if` keyword is required before rule body');
  });

  it('check --v0-compatible accepts the library', () => {
    expect(regolith(['check', '--v0-compatible', LIB]).code).toBe(0);
  });
});

// Idioms of real admission libraries that once failed (issue 11): zero-argument helpers
// read by name and called, a comprehension written before its generators, a := whose
// right-hand side reuses the name, unary minus on a reference.
const IDIOMS = join(ROOT, 'test/cli/fixtures/library-idioms-v0');

describe('regolith test over a library using zero-argument helpers and other idioms', () => {
  it('passes every test, as opa test does', () => {
    const r = regolith(['test', '--v0-compatible', '-v', IDIOMS]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^data\.k8srequiredlabels\.test_zero_arity_helpers_read_by_name: PASS/m);
    expect(r.stdout).toMatch(/PASS: 8\/8\n$/);
  });

  it('fmt --v0-v1 -w rewrites it to v1, and the v1 library passes the same tests', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idioms-'));
    try {
      cpSync(IDIOMS, dir, { recursive: true });
      const f = regolith(['fmt', '--v0-v1', '-w', dir]);
      expect(f.stderr).toBe('');
      expect(readFileSync(join(dir, 'policies/required_labels.rego'), 'utf8')).toContain('headroom := -input.parameters.max_replicas');
      const r = regolith(['test', dir]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('PASS: 8/8\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
