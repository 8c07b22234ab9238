// `regolith test` over test rules with ref heads, as `opa test` runs them: the test is the
// ref up to the rule name starting with test_ (or todo_test_); a rule with a variable key
// (`test_p[x] if ...`) is a parameterized test whose cases are its keys (sub-results), and
// a case whose body fails after its key is bound fails the test; any other test passes
// only when its value is true.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-ptest-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const dur = '\\(\\d+(\\.\\d+)?(ns|µs|ms|s)\\)';

describe('regolith test: ref-head and parameterized tests', () => {
  it('runs test_p[x] as one test with a sub-result per case', () => {
    const r = regolith(['test', tree({ 'p_test.rego': 'package p\n\ntest_p[x] if {\n  some x in [1, 2, 3]\n}\n' })]);
    expect(r.stdout).toBe('PASS: 3/3\n');
    expect(r.code).toBe(0);
    const v = regolith(['test', '-v', tree({ 'p_test.rego': 'package p\n\ntest_p[x] if {\n  some x in [1, 2, 3]\n}\n' })]);
    expect(v.stdout).toMatch(new RegExp(`^data\\.p\\.test_p: PASS ${dur}\\n  1: PASS\\n  2: PASS\\n  3: PASS\\n`, 'm'));
  });

  it('a case whose body fails after its key is bound fails the test (exit 2)', () => {
    const dir = tree({
      'p_test.rego': 'package p\n\ntest_p[x] if {\n  some x in [1, 2, 3]\n  x != 2\n}\n\ntest_named[tc.note] if {\n  some tc in [{"note": "one", "v": 1}, {"note": "two", "v": 5}]\n  tc.v < 3\n}\n',
    });
    const r = regolith(['test', dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(new RegExp(`data\\.p\\.test_p: FAIL ${dur}\\n  2: FAIL\\n`));
    expect(r.stdout).toMatch(new RegExp(`data\\.p\\.test_named: FAIL ${dur}\\n  two: FAIL\\n`));
    expect(r.stdout).toMatch(/PASS: 3\/5\nFAIL: 2\/5\n$/);
    const j = JSON.parse(regolith(['test', '--format', 'json', dir]).stdout) as { name: string; fail?: boolean; sub_results?: Record<string, { name: string; fail?: boolean }> }[];
    const p = j.find((x) => x.name === 'test_p')!;
    expect(p.fail).toBe(true);
    expect(p.sub_results).toEqual({ '1': { name: '1' }, '2': { name: '2', fail: true }, '3': { name: '3' } });
  });

  it('a test passes only when its value is true; ref heads name the test by the ref up to test_', () => {
    const r = regolith([
      'test',
      '-v',
      tree({ 'p_test.rego': 'package p\n\ntest_one := 1\n\na.test_b if true\n\ntodo_test_later if false\n\ntodo_not_a_test if false\n' }),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(new RegExp(`^data\\.p\\.test_one: FAIL ${dur}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^data\\.p\\.a\\.test_b: PASS ${dur}$`, 'm'));
    expect(r.stdout).toMatch(/^data\.p\.todo_test_later: SKIPPED$/m);
    expect(r.stdout).not.toContain('todo_not_a_test');
    expect(r.stdout).toMatch(/PASS: 1\/3\nFAIL: 1\/3\nSKIPPED: 1\/3\n$/);
  });
});
