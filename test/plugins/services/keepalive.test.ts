// The service client keeps its connections alive: requests to a service reuse one
// connection instead of a TCP (and TLS) handshake each. A request whose reused connection
// fails before an answer goes again on a new one only when that cannot repeat it (a safe
// method); a POST the server received is never sent twice. close() ends the idle
// connections at once.

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { waitFor } from '../../loopback.js';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

interface Seen {
  method: string;
  body: string;
}

/** A server that counts connections and records every request it read; `handle` may answer or drop. */
async function server(handle: (req: http.IncomingMessage, res: http.ServerResponse, nth: number) => void = (_q, res) => res.end('ok')) {
  const st = { connections: 0, open: new Set<Socket>(), seen: [] as Seen[], url: '' };
  const perSocket = new WeakMap<Socket, number>();
  const srv = http.createServer((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      st.seen.push({ method: req.method!, body: Buffer.concat(parts).toString() });
      handle(req, res, n);
    });
  });
  srv.on('connection', (s: Socket) => {
    st.connections++;
    st.open.add(s);
    s.on('close', () => st.open.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  st.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  );
  return st;
}

function client(url: string): ServiceClient {
  const config = validateConfig({ services: { s: { url } } });
  const c = new ServiceClient(config.services['s']!);
  cleanup.push(() => c.close());
  return c;
}

describe('service client connections', () => {
  it('sends one request after another over one kept-alive connection', async () => {
    const srv = await server();
    const c = client(srv.url);
    for (let i = 0; i < 20; i++) {
      const res = await c.request({ method: 'POST', path: '/logs', body: Buffer.from(`chunk ${i}`) });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('ok');
    }
    expect(srv.seen.map((s) => s.body)).toEqual(Array.from({ length: 20 }, (_, i) => `chunk ${i}`));
    expect(srv.connections).toBe(1);
  });

  it('keeps concurrent requests to a bounded number of connections', async () => {
    const srv = await server((_q, res) => setTimeout(() => res.end('ok'), 20));
    const c = client(srv.url);
    const all = await Promise.all(Array.from({ length: 40 }, () => c.request({ method: 'GET', path: '/x' })));
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(srv.connections).toBeLessThanOrEqual(16);
  });

  it('sends a GET again on a new connection when its reused connection is dropped unanswered', async () => {
    // every second request on a connection is dropped without an answer, as by a server closing an idle connection
    const srv = await server((req, res, nth) => (nth > 1 ? req.socket.destroy() : res.end('ok')));
    const c = client(srv.url);
    for (let i = 0; i < 3; i++) expect((await c.request({ method: 'GET', path: '/bundle' })).status).toBe(200);
    expect(srv.connections).toBe(3);
    // the two dropped ones and their resends on new connections
    expect(srv.seen).toHaveLength(5);
  });

  it('never sends a POST twice: one the server read on a reused connection and dropped unanswered fails', async () => {
    const srv = await server((req, res, nth) => (nth > 1 ? req.socket.destroy() : res.end('ok')));
    const c = client(srv.url);
    expect((await c.request({ method: 'POST', path: '/logs', body: Buffer.from('first') })).status).toBe(200);
    await expect(c.request({ method: 'POST', path: '/logs', body: Buffer.from('second') })).rejects.toThrow(/socket hang up/);
    expect(srv.seen.map((s) => s.body)).toEqual(['first', 'second']);
    // the next one goes on a new connection
    expect((await c.request({ method: 'POST', path: '/logs', body: Buffer.from('third') })).status).toBe(200);
    expect(srv.seen.map((s) => s.body)).toEqual(['first', 'second', 'third']);
    expect(srv.connections).toBe(2);
  });

  it('still fails a request the server drops on a new connection', async () => {
    const srv = await server((req) => req.socket.destroy());
    const c = client(srv.url);
    await expect(c.request({ method: 'GET', path: '/x' })).rejects.toThrow(/socket hang up/);
    expect(srv.seen).toHaveLength(1);
  });

  it('closes its idle connections on close(), and opens a new one if used again', async () => {
    const srv = await server();
    const c = client(srv.url);
    await c.request({ method: 'GET', path: '/x' });
    expect(srv.open.size).toBe(1);
    c.close();
    // the server sees the close when the FIN arrives (a fixed 50 ms was not always enough under load)
    await waitFor('the server to see the connection closed', () => srv.open.size === 0);
    expect((await c.request({ method: 'GET', path: '/x' })).status).toBe(200);
    expect(srv.connections).toBe(2);
  });
});
