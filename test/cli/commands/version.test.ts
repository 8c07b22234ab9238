// `regolith version`: opa version's -c/--check is refused with one clear message (regolith
// contacts no release server), never "unknown option"; the plain command prints OPA's fields.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cli } from '../run-in-process.js';
import { ROOT, ensureBuilt, regolith } from '../helpers.js';

describe('regolith version', () => {
  it('prints the version fields', async () => {
    const r = await cli(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Version: \S+\n/);
  });

  for (const flag of ['-c', '--check']) {
    it(`${flag} is refused naming why`, async () => {
      const r = await cli(['version', flag]);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toContain('unknown option');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('does not contact any release server');
    });
  }

  it('the built CLI names the commit, time and host it was built from, as opa version does', () => {
    ensureBuilt();
    const r = regolith(['version']);
    expect(r.code).toBe(0);
    const field = (name: string): string => new RegExp(`^${name}: (.*)$`, 'm').exec(r.stdout)?.[1] ?? '';
    expect(field('Build Timestamp')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(field('Build Hostname')).not.toBe('');
    const commit = field('Build Commit');
    expect(commit).toMatch(/^[0-9a-f]{7,}$/);
    // a commit of this repository (dist/ may be built from an earlier one than HEAD)
    expect(() => execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' })).not.toThrow();
  }, 300_000);
});
