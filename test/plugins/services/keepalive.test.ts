// The service client keeps its connections alive: requests to a service reuse one
// connection instead of a TCP (and TLS) handshake each; a request that fails because the
// server dropped the idle connection it was sent on goes again on a new one; close() (the
// plugins stopped) ends the idle connections at once.

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

/** A server that counts connections and the requests on each; `handle` may answer or drop. */
async function server(handle: (req: http.IncomingMessage, res: http.ServerResponse, nth: number) => void = (_q, res) => res.end('ok')) {
  const st = { connections: 0, open: new Set<Socket>(), requests: 0, url: '' };
  const perSocket = new WeakMap<Socket, number>();
  const srv = http.createServer((req, res) => {
    st.requests++;
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    req.resume();
    req.on('end', () => handle(req, res, n));
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
    expect(srv.requests).toBe(20);
    expect(srv.connections).toBe(1);
  });

  it('keeps concurrent requests to a bounded number of connections', async () => {
    const srv = await server((_q, res) => setTimeout(() => res.end('ok'), 20));
    const c = client(srv.url);
    const all = await Promise.all(Array.from({ length: 40 }, () => c.request({ method: 'GET', path: '/x' })));
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(srv.connections).toBeLessThanOrEqual(16);
  });

  it('sends a request again on a new connection when the server dropped the reused idle one unanswered', async () => {
    // the second request on any connection is dropped without an answer, as a server closing an idle connection does
    const srv = await server((req, res, nth) => (nth > 1 ? req.socket.destroy() : res.end('ok')));
    const c = client(srv.url);
    for (let i = 0; i < 3; i++) expect((await c.request({ method: 'POST', path: '/logs', body: Buffer.from('x') })).status).toBe(200);
    expect(srv.connections).toBe(3);
  });

  it('still fails a request the server drops on a new connection', async () => {
    const srv = await server((req) => req.socket.destroy());
    const c = client(srv.url);
    await expect(c.request({ method: 'POST', path: '/logs', body: Buffer.from('x') })).rejects.toThrow(/socket hang up/);
    expect(srv.requests).toBe(1);
  });

  it('closes its idle connections on close(), and opens a new one if used again', async () => {
    const srv = await server();
    const c = client(srv.url);
    await c.request({ method: 'GET', path: '/x' });
    expect(srv.open.size).toBe(1);
    c.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(srv.open.size).toBe(0);
    expect((await c.request({ method: 'GET', path: '/x' })).status).toBe(200);
    expect(srv.connections).toBe(2);
  });
});
