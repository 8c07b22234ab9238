// End to end: the @styra/opa TypeScript SDK, unchanged, as a real client of the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { OPAClient } from '@styra/opa';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';

let s: RunningServer;
let opa: OPAClient;

beforeAll(async () => {
  const engine = new RegolithEngine();
  s = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false });
  const put = (id: string, raw: string) => fetch(`${s.url}/v1/policies/${id}`, { method: 'PUT', body: raw });
  await put('authz.rego', 'package authz\n\nallow if input.user == "admin"\n\nlevel := 1 if input.a\nlevel := 2 if input.b\n');
  await put('main.rego', 'package system\n\nmain := {"greeting": sprintf("hello %s", [input.name])}\n');
  opa = new OPAClient(s.url);
});
afterAll(() => s.close());

describe('@styra/opa SDK against the server', () => {
  it('evaluate with input', async () => {
    expect(await opa.evaluate('authz/allow', { user: 'admin' })).toBe(true);
    expect(await opa.evaluate('authz/allow', { user: 'eve' })).toBeUndefined();
  });
  it('evaluateDefault uses POST /', async () => {
    expect(await opa.evaluateDefault({ name: 'sdk' })).toEqual({ greeting: 'hello sdk' });
  });
  it('evaluateBatch with mixed successes and errors', async () => {
    const res = await opa.evaluateBatch('authz/level', { one: { a: true }, two: { b: true }, boom: { a: true, b: true } });
    expect(res['one']).toBe(1);
    expect(res['two']).toBe(2);
    expect(res['boom']).toMatchObject({ httpStatusCode: '500', code: 'internal_error' });
  });
  it('errors surface as rejections', async () => {
    await expect(opa.evaluate('authz/level', { a: true, b: true })).rejects.toBeTruthy();
  });
});
