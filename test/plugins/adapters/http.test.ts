// The HTTP every adapter shares, against a loopback server: throttling and retries,
// Cache-Control and ETag, size limits, bodies that are not JSON, page tokens.

import { afterEach, describe, expect, it } from 'vitest';
import { AdapterDeferred, AdapterHttp, AdapterHttpError, DEFAULT_RETRY, retryAfterSeconds, retryDelayMs } from '../../../src/plugins/adapters/http.js';
import { adapterHttpFor } from '../../../src/plugins/adapters/index.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { fastTiming, httpServer, type Handler, type TestHTTPServer } from '../../loopback.js';

let server: TestHTTPServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** headerTimeoutSeconds 0: no header deadline (as Go's 0), for the tests that are not about one: scaled to 10 ms a second, any deadline is one a loaded machine can miss. */
async function client(handler: Handler, retry: Partial<typeof DEFAULT_RETRY> = {}, msPerSecond = 10, headerTimeoutSeconds = 0): Promise<AdapterHttp> {
  server = await httpServer(handler);
  const svc = new ServiceClient({ name: 'api', url: server.url, headers: { 'x-extra': 'yes' }, allow_insecure_tls: false, response_header_timeout_seconds: headerTimeoutSeconds, credentials: { bearer: { token: 't0k', scheme: 'Bearer' } } }, msPerSecond);
  return new AdapterHttp(svc, fastTiming(msPerSecond), { ...DEFAULT_RETRY, ...retry });
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('AdapterHttp', () => {
  it('sends JSON with the service headers and credentials, or the token in another header', async () => {
    const http = await client(json(200, { ok: 1 }));
    const r = await http.json({ method: 'POST', path: '/x', query: { a: 'b c', skip: undefined }, body: { q: 1 } });
    expect(r.json).toEqual({ ok: 1 });
    const req = server!.requests[0]!;
    expect(req.url).toBe('/x?a=b%20c');
    expect(req.headers).toMatchObject({ accept: 'application/json', 'content-type': 'application/json', 'x-extra': 'yes', authorization: 'Bearer t0k' });
    expect(JSON.parse(req.body.toString())).toEqual({ q: 1 });
    await http.json({ path: '/y', tokenHeader: 'Ci-Token' });
    expect(server!.requests[1]!.headers['ci-token']).toBe('t0k');
    expect(server!.requests[1]!.headers['authorization']).toBeUndefined();
  });

  it('honours Retry-After on 429 (seconds and HTTP dates) and backs off on 5xx', async () => {
    let n = 0;
    const http = await client((_req, res) => {
      n++;
      if (n === 1) return json(429, { message: 'slow down' }, { 'retry-after': '3' })(_req, res);
      if (n === 2) return json(503, {})(_req, res);
      return json(200, { n })(_req, res);
    });
    const t0 = Date.now();
    expect((await http.json({ path: '/' })).json).toEqual({ n: 3 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(30); // 3 s at 10 ms per second
    expect(http.stats).toMatchObject({ requests: 3, retries: 2, throttled: 1 });
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });

  it('gives up after max_retries with the last error, and never retries a 4xx', async () => {
    const http = await client(json(502, { error: { message: 'bad gateway' } }), { maxRetries: 2 });
    await expect(http.json({ path: '/a' })).rejects.toThrow(/GET http:\/\/127\.0\.0\.1:\d+\/a: server answered 502: bad gateway/);
    expect(server!.requests).toHaveLength(3);
    server!.handler = json(403, { message: 'forbidden' });
    server!.requests.length = 0;
    const e = (await http.json({ path: '/b' }).catch((x: unknown) => x)) as AdapterHttpError;
    expect(e).toBeInstanceOf(AdapterHttpError);
    expect(e.httpCode).toBe(403);
    expect(e.body).toEqual({ message: 'forbidden' });
    expect(server!.requests).toHaveLength(1);
  });

  it('defers a Retry-After longer than it may wait, at once, and sends nothing to that resource until it ends', async () => {
    // twice the adapter's longest wait (60 s): at 61 s the second client's request, 10 ms of a loaded machine later, was
    // within the wait and was sent after it
    const http = await client(json(429, {}, { 'retry-after': '120' }));
    const t0 = Date.now();
    const e = (await http.json({ path: '/r?page=1' }).catch((x: unknown) => x)) as AdapterDeferred;
    expect(e).toBeInstanceOf(AdapterDeferred);
    expect(e.message).toMatch(/throttled \(429\) for 120s \(Retry-After\), longer than the adapter waits \(60s\): read deferred/);
    expect(e.until).toBeGreaterThanOrEqual(t0 + 1200); // 120 s at 10 ms per second
    expect(Date.now(), 'deferred at once, not after waiting the Retry-After out').toBeLessThan(e.until);
    expect(server!.requests).toHaveLength(1);
    // another page of the same resource, through another client of the same service: not sent
    await expect(new AdapterHttp(http.client, fastTiming(10), DEFAULT_RETRY).json({ path: '/r?page=2' })).rejects.toBeInstanceOf(AdapterDeferred);
    expect(server!.requests).toHaveLength(1);
    // another resource is not throttled
    server!.handler = json(200, { ok: 1 });
    expect((await http.json({ path: '/other' })).json).toEqual({ ok: 1 });
    // once the Retry-After has passed, the resource is asked again
    await new Promise((r) => setTimeout(r, e.until - Date.now() + 5));
    expect((await http.json({ path: '/r?page=1' })).json).toEqual({ ok: 1 });
  });

  it('remembers a Retry-After it waits for: a later request to the resource waits it out first', async () => {
    let n = 0;
    const http = await client((req, res) => (++n === 1 ? json(429, {}, { 'retry-after': '20' })(req, res) : json(200, { n })(req, res)), { maxRetries: 0 });
    await expect(http.json({ path: '/r' })).rejects.toThrow(/429/);
    const t0 = Date.now();
    expect((await http.json({ path: '/r' })).json).toEqual({ n: 2 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150); // what is left of 20 s at 10 ms per second
  });

  it('backs off from a second, doubling, with jitter, capped', () => {
    const t = { msPerSecond: 1000, random: () => 0.5 };
    expect([0, 1, 2, 3].map((a) => retryDelayMs(t, a, 60_000))).toEqual([750, 1500, 3000, 6000]);
    expect(retryDelayMs(t, 10, 60_000)).toBe(45_000);
    expect(retryDelayMs({ msPerSecond: 1000, random: () => 0 }, 0, 60_000)).toBe(500);
  });

  it('keeps a response while its max-age lasts, then revalidates with If-None-Match', async () => {
    let body = { v: 1 };
    const http = await client((req, res) => {
      if (req.headers['if-none-match'] === '"e1"') {
        res.writeHead(304, { etag: '"e1"', 'cache-control': 'max-age=1' });
        return void res.end();
      }
      json(200, body, { etag: '"e1"', 'cache-control': 'max-age=1' })(req, res);
    });
    expect((await http.json({ path: '/c' })).json).toEqual({ v: 1 });
    expect((await http.json({ path: '/c' })).json).toEqual({ v: 1 });
    expect(server!.requests).toHaveLength(1); // fresh: not asked again
    await new Promise((r) => setTimeout(r, 25)); // past max-age (1 s = 10 ms here)
    body = { v: 2 }; // the server says 304: the copy is still right
    expect((await http.json({ path: '/c' })).json).toEqual({ v: 1 });
    expect(server!.requests).toHaveLength(2);
    expect(server!.requests[1]!.headers['if-none-match']).toBe('"e1"');
    expect(http.stats).toMatchObject({ cacheHits: 1, notModified: 1 });
  });

  it('does not keep no-store answers nor POST answers', async () => {
    const http = await client(json(200, { x: 1 }, { 'cache-control': 'no-store', etag: '"z"' }));
    await http.json({ path: '/d' });
    await http.json({ path: '/d' });
    await http.json({ method: 'POST', path: '/d', body: {} });
    expect(server!.requests).toHaveLength(3);
    expect(server!.requests.every((r) => r.headers['if-none-match'] === undefined)).toBe(true);
  });

  it('refuses a body over max_response_bytes without retrying', async () => {
    const http = await client(json(200, { big: 'x'.repeat(5000) }), { maxResponseBytes: 1000 });
    await expect(http.json({ path: '/' })).rejects.toThrow(/larger than 1000 bytes/);
    expect(server!.requests).toHaveLength(1);
  });

  it('turns a 2xx body that is not JSON (EDN, HTML, truncated) into an error naming it', async () => {
    const http = await client((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/edn' });
      res.end('{:a 1}');
    });
    await expect(http.json({ path: '/' })).rejects.toThrow(/an EDN body \(application\/edn\), not JSON/);
    server!.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    };
    await expect(http.json({ path: '/' })).rejects.toThrow(/a body that is not JSON \(text\/html: /);
    expect(server!.requests).toHaveLength(2);
  });

  it('retries a timeout and a refused connection, and stops when told to', async () => {
    let n = 0;
    const http = await client((req, res) => {
      if (n++ === 0) return; // hangs: the header timeout (10 s = 100 ms here) fires
      json(200, { n })(req, res);
    }, {}, 10, 10);
    expect((await http.json({ path: '/' })).json).toEqual({ n: 2 });
    const url = server!.url;
    await server!.close();
    server = undefined;
    const abort = new AbortController();
    const dead = new AdapterHttp(new ServiceClient({ name: 'gone', url, headers: {}, allow_insecure_tls: false, response_header_timeout_seconds: 1, credentials: {} }, 10), fastTiming(10), { ...DEFAULT_RETRY, maxRetries: 2 }, abort.signal);
    await expect(dead.json({ path: '/' })).rejects.toThrow(/connection refused/);
    expect(dead.stats.retries).toBe(2);
    abort.abort();
    await expect(dead.json({ path: '/' })).rejects.toThrow(/canceled/);
  });

  it('follows page tokens to the end, and stops a server that loops', async () => {
    const http = await client(json(200, {}));
    const pages: Record<string, { items: number[]; next?: string }> = { '': { items: [1, 2], next: 'a' }, a: { items: [3], next: 'b' }, b: { items: [4] } };
    expect(await http.pages(async (t) => pages[t ?? '']!)).toEqual([1, 2, 3, 4]);
    const loop: Record<string, { items: number[]; next?: string }> = { '': { items: [1], next: 'a' }, a: { items: [2], next: 'b' }, b: { items: [3], next: 'a' } };
    await expect(http.pages(async (t) => loop[t ?? '']!)).rejects.toThrow(/page token "a" came back twice/);
  });
});

describe('AdapterHttp queries and cache size', () => {
  it('repeats list parameters and extends a path that has a query already', async () => {
    const http = await client(json(200, {}));
    await http.json({ path: '/e?singleEvents=true', query: { eventTypes: ['default', 'outOfOffice'], maxResults: 5, none: undefined } });
    expect(server!.requests[0]!.url).toBe('/e?singleEvents=true&eventTypes=default&eventTypes=outOfOffice&maxResults=5');
  });

  it('keeps at most 256 responses, dropping the oldest', async () => {
    // no header deadline: a request timed out and retried would count as a 301st
    const http = await client((req, res) => json(200, { url: req.url }, { 'cache-control': 'max-age=36000' })(req, res));
    for (let i = 0; i < 300; i++) await http.json({ path: `/p${i}` });
    expect(server!.requests).toHaveLength(300);
    await http.json({ path: '/p299' }); // recent: kept
    await http.json({ path: '/p0' }); // oldest: dropped, asked again
    expect(server!.requests).toHaveLength(301);
    expect(server!.requests[300]!.url).toBe('/p0');
  });
});

describe('AdapterHttp keeps only what can serve', () => {
  it('does not keep max-age=0 answers without an ETag', async () => {
    const http = await client(json(200, { ok: 1 }, { 'cache-control': 'private, max-age=0, must-revalidate' }));
    await http.json({ path: '/changes?pageToken=1' });
    await http.json({ path: '/changes?pageToken=1' });
    expect(server!.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, undefined]);
    expect(http.stats.cacheHits).toBe(0);
    expect((http as unknown as { cache: Map<string, unknown> }).cache.size).toBe(0);
  });
});

describe('adapterHttpFor (a one-shot command such as deps-check)', () => {
  it('speaks to the configured service with its headers and credentials', async () => {
    server = await httpServer(json(200, { ok: true }));
    const http = adapterHttpFor({ name: 'insights', url: server.url, headers: { 'x-extra': 'yes' }, allow_insecure_tls: false, response_header_timeout_seconds: 10, credentials: { bearer: { token: 't0k', scheme: 'Bearer' } } });
    expect((await http.json({ path: '/v1/versions' })).json).toEqual({ ok: true });
    expect(server.requests[0]!.url).toBe('/v1/versions');
    expect(server.requests[0]!.headers).toMatchObject({ 'x-extra': 'yes', authorization: 'Bearer t0k' });
  });
});
