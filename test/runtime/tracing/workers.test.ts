// `regolith run --server --workers 2` with distributed_tracing (run from the sources through
// tsx): spans still buffered when the server is told to stop reach the receiver, those of the
// workers (the REST decisions) and those of the primary (the Envoy plugin's Checks). The
// batch delay is a minute, so only the shutdown's flush can send them.

// The server runs as `node --import tsx`, not through tsx's CLI: that CLI is a second process
// that passes SIGTERM on and SIGKILLs the server (exit 143) unless the server acknowledges it
// within 30 ms, which a loaded machine misses.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../../loopback.js';
import { httpReceiver, type Receiver } from './receivers.js';
import { root } from '../../integrations/envoy/helpers.js';

const ROOT = join(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'regolith-tracing-workers-'));
let child: ChildProcess | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A GET on a connection of its own (so that either worker may take it), under `traceparent`. */
function get(url: string, traceparent: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close', traceparent } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

const CheckRequest = root.lookupType('envoy.service.auth.v3.CheckRequest');

function envoyCheck(port: number, traceparent: string): Promise<grpc.ServiceError | null> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('traceparent', traceparent);
  const bytes = Buffer.from(CheckRequest.encode(CheckRequest.fromObject({ attributes: { request: { http: { method: 'GET', path: '/' } } } })).finish());
  return new Promise((resolve) =>
    client.makeUnaryRequest('/envoy.service.auth.v3.Authorization/Check', (b: Buffer) => b, (b: Buffer) => b, bytes, md, (err) => {
      client.close();
      resolve(err);
    }),
  );
}

describe('regolith run --workers with distributed_tracing', () => {
  it('flushes the spans the workers and the primary buffer when stopped right after the requests', async () => {
    receiver = await httpReceiver();
    const [port, grpcPort] = [await freePort(), await freePort()];
    writeFileSync(join(dir, 'p.rego'), 'package x\n\nallow := true\n');
    writeFileSync(join(dir, 'envoy.rego'), 'package envoy.authz\n\nallow := true\n');
    writeFileSync(
      join(dir, 'config.yaml'),
      [
        'distributed_tracing:',
        '  type: http',
        `  address: ${receiver.address}`,
        '  batch_span_processor_options:',
        '    batch_timeout_ms: 60000',
        'plugins:',
        '  envoy_ext_authz_grpc:',
        `    addr: 127.0.0.1:${grpcPort}`,
        '',
      ].join('\n'),
    );
    child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'run', '--server', '--workers', '2', '--addr', `127.0.0.1:${port}`, '-c', join(dir, 'config.yaml'), join(dir, 'p.rego'), join(dir, 'envoy.rego')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((ok) => child!.once('exit', (code) => ok(code)));
    const url = `http://127.0.0.1:${port}/v1/data/x/allow`;
    await waitFor(
      'the workers',
      async () => {
        try {
          return (await get(url, '00-00000000000000000000000000000001-0000000000000001-00')) === 200;
        } catch {
          return false;
        }
      },
      90_000,
    );

    const traces = ['a1', 'a2', 'a3', 'a4'].map((t) => t.padEnd(32, '0'));
    for (const t of traces) expect(await get(url, `00-${t}-b7ad6b7169203331-01`)).toBe(200);
    const checkTrace = 'c1'.padEnd(32, '0');
    expect(await envoyCheck(grpcPort, `00-${checkTrace}-b7ad6b7169203331-01`)).toBeNull();
    expect(receiver.spans).toEqual([]); // all still buffered
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(0);

    for (const t of traces) {
      const names = receiver.spans.filter((s) => s.traceId === t).map((s) => s.name);
      expect(names.sort(), `trace ${t}`).toEqual(['GET v1/data', 'evaluation']);
    }
    const check = receiver.spans.filter((s) => s.traceId === checkTrace).map((s) => s.name);
    expect(check.sort()).toEqual(['envoy.service.auth.v3.Authorization/Check', 'evaluation']);
  }, 150_000);
});
