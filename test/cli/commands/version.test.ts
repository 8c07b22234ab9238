// `regolith version`: opa version's -c/--check is refused with one clear message (regolith
// contacts no release server), never "unknown option"; the plain command prints OPA's fields.

import { describe, expect, it } from 'vitest';
import { cli } from '../run-in-process.js';

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
});
