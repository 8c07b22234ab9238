// `regolith exec --fail-non-empty` through the command line (opa exec's flag): a decision
// with a non-empty value fails the run with OPA's message; empty sets and undefined
// decisions do not count as failures.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { ensureBuilt, regolith } from '../helpers.js';

// spawned: the error is logged to stderr's file descriptor, which an in-process run cannot capture
beforeAll(() => ensureBuilt(), 300_000);

function fixture(): { bundle: string; files: string } {
  const root = writeTree({
    'bundle/x.rego': 'package authz\n\ndeny contains "no bob" if input.user == "bob"\n',
    'files/a.json': '{"user": "alice"}',
    'files/b.json': '{"user": "bob"}',
  });
  return { bundle: join(root, 'bundle'), files: join(root, 'files') };
}

describe('exec --fail-non-empty', () => {
  it('exits 1 when a decision is non-empty, naming the flag in OPA\'s message', () => {
    const { bundle, files } = fixture();
    const r = regolith(['exec', '--decision', 'authz/deny', '-b', bundle, '--fail-non-empty', files]);
    expect(r.stderr).not.toContain('unknown option');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('exec error: there were 1 failures and 0 errors counted in the results list, and --fail-non-empty is set');
    expect((JSON.parse(r.stdout) as { result: { result: unknown }[] }).result.map((x) => x.result)).toEqual([[], ['no bob']]);
  });

  it('passes when every decision is empty', () => {
    const { bundle, files } = fixture();
    const r = regolith(['exec', '--decision', 'authz/deny', '-b', bundle, '--fail-non-empty', join(files, 'a.json')]);
    expect(r.code).toBe(0);
  });

  it('is exclusive with --fail and --fail-defined, with OPA\'s messages', () => {
    const { bundle, files } = fixture();
    const r = regolith(['exec', '--decision', 'authz/deny', '-b', bundle, '--fail', '--fail-non-empty', files]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('specify --fail-non-empty or --fail but not both');
    expect(regolith(['exec', '-b', bundle, '--fail-defined', '--fail-non-empty', files]).stderr).toContain('specify --fail-non-empty or --fail-defined but not both');
    expect(regolith(['exec', '-b', bundle, '--fail-defined', '--fail', files]).stderr).toContain('specify --fail or --fail-defined but not both');
  });
});
