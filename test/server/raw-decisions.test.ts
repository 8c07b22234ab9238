// Decisions answered below Node's HTTP layer (src/server/raw-decisions.ts): the bytes on
// the wire are Node's own, byte for byte (but the Date), whether a request is read from
// the socket here or by Node's server after the connection was handed over; pipelined
// requests are answered in order across both and across answers that wait; idle
// connections close on Node's keep-alive timeout and at shutdown; a server shutting down
// answers what it owes with Connection: close.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { start, type TestServer } from './helpers.js';
import { rawCounts } from '../../src/server/raw-decisions.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startServer } from '../../src/server/index.js';
import pino from 'pino';

let s: TestServer;
let port: number;
beforeAll(async () => {
  s = await start({ limits: { maxLength: 4096, gzipMaxLength: 1 << 20, maxDepth: 50 }, gzip: { minLength: 100 } });
  port = s.port;
  s.engine.virtual.set('rules/echo', (input) => input);
  s.engine.virtual.set('rules/undef', () => undefined);
  s.engine.virtual.set('rules/slow', async (input) => {
    await new Promise((r) => setTimeout(r, 50));
    return input;
  });
});
afterAll(() => s.close());

function request(path: string, body: string | Buffer, headers: Record<string, string> = {}): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const type = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type') ? [] : ['Content-Type: application/json'];
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...type, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${b.length}`];
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), b]);
}

/** A connection that collects what the server writes. */
class Conn {
  readonly socket: Socket;
  private data = Buffer.alloc(0);
  closed = false;
  private waiters: (() => void)[] = [];

  constructor(p = port) {
    this.socket = connect(p, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => {
      this.data = Buffer.concat([this.data, d]);
      this.wake();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on('error', () => {});
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  ready(): Promise<void> {
    return new Promise((r) => this.socket.once('connect', () => r()));
  }

  write(b: Buffer | string): Promise<void> {
    return new Promise((r) => this.socket.write(b, () => r()));
  }

  /** Waits until `n` whole responses have arrived (or the connection closed); returns them as text, Date masked. */
  async responses(n: number, ms = 15_000): Promise<string[]> {
    const until = Date.now() + ms;
    for (;;) {
      const all = split(this.data);
      if (all.length >= n || this.closed || Date.now() > until) return all;
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Whole responses in `b` (by Content-Length), with the Date header's value masked. */
function split(b: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const end = b.indexOf('\r\n\r\n', at);
    if (end < 0) return out;
    const head = b.toString('latin1', at, end);
    const m = /\r\ncontent-length: *(\d+)/i.exec(head);
    const len = m ? Number(m[1]) : 0;
    if (b.length < end + 4 + len) return out;
    out.push((head.replace(/\r\nDate: [^\r]*/, '\r\nDate: X') + '\r\n\r\n' + b.toString('latin1', end + 4, end + 4 + len)));
    at = end + 4 + len;
  }
}

/** The same request read here and by Node's server (a header twice is outside what raw-head.ts reads: Node's then). */
async function both(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ raw: string; node: string }> {
  const bytes = request(path, body, headers);
  const a = new Conn();
  await a.ready();
  const before = { ...rawCounts };
  await a.write(bytes);
  const [raw] = await a.responses(1);
  a.close();
  // read and answered here, not handed over
  expect(rawCounts.answered).toBe(before.answered + 1);
  expect(rawCounts.handedOver).toBe(before.handedOver);
  const b = new Conn();
  await b.ready();
  await b.write(request(path, body, { ...headers, 'X-Twice': 'a', 'x-twice': 'b' }));
  const [node] = await b.responses(1);
  b.close();
  expect(rawCounts.handedOver).toBe(before.handedOver + 1);
  expect(rawCounts.answered).toBe(before.answered + 1);
  return { raw: raw!, node: node! };
}

describe('decisions read from the socket', () => {
  const cases: [string, string, string | Buffer, Record<string, string>?][] = [
    ['a decision', '/v1/data/rules/echo', '{"input":{"user":"alice","n":12345678901234567890}}'],
    ['a decision with non-ASCII text', '/v1/data/rules/echo', '{"input":{"name":"Zoë ✓"}}'],
    ['an undefined decision', '/v1/data/rules/undef', '{"input":{}}'],
    ['no input key', '/v1/data/rules/echo', '{}'],
    ['an empty body', '/v1/data/rules/echo', ''],
    ['malformed JSON', '/v1/data/rules/echo', '{"input":'],
    ['a body that is not an object', '/v1/data/rules/echo', '[1]'],
    ['nesting past the limit', '/v1/data/rules/echo', '{"input":' + '['.repeat(60) + ']'.repeat(60) + '}'],
    ['a YAML body', '/v1/data/rules/echo', 'input:\n  user: bob\n', { 'Content-Type': 'application/x-yaml' }],
    ['a gzip response (answered later)', '/v1/data/rules/echo', JSON.stringify({ input: { pad: 'y'.repeat(300) } }), { 'Accept-Encoding': 'gzip' }],
    ['an evaluation that waits', '/v1/data/rules/slow', '{"input":[1,2]}'],
    ['the data root', '/v1/data', '{"input":1}'],
    ['a path with digits, dashes and underscores', '/v1/data/rules/echo/0', '{"input":[7]}'],
  ];
  for (const [what, path, body, headers] of cases) {
    it(`answers ${what} with the bytes Node's path writes`, async () => {
      const { raw, node } = await both(path, body, headers);
      expect(raw).toMatch(/^HTTP\/1\.1 \d{3} /);
      expect(raw).toBe(node);
    });
  }

  it('answers pipelined requests in order, across answers that wait and requests Node reads', async () => {
    const c = new Conn();
    await c.ready();
    await c.write(
      Buffer.concat([
        request('/v1/data/rules/echo', '{"input":1}'),
        request('/v1/data/rules/slow', '{"input":2}'),
        request('/v1/data/rules/echo', '{"input":3}'),
        request('/v1/data/rules/echo', JSON.stringify({ input: 'z'.repeat(200) }), { 'Accept-Encoding': 'gzip' }),
        request('/v1/data/rules/echo', '{"input":5}'),
        Buffer.from('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
        request('/v1/data/rules/echo', '{"input":7}'),
      ]),
    );
    const r = await c.responses(7);
    c.close();
    expect(r).toHaveLength(7);
    expect(r[0]).toMatch(/\r\n\r\n\{"result":1\}\n$/);
    expect(r[1]).toMatch(/\r\n\r\n\{"result":2\}\n$/);
    expect(r[2]).toMatch(/\r\n\r\n\{"result":3\}\n$/);
    expect(r[3]).toMatch(/content-encoding: gzip/);
    expect(r[4]).toMatch(/\r\n\r\n\{"result":5\}\n$/);
    expect(r[5]).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(r[6]).toMatch(/\r\n\r\n\{"result":7\}\n$/);
  });

  it('keeps serving a connection handed to Node halfway through a request', async () => {
    const c = new Conn();
    await c.ready();
    const bytes = request('/v1/data/rules/echo', '{"input":"split"}');
    await c.write(request('/v1/data/rules/echo', '{"input":0}'));
    expect(await c.responses(1)).toHaveLength(1);
    await c.write(bytes.subarray(0, 20));
    await new Promise((r) => setTimeout(r, 30));
    await c.write(bytes.subarray(20));
    await c.write(request('/v1/data/rules/echo', '{"input":"after"}'));
    const r = await c.responses(3);
    c.close();
    expect(r.map((x) => x.slice(x.indexOf('\r\n\r\n') + 4))).toEqual(['{"result":0}\n', '{"result":"split"}\n', '{"result":"after"}\n']);
  });

  it('leaves to Node what it refuses: two Content-Lengths, Transfer-Encoding with Content-Length, a bare LF', async () => {
    const bad = [
      'POST /v1/data/rules/echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'POST /v1/data/rules/echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      'POST /v1/data/rules/echo HTTP/1.1\nHost: a\r\nContent-Length: 2\r\n\r\n{}',
    ];
    for (const b of bad) {
      const c = new Conn();
      await c.ready();
      await c.write(b);
      const r = await c.responses(1);
      c.close();
      expect(r[0]).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    }
  });

  it('counts its decisions in http_request_duration_seconds as handler v1/data', async () => {
    const count = async () => {
      const c = new Conn();
      await c.ready();
      await c.write('GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n');
      const [m] = await c.responses(1);
      c.close();
      const x = /http_request_duration_seconds_count\{code="200",handler="v1\/data",method="post"\} (\d+)/.exec(m!);
      return x ? Number(x[1]) : 0;
    };
    const before = await count();
    const c = new Conn();
    await c.ready();
    await c.write(Buffer.concat([request('/v1/data/rules/echo', '{"input":1}'), request('/v1/data/rules/echo', '{"input":2}')]));
    expect(await c.responses(2)).toHaveLength(2);
    c.close();
    expect(await count()).toBe(before + 2);
  });
});

