import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLoopbackServers, type LoopbackServers } from './loopback-servers.js';
import { callBuiltinAsync, fakeContext } from './fake-context.js';
import { clearHttpSendCache } from '../../../src/eval/builtins/http/index.js';
import { toJS, type Value } from '../../../src/value/index.js';

let base = '';
let tlsBase = '';
let caPem = '';
const hits = new Map<string, number>();

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const u = new URL(req.url!, 'http://x');
  hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    switch (u.pathname) {
      case '/json':
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-Multi': ['a', 'b'] });
        res.end(JSON.stringify({ hello: 'world', method: req.method, got: body, auth: req.headers.authorization ?? null }));
        return;
      case '/text':
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('{"not": "decoded"}');
        return;
      case '/yaml':
        res.writeHead(200, { 'Content-Type': 'application/yaml' });
        res.end('a: 1\nb: [x, y]\n');
        return;
      case '/missing':
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end('{"error": "nope"}');
        return;
      case '/redirect':
        res.writeHead(302, { Location: '/json' });
        res.end();
        return;
      case '/slow':
        setTimeout(() => {
          res.writeHead(200);
          res.end('late');
        }, 1000);
        return;
      case '/cached':
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=60' });
        res.end(JSON.stringify({ n: hits.get('/cached') }));
        return;
      case '/nostore':
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
        res.end(JSON.stringify({ n: hits.get('/nostore') }));
        return;
      default:
        res.writeHead(500);
        res.end();
    }
  });
}

let servers: LoopbackServers;

beforeAll(async () => {
  servers = await startLoopbackServers(handler);
  ({ base, tlsBase, caPem } = servers);
});

afterAll(() => servers.close());

const send = async (req: Value, ctx = fakeContext('http.send')) => toJS((await callBuiltinAsync('http.send', [req], ctx))!) as Record<string, unknown>;

describe('http.send', () => {
  it('GETs JSON and shapes the response like OPA', async () => {
    const r = await send({ method: 'get', url: base + '/json', headers: { Authorization: 'Bearer t' } });
    expect(r.status).toBe('200 OK');
    expect(r.status_code).toBe(200);
    expect(r.body).toEqual({ hello: 'world', method: 'GET', got: '', auth: 'Bearer t' });
    expect((r.headers as Record<string, unknown>)['x-multi']).toEqual(['a', 'b']);
    expect((r.headers as Record<string, unknown>)['content-type']).toEqual(['application/json']);
    expect(typeof r.raw_body).toBe('string');
  });
  it('POSTs a JSON body or a raw body', async () => {
    const r = await send({ method: 'POST', url: base + '/json', body: { a: [1, 2] } });
    expect((r.body as Record<string, unknown>).got).toBe('{"a":[1,2]}');
    const r2 = await send({ method: 'PUT', url: base + '/json', raw_body: 'plain' });
    expect((r2.body as Record<string, unknown>).got).toBe('plain');
  });
  it('decodes only JSON/YAML content unless forced', async () => {
    expect((await send({ method: 'GET', url: base + '/text' })).body).toBe(null);
    expect((await send({ method: 'GET', url: base + '/text', force_json_decode: true })).body).toEqual({ not: 'decoded' });
    expect((await send({ method: 'GET', url: base + '/yaml' })).body).toEqual({ a: 1, b: ['x', 'y'] });
  });
  it('returns error statuses as responses', async () => {
    const r = await send({ method: 'GET', url: base + '/missing' });
    expect(r.status_code).toBe(404);
    expect(r.status).toBe('404 Not Found');
    expect(r.body).toEqual({ error: 'nope' });
  });
  it('follows redirects only when enabled', async () => {
    expect((await send({ method: 'GET', url: base + '/redirect' })).status_code).toBe(302);
    const r = await send({ method: 'GET', url: base + '/redirect', enable_redirect: true });
    expect(r.status_code).toBe(200);
    expect((r.body as Record<string, unknown>).hello).toBe('world');
  });
  it('times out', async () => {
    const t0 = Date.now();
    await expect(send({ method: 'GET', url: base + '/slow', timeout: '100ms' })).rejects.toThrow(
      `Get ${base}/slow: request timed out`,
    );
    expect(Date.now() - t0).toBeLessThan(900);
    const r = await send({ method: 'GET', url: base + '/slow', timeout: '100ms', raise_error: false });
    expect(r.status_code).toBe(0);
    expect((r.error as Record<string, unknown>).code).toBe('eval_http_send_network_error');
    expect((r.error as Record<string, unknown>).message).toMatch(/context deadline exceeded/);
  });
  it('reports network errors', async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    dead.close();
    const url = `http://127.0.0.1:${port}/`;
    const r = await send({ method: 'GET', url, raise_error: false });
    expect(r).toEqual({
      status_code: 0,
      error: { code: 'eval_http_send_network_error', message: `Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused` },
    });
    await expect(send({ method: 'GET', url })).rejects.toThrow('connection refused');
  });
  it('validates the request object', async () => {
    await expect(send({ method: 'GET' })).rejects.toThrow('missing required request parameters(s): {"url"}');
    await expect(send({ method: 'GET', url: base, bogus: 1 })).rejects.toThrow('invalid request parameters(s): {"bogus"}');
    const r = await send({ method: 'GET', url: base, bogus: 1, raise_error: false });
    expect((r.error as Record<string, unknown>).code).toBe('eval_http_send_internal_error');
  });
  it('sends one request per query for the same request', async () => {
    const ctx = fakeContext('http.send');
    hits.delete('/text');
    await send({ method: 'GET', url: base + '/text' }, ctx);
    await send({ method: 'GET', url: base + '/text' }, ctx);
    expect(hits.get('/text')).toBe(1);
    await send({ method: 'GET', url: base + '/text' });
    expect(hits.get('/text')).toBe(2);
  });
  it('keeps responses across queries when cache is true and Cache-Control allows', async () => {
    clearHttpSendCache();
    const a = await send({ method: 'GET', url: base + '/cached', cache: true });
    const b = await send({ method: 'GET', url: base + '/cached', cache: true });
    expect(a.body).toEqual(b.body);
    expect(hits.get('/cached')).toBe(1);
    await send({ method: 'GET', url: base + '/nostore', cache: true });
    await send({ method: 'GET', url: base + '/nostore', cache: true });
    expect(hits.get('/nostore')).toBe(2);
    await send({ method: 'GET', url: base + '/text', force_cache: true, force_cache_duration_seconds: 60 });
    const before = hits.get('/text');
    await send({ method: 'GET', url: base + '/text', force_cache: true, force_cache_duration_seconds: 60 });
    expect(hits.get('/text')).toBe(before);
  });
  it('speaks HTTPS with a CA certificate, or rejects an unknown one', async () => {
    const r = await send({ method: 'GET', url: tlsBase + '/json', tls_ca_cert: caPem });
    expect(r.status_code).toBe(200);
    const r2 = await send({ method: 'GET', url: tlsBase + '/json', tls_insecure_skip_verify: true });
    expect(r2.status_code).toBe(200);
    await expect(send({ method: 'GET', url: tlsBase + '/json' })).rejects.toThrow(/certificate/);
  });
});
