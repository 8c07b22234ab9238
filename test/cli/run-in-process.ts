// Runs the `regolith` command in this process (src/cli/program.ts), with stdout and stderr
// captured: the flag tests need no built dist/.

import { vi } from 'vitest';
import { run } from '../../src/cli/program.js';

export interface InProcess {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(args: string[], cwd?: string): Promise<InProcess> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  const dir = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    const code = await run(['node', 'regolith', ...args]);
    return { code, stdout, stderr };
  } finally {
    if (cwd) process.chdir(dir);
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}
