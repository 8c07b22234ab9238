// Behaviour that depends on where output goes: the `regolith test` progress line only on a
// terminal (run under a pseudo-terminal with `script`), a closed pipe ends the command
// quietly, and subcommand flags that share a name with the program's (--version).

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, regolith } from './helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const LIB = join(ROOT, 'test/cli/fixtures/k8s-v0');
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

function sh(command: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', command], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('regolith test progress display', () => {
  it.skipIf(!hasScript)('shows "running i/n" on a terminal and clears it before the report', () => {
    const r = sh(`script -qec "${process.execPath} ${BIN} test --v0-compatible ${LIB}" /dev/null`);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('\r\x1b[2Krunning 1/7: data.kubernetes.admission.test_trusted_image_allowed\r');
    expect(r.stdout).toContain('running 7/7: data.kubernetes.lib.images.test_untrusted_registry\r\x1b[2K');
    expect(r.stdout).toContain('PASS: 5/7');
  });

  it('shows no progress when stderr is a pipe', () => {
    const r = regolith(['test', '--v0-compatible', LIB]);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('running');
  });
});

describe('regolith and closed pipes', () => {
  it('ends quietly when the reader closes the pipe early', () => {
    // The command's stderr comes out as the shell's stdout; head reads 10 bytes and closes.
    const r = sh(`{ "${process.execPath}" "${BIN}" capabilities --current | head -c 10 >/dev/null; } 2>&1`);
    expect(r.stdout).not.toMatch(/EPIPE|Unhandled/);
    expect(r.stdout).toBe('');
  });
});

describe('subcommand flags named like program flags', () => {
  it('capabilities --version is the subcommand\'s flag, not the program version', () => {
    const bad = regolith(['capabilities', '--version', 'v0.0.1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('no capabilities version found v0.0.1');
    const mine = regolith(['capabilities']).stdout.trim();
    const good = regolith(['capabilities', '--version', mine]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toHaveProperty('builtins');
    expect(regolith(['--version']).stdout.trim()).toBe(mine.slice(1));
  });
});
