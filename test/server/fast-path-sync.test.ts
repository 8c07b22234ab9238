// The decision fast path with the real engine, whose evaluate() answers synchronously when
// no built-in waits on I/O: the reply is written in the tick the body arrived. Successes,
// evaluation errors thrown synchronously (a conflict), decision-log events and a chunked
// body over the size limit must come out exactly as through the Hono route.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as http from 'node:http';
import * as net from 'node:net';
import pino from 'pino';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { req } from './helpers.js';

const POLICY = `package app
allow if input.user == "alice"
conflict := 1 if input.x
conflict := 2 if input.x
`;

let s: RunningServer;
let engine: RegolithEngine;
const events: Record<string, unknown>[] = [];
let nextId = 0;

beforeAll(async () => {
  engine = new RegolithEngine();
  await engine.putPolicy('app.rego', POLICY);
  s = await startServer({
    addr: '127.0.0.1:0',
    engine,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    limits: { maxLength: 1024, gzipMaxLength: 1 << 20, maxDepth: 50 },
    decisionLogger: (e) => void events.push(e as unknown as Record<string, unknown>),
    decisionIdFactory: () => `id-${++nextId}`,
  });
});
afterAll(() => s.close());

/** Sends the body in several chunks without a Content-Length (chunked transfer encoding). */
function chunked(path: string, parts: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request(s.url + path, { method: 'POST' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    r.on('error', reject);
    for (const p of parts) r.write(p);
    r.end();
  });
}

describe('decision fast path, synchronous engine', () => {
  it('answers decisions as the Hono route does, ids and logged events included', async () => {
    for (const body of ['{"input":{"user":"alice"}}', '{"input":{"user":"bob"}}', '{}']) {
      const fast = await req(s, 'POST', '/v1/data/app/allow', body);
      const hono = await req(s, 'POST', '/v1/data/app/allow?', body);
      expect(fast.status).toBe(200);
      expect(fast.text.replace(/id-\d+/, 'ID')).toBe(hono.text.replace(/id-\d+/, 'ID'));
    }
    const alice = await req(s, 'POST', '/v1/data/app/allow', '{"input":{"user":"alice"}}');
    const id = (alice.json as { decision_id: string }).decision_id;
    expect(alice.json).toEqual({ result: true, decision_id: id });
    const ev = events.find((e) => e['decision_id'] === id)!;
    expect(ev).toMatchObject({ path: 'data.app.allow', input: { user: 'alice' }, result: true });
  });

  it('turns an evaluation error thrown synchronously into OPA’s 500 and logs it', async () => {
    const fast = await req(s, 'POST', '/v1/data/app/conflict', '{"input":{"x":true}}');
    const hono = await req(s, 'POST', '/v1/data/app/conflict?', '{"input":{"x":true}}');
    expect(fast.status).toBe(500);
    expect(fast.text).toBe(hono.text);
    expect((fast.json as { code: string }).code).toBe('internal_error');
    expect(JSON.stringify(fast.json)).toContain('eval_conflict_error');
    const logged = events.filter((e) => e['path'] === 'data.app.conflict');
    expect(logged).toHaveLength(2);
    expect(logged[0]!['error']).toEqual(fast.json);
  });

  it('refuses a chunked body that grows past the limit with 400, and keeps serving', async () => {
    const big = await chunked('/v1/data/app/allow', ['{"input":"', 'x'.repeat(600), 'y'.repeat(600), '"}']);
    expect(big.status).toBe(400);
    expect(JSON.parse(big.text)).toEqual({ code: 'invalid_parameter', message: 'request body too large' });
    const ok = await chunked('/v1/data/app/allow', ['{"input":', '{"user":"alice"}', '}']);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toMatchObject({ result: true });
  });

  it('survives clients that vanish halfway through a body', async () => {
    const { port } = new URL(s.url);
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const sock = net.connect(Number(port), '127.0.0.1', () => {
          sock.write('POST /v1/data/app/allow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"input":{"us');
          setTimeout(() => {
            sock.destroy();
            resolve();
          }, 5);
        });
        sock.on('error', () => resolve());
      });
    }
    const ok = await req(s, 'POST', '/v1/data/app/allow', '{"input":{"user":"alice"}}');
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ result: true });
  });
});
