// replay --fail-on-change: the kinds' spellings without `>` (an unquoted `allow->deny` makes
// the shell write a file named `deny`), and the help that shows one that is safe to paste.
import { describe, expect, it, vi } from 'vitest';
import { failKinds } from '../../../src/cli/commands/replay.js';
import { run } from '../../../src/cli/program.js';

describe('replay --fail-on-change kinds', () => {
  it('allow-to-deny and deny-to-allow name the same kinds as allow->deny and deny->allow', () => {
    expect([...failKinds('allow-to-deny').kinds]).toEqual(['allow->deny']);
    expect([...failKinds('deny-to-allow, value').kinds]).toEqual(['deny->allow', 'value']);
    expect(failKinds('allow->deny').kinds).toEqual(failKinds('allow-to-deny').kinds);
    expect(failKinds('any')).toEqual({ kinds: new Set(['allow->deny', 'deny->allow', 'value']), errors: true });
  });
  it('an unknown kind is a usage error (exit 2) that lists both spellings', () => {
    expect(() => failKinds('allow-deny')).toThrow(/invalid argument "allow-deny" for "--fail-on-change" flag: .*allow-to-deny \(or 'allow->deny'\)/);
  });
  it('--help shows no unquoted ->', async () => {
    let out = '';
    const w = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
    try {
      await run(['node', 'regolith', 'replay', '--help']);
    } finally {
      w.mockRestore();
      process.exitCode = undefined;
    }
    expect(out).toContain('--fail-on-change allow-to-deny');
    expect(out.replace(/'[^']*'/g, '')).not.toMatch(/->/);
  });
});
