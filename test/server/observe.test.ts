// Every response is logged as OPA logs it ("Received request." / "Sent response." at info,
// with req_id, client_addr, req_method, req_path, resp_status, resp_duration), those the
// authorization policy refuses included, with the decision id where there is one.

import { request } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
    done();
  },
});
let server: RunningServer;

function send(method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, method, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const responses = (path: string) => lines.filter((l) => l['msg'] === 'Sent response.' && l['req_path'] === path);

beforeAll(async () => {
  const engine = new RegolithEngine();
  // only POST /v1/data/app/allow is allowed
  await engine.putPolicy('authz.rego', 'package system.authz\n\ndefault allow := false\n\nallow if input.path == ["v1", "data", "app", "allow"]\n');
  await engine.putPolicy('app.rego', 'package app\n\nallow := true\n');
  server = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'debug' }, sink), processMetrics: false, access: { authorization: 'basic' }, decisionLogger: () => {} });
});
afterAll(() => server?.close());

describe('request logging', () => {
  it('logs a request the authorization policy refuses, a refused PUT /v1/policies too', async () => {
    expect(await send('GET', '/v1/data/secret')).toBe(401);
    expect(await send('PUT', '/v1/policies/x', 'package x\n')).toBe(401);
    const get = responses('/v1/data/secret');
    expect(get).toHaveLength(1);
    expect(get[0]).toMatchObject({ level: 30, req_method: 'GET', resp_status: 401 });
    expect(get[0]!['client_addr']).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(typeof get[0]!['resp_duration']).toBe('number');
    const put = responses('/v1/policies/x');
    expect(put).toHaveLength(1);
    expect(put[0]).toMatchObject({ req_method: 'PUT', resp_status: 401 });
    const received = lines.filter((l) => l['msg'] === 'Received request.' && l['req_path'] === '/v1/policies/x');
    expect(received).toHaveLength(1);
    expect(received[0]!['req_id']).toBe(put[0]!['req_id']);
  });

  it('logs an allowed request once, with its decision id', async () => {
    expect(await send('POST', '/v1/data/app/allow', '{}')).toBe(200);
    const sent = responses('/v1/data/app/allow');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ resp_status: 200 });
    expect(sent[0]!['decision_id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.filter((l) => l['msg'] === 'Received request.' && l['req_path'] === '/v1/data/app/allow')).toHaveLength(1);
  });
});
