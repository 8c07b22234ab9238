// `regolith run --server` with distributed_tracing in its configuration file (run from the
// sources through tsx): requests are traced to the configured OTLP/HTTP receiver, and the
// spans still buffered are flushed when the server stops; a receiver that refuses them makes
// an error in the log, not a failed exit.

// The server runs as `node --import tsx`, not through tsx's CLI: that CLI is a second process
// that passes SIGTERM on and SIGKILLs the server (exit 143) unless the server acknowledges it
// within 30 ms, which a loaded machine misses.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../../loopback.js';

const ROOT = join(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'regolith-tracing-'));
const spans: { traceId: string; parentSpanId?: string; name: string }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: typeof spans }[] }[] };
    for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('regolith run with distributed_tracing', () => {
  it('traces requests to the configured receiver and flushes at shutdown', async () => {
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const port = await freePort();
    writeFileSync(join(dir, 'p.rego'), 'package x\n\nallow := true\n');
    // a long batch delay: only the shutdown's flush sends the spans
    writeFileSync(
      join(dir, 'config.yaml'),
      `distributed_tracing:\n  type: http\n  address: 127.0.0.1:${(receiver.address() as AddressInfo).port}\n  batch_span_processor_options:\n    batch_timeout_ms: 60000\n`,
    );
    child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'run', '--server', '--addr', `127.0.0.1:${port}`, '-c', join(dir, 'config.yaml'), join(dir, 'p.rego')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((ok) => child!.once('exit', (code) => ok(code)));
    const trace = 'a3ce929d0e0e47364bf92f3577b34da6';
    await waitFor(
      'the server',
      async () => {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/v1/data/x/allow`, { headers: { traceparent: `00-${trace}-b7ad6b7169203331-01` } });
          return r.status === 200;
        } catch {
          return false;
        }
      },
      60_000,
    );
    expect(spans).toEqual([]); // still buffered
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(0);
    const mine = spans.filter((s) => s.traceId.toLowerCase() === trace);
    expect(mine.map((s) => s.name).sort()).toEqual(['GET v1/data', 'evaluation']);
    expect(mine.find((s) => s.name === 'GET v1/data')?.parentSpanId?.toLowerCase()).toBe('b7ad6b7169203331');
  }, 90_000);
});

describe('regolith run with an OTLP receiver that refuses the spans', () => {
  it('logs the failed flush at shutdown and still exits 0', async () => {
    // 400 is not retried: the flush fails at once
    const refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3,"message":"no"}'));
    });
    await new Promise<void>((ok) => refusing.listen(0, '127.0.0.1', ok));
    const port = await freePort();
    writeFileSync(join(dir, 'p2.rego'), 'package y\n\nallow := true\n');
    writeFileSync(
      join(dir, 'refused.yaml'),
      `distributed_tracing:\n  type: http\n  address: 127.0.0.1:${(refusing.address() as AddressInfo).port}\n  batch_span_processor_options:\n    batch_timeout_ms: 60000\n`,
    );
    const run = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'run', '--server', '--addr', `127.0.0.1:${port}`, '-c', join(dir, 'refused.yaml'), join(dir, 'p2.rego')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    run.stdout.on('data', (c: Buffer) => (out += c.toString()));
    run.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((ok) => run.once('exit', (code) => ok(code)));
    try {
      await waitFor('the server', async () => out.includes('Initializing server.'), 60_000);
      const r = await fetch(`http://127.0.0.1:${port}/v1/data/y/allow`);
      expect(await r.json()).toEqual({ result: true });
      run.kill('SIGTERM');
      expect(await exited, out).toBe(0);
      expect(out).toMatch(/"level":"error".*Failed to shutdown OpenTelemetry trace exporter gracefully\./);
    } finally {
      run.kill('SIGKILL');
      refusing.close();
    }
  }, 90_000);
});
