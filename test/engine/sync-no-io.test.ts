// The library's synchronous evaluate() cannot wait for I/O: a policy that calls http.send
// or an async custom built-in makes it throw IOPending. It must throw before anything is
// started (no request sent, no implementation called), since no async run takes the I/O
// over; evaluateAsync then does the I/O once.

import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { IOPending, Regolith } from '../../src/index.js';

describe('synchronous evaluate() starts no I/O', () => {
  it('calls no async custom built-in', async () => {
    let calls = 0;
    const r = new Regolith({
      builtins: [
        {
          name: 'custom.lookup',
          args: ['string'],
          result: 'string',
          fn: async ([k]) => {
            calls++;
            return `v-${k as string}`;
          },
        },
      ],
    });
    r.addModule('p.rego', 'package p\n\nv := custom.lookup(input.k)\n');
    const q = r.prepare('data.p.v');
    expect(() => q.evaluate({ input: { k: 'a' } })).toThrow(/custom\.lookup is asynchronous.*evaluateAsync/);
    expect(calls).toBe(0);
    expect((await q.evaluateAsync({ input: { k: 'a' } }))[0]!.expressions[0]!.value).toBe('v-a');
    expect(calls).toBe(1);
  });

  it('does not leave a rejected promise unhandled when a plain function turns out async', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const r = new Regolith({ builtins: [{ name: 'custom.fails', args: ['string'], result: 'string', fn: () => Promise.reject(new Error('down')) }] });
      r.addModule('p.rego', 'package p\n\nv := custom.fails("x")\n');
      expect(() => r.prepare('data.p.v').evaluate()).toThrow(IOPending);
      // two turns of the event loop: an unhandled rejection is reported by then
      await new Promise((ok) => setImmediate(ok));
      await new Promise((ok) => setImmediate(ok));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('sends no http.send request', async () => {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    try {
      const r = new Regolith().addModule('h.rego', `package h\n\nok := http.send({"method": "GET", "url": concat("", ["http://127.0.0.1:${port}/", input.p])}).body.ok\n`);
      const q = r.prepare('data.h.ok');
      expect(() => q.evaluate({ input: { p: 'sync' } })).toThrow(IOPending);
      expect((await q.evaluateAsync({ input: { p: 'async' } }))[0]!.expressions[0]!.value).toBe(true);
      // a request the sync try had started would have been sent before the async one's
      // (http.send writes the request when it is called); the server has seen one request
      expect(paths).toEqual(['/async']);
    } finally {
      server.close();
    }
  });
});