describe('connections read here, closing', () => {
  it("closes an idle connection after Node's keep-alive timeout (5 s)", async () => {
    const c = new Conn();
    await c.ready();
    await c.write(request('/v1/data/rules/echo', '{"input":1}'));
    const [r] = await c.responses(1);
    expect(r).toMatch(/Keep-Alive: timeout=5/);
    const t0 = Date.now();
    await c.responses(2, 15_000);
    expect(c.closed).toBe(true);
    // not at once (the bound leaves room for a starved event loop between the answer and t0)
    expect(Date.now() - t0).toBeGreaterThan(2500);
  }, 30_000);

  it('at shutdown: closes idle connections at once, answers an awaited decision with Connection: close, then closes', async () => {
    const t = await start();
    // the decision for input 1 waits until the test lets it go, after shutdown has begun
    let started!: () => void;
    const isStarted = new Promise<void>((r) => (started = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    t.engine.virtual.set('rules/held', async (input) => {
      if (input === 1) {
        started();
        await released;
      }
      return input;
    });
    const idle = new Conn(t.port);
    const busy = new Conn(t.port);
    await Promise.all([idle.ready(), busy.ready()]);
    await idle.write(request('/v1/data/rules/held', '{"input":0}'));
    expect(await idle.responses(1)).toHaveLength(1);
    await busy.write(request('/v1/data/rules/held', '{"input":1}'));
    await isStarted;
    const closing = t.close();
    await idle.responses(2);
    expect(idle.closed).toBe(true);
    expect(busy.closed).toBe(false);
    release();
    const r = await busy.responses(1);
    expect(r[0]).toMatch(/\r\nConnection: close\r\n/);
    expect(r[0]).toMatch(/\{"result":1\}\n$/);
    await closing;
    await busy.responses(2);
    expect(busy.closed).toBe(true);
    expect(idle.closed).toBe(true);
  });
});

describe('clients that do not read, and clients that end', () => {
  it('stops reading while the client does not take its answers, then answers every request', async () => {
    // the real engine answers in the tick the request is read (the fake one through a promise);
    // small requests, large answers: each batch's answers (~5 MB) outgrow the kernel's socket buffers
    const t = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false });
    const put = new Conn(t.port);
    await put.ready();
    const blob = JSON.stringify('x'.repeat(100_000));
    await put.write(`PUT /v1/data/blob HTTP/1.1\r\nHost: a\r\nContent-Length: ${blob.length}\r\n\r\n${blob}`);
    expect((await put.responses(1))[0]).toMatch(/^HTTP\/1\.1 204/);
    put.close();
    const one = request('/v1/data/blob', '{"input":1}');
    const batches = 10;
    const per = 50;
    const c = new Conn(t.port);
    await c.ready();
    c.socket.pause();
    const before = rawCounts.answered;
    // each batch in its own write, a moment apart: each is read whole (a request split over two reads would be Node's)
    for (let i = 0; i < batches; i++) {
      await c.write(Buffer.concat(Array.from({ length: per }, () => one)));
      await new Promise((r) => setTimeout(r, 30));
    }
    // the first batch is answered (however loaded the machine), then nothing more for a while
    for (const until = Date.now() + 10_000; rawCounts.answered - before < per && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    const whileStalled = rawCounts.answered - before;
    // the first batch is answered; the server then waits for the client instead of reading the rest
    expect(whileStalled).toBeGreaterThanOrEqual(per);
    expect(whileStalled).toBeLessThan(batches * per);
    const answer = (await (async () => {
      const probe = new Conn(t.port);
      await probe.ready();
      await probe.write(one);
      const [x] = await probe.responses(1);
      probe.close();
      return x!;
    })()).length - 'X'.length + 'Thu, 01 Jan 1970 00:00:00 GMT'.length; // the Date's value has a fixed width
    let bytes = 0;
    await new Promise<void>((resolve) => {
      c.socket.removeAllListeners('data');
      c.socket.on('data', (d: Buffer) => {
        bytes += d.length;
        if (bytes >= batches * per * answer) resolve();
      });
      c.socket.resume();
    });
    await new Promise((r) => setTimeout(r, 100)); // nothing more comes
    c.close();
    expect(bytes).toBe(batches * per * answer);
    expect(rawCounts.answered - before).toBe(batches * per + 1);
    await t.close();
  }, 60_000);

  it('keeps an awaited answer ahead of later ones when the socket drains first', async () => {
    // answers written at once (large), then one gzipped on the thread pool, then a small one:
    // the drain of the first ones must not let the last overtake the gzipped one
    const t = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false });
    const put = new Conn(t.port);
    await put.ready();
    // 4 MB of random text: the three written at once outgrow the socket's buffers (a drain
    // follows as the client reads), and gzipping one takes longer than that drain
    const big = JSON.stringify(randomBytes(3_000_000).toString('base64'));
    for (const [path, doc] of [['blob', big], ['small', '"ok"']] as const) {
      await put.write(`PUT /v1/data/${path} HTTP/1.1\r\nHost: a\r\nContent-Length: ${doc.length}\r\n\r\n${doc}`);
    }
    expect(await put.responses(2)).toHaveLength(2);
    put.close();
    for (let round = 0; round < 5; round++) {
      const c = new Conn(t.port);
      await c.ready();
      await c.write(
        Buffer.concat([
          request('/v1/data/blob', '{}'),
          request('/v1/data/blob', '{}'),
          request('/v1/data/blob', '{}', { 'Accept-Encoding': 'gzip' }),
          request('/v1/data/small', '{}'),
        ]),
      );
      const r = await c.responses(4);
      c.close();
      expect(r.map((x) => (x.includes('content-encoding: gzip') ? 'gzip' : x.includes('{"result":"ok"') ? 'small' : x.length > 4_000_000 ? 'blob' : x.slice(0, 300)))).toEqual(['blob', 'blob', 'gzip', 'small']);
    }
    await t.close();
  });

  it('answers a request whose client then ends its side, and closes', async () => {
    const c = new Conn();
    await c.ready();
    const before = rawCounts.answered;
    c.socket.end(Buffer.concat([request('/v1/data/rules/echo', '{"input":1}'), request('/v1/data/rules/slow', '{"input":2}')]));
    const r = await c.responses(3, 3000);
    expect(rawCounts.answered).toBe(before + 2);
    expect(r.map((x) => x.slice(x.indexOf('\r\n\r\n') + 4))).toEqual(['{"result":1}\n', '{"result":2}\n']);
    expect(c.closed).toBe(true);
  });
});

describe('requests outside the subset, pipelined behind decisions', () => {
  it('hands a gzip-encoded body to Node and keeps the order', async () => {
    const c = new Conn();
    await c.ready();
    await c.write(Buffer.concat([request('/v1/data/rules/echo', '{"input":"a"}'), request('/v1/data/rules/echo', gzipSync('{"input":"b"}'), { 'Content-Encoding': 'gzip' })]));
    const r = await c.responses(2);
    c.close();
    expect(r.map((x) => x.slice(x.indexOf('\r\n\r\n') + 4))).toEqual(['{"result":"a"}\n', '{"result":"b"}\n']);
  });
});
