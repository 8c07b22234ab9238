// regolith run's address check and its --port answer, through the program itself (no dist/).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/program.js';
import { checkListenAddr } from '../../src/cli/listen-addr.js';

async function regolithRun(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  try {
    const code = await run(['node', 'regolith', 'run', ...args]);
    return { code, stderr };
  } finally {
    err.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('listening addresses', () => {
  it('a port out of range ends run with Go net error text, before anything listens', async () => {
    const r = await regolithRun(['--server', '--addr', 'localhost:99999']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('listen tcp: address 99999: invalid port');
    expect(r.stderr).not.toContain('options.port');
  });
  it('--diagnostic-addr is checked the same way', async () => {
    const r = await regolithRun(['--server', '--diagnostic-addr', ':http-alt']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('listen tcp: address http-alt: invalid port');
  });
  it('accepts what the server accepts: host:port, :port, [v6]:port, a bare port, unix sockets', () => {
    for (const a of ['localhost:8181', ':0', '0.0.0.0:65535', '[::1]:8181', '8181', 'http://localhost:80', 'unix:///tmp/x.sock']) {
      expect(() => checkListenAddr(a), a).not.toThrow();
    }
    expect(() => checkListenAddr('localhost')).toThrow('listen tcp: address localhost: missing port in address');
    expect(() => checkListenAddr('localhost:-1')).toThrow('listen tcp: address -1: invalid port');
  });
});

describe('--port', () => {
  it('is answered with the flag that sets the port', async () => {
    const r = await regolithRun(['--server', '--port', '8000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown flag: --port');
    expect(r.stderr).toContain('--addr localhost:8000');
  });
  it('is not listed by --help', async () => {
    let out = '';
    const w = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
    try {
      await run(['node', 'regolith', 'run', '--help']);
    } finally {
      w.mockRestore();
    }
    expect(out).toContain('--addr');
    expect(out).not.toContain('--port');
  });
});
