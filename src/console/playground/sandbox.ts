// The playground's evaluations run in a child process of their own (`regolith
// __playground-sandbox`, with a heap limit), one at a time: a policy that exhausts memory or
// trips a fatal V8 error kills the child, not the server, and one that runs past the time
// limit is killed with it. Either way the request gets an error in OPA's shape and the next
// one a fresh child.

import { fork, type ChildProcess } from 'node:child_process';

export interface SandboxOptions {
  /** The CLI entry to run the child from (dist/cli/main.js). */
  entry: string;
  /** Heap limit of the child (MiB). */
  heapMb?: number;
  /** Kill the child when an evaluation has not answered within this (the evaluator's own limit plus a margin). */
  killAfterMs?: number;
  /** Requests waiting at most; more are refused (503). */
  maxQueue?: number;
}

interface Job {
  body: string;
  resolve: (r: { status: number; body: string }) => void;
}

const error = (status: number, code: string, message: string) => ({ status, body: JSON.stringify({ code, message }) + '\n' });

export class PlaygroundSandbox {
  private child?: ChildProcess;
  private queue: Job[] = [];
  private busy = false;
  private closed = false;

  constructor(private readonly o: SandboxOptions) {}

  evaluate = (body: string): Promise<{ status: number; body: string }> => {
    if (this.closed) return Promise.resolve(error(503, 'unavailable', 'the server is shutting down'));
    if (this.queue.length >= (this.o.maxQueue ?? 16)) return Promise.resolve(error(503, 'unavailable', 'the playground is busy: try again in a moment'));
    return new Promise((resolve) => {
      this.queue.push({ body, resolve });
      this.next();
    });
  };

  close(): void {
    this.closed = true;
    this.child?.kill('SIGKILL');
    for (const j of this.queue.splice(0)) j.resolve(error(503, 'unavailable', 'the server is shutting down'));
  }

  private spawn(): ChildProcess {
    const child = fork(this.o.entry, ['__playground-sandbox'], {
      execArgv: [`--max-old-space-size=${this.o.heapMb ?? 256}`],
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
    });
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    return child;
  }

  private next(): void {
    if (this.busy || !this.queue.length) return;
    const job = this.queue.shift()!;
    this.busy = true;
    const child = (this.child ??= this.spawn());
    let settled = false;
    const finish = (r: { status: number; body: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      job.resolve(r);
      this.busy = false;
      this.next();
    };
    const onMessage = (m: { status: number; body: string }): void => finish(m);
    const onExit = (code: number | null, signal: string | null): void =>
      finish(error(400, 'evaluation_error', `the playground evaluation ran out of memory or crashed (${signal ?? `exit ${code}`}); the server is unaffected`));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(error(400, 'evaluation_error', `evaluation exceeded the playground's time limit (${Math.round((this.o.killAfterMs ?? 7000) / 1000)} s)`));
    }, this.o.killAfterMs ?? 7000);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ body: job.body });
  }
}
