// `regolith run --server` as a real child process of the built binary: started with a
// config file, its listening URL read from the "Initializing server." log line, stopped
// with SIGTERM or killed with SIGKILL (no chance to clean up, as in a crash).

import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, ROOT } from '../cli/helpers.js';

export interface RunProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far (JSON log lines). */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startRun(args: string[], opts: { cwd?: string; timeoutMs?: number; addr?: string } = {}): Promise<RunProcess> {
  const child = spawn(process.execPath, [BIN, 'run', '--server', '--addr', opts.addr ?? '127.0.0.1:0', ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`regolith run did not start listening:\n${out}`)), opts.timeoutMs ?? 60_000);
    const onData = (c: Buffer): void => {
      out += c.toString();
      const m = /"?addrs"?[:=]\["(http:\/\/[^"]+)"\]/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`regolith run exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
