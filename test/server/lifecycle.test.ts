import { describe, expect, it } from 'vitest';
import { start } from './helpers.js';
import { parseAddr } from '../../src/server/index.js';

describe('startServer / close', () => {
  it('finishes requests in flight, then stops accepting connections', async () => {
    const s = await start();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // close only once the request is being answered (a fixed wait missed it under load)
    let entered!: () => void;
    const answering = new Promise<void>((r) => (entered = r));
    s.engine.virtual.set('slow', async () => {
      entered();
      await gate;
      return 'done';
    });
    const inflight = fetch(s.url + '/v1/data/slow').then(async (r) => ({ status: r.status, body: await r.json() }));
    await answering;
    const closed = s.close();
    // new connections are refused while the request in flight is still held
    await expect(fetch(s.url + '/health')).rejects.toThrow();
    release();
    expect(await inflight).toEqual({ status: 200, body: { result: 'done' } });
    await closed;
    await expect(fetch(s.url + '/health')).rejects.toThrow();
  });
  it('parses listen addresses', () => {
    expect(parseAddr(':8181')).toEqual({ host: '0.0.0.0', port: 8181 });
    expect(parseAddr('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseAddr('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(parseAddr('localhost:8181')).toEqual({ host: 'localhost', port: 8181 });
  });
});
