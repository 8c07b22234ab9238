// raw-head.ts reads one request from bytes in front of Node's own parser. Its claim: whenever
// it returns a request, Node's http server reads the same request from the same bytes (POST,
// the same url, the same headers object, the same body, the next request at the same offset),
// and it never accepts what Node refuses. The unit cases pin the subset's edges; the property
// sends every request it accepts (generated, valid or mutated) over a socket to a real
// `http.createServer()` and compares what Node saw. OTHER and PARTIAL are Node's to decide.
// RAW_HEAD_RUNS / RAW_HEAD_SEED raise the run or replay a seed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { MAX_HEAD_BYTES, OTHER, PARTIAL, readRawRequest, type RawRequest } from '../../src/server/raw-head.js';
import { seededRandom } from '../seeded-random.js';

const RUNS = Number(process.env.RAW_HEAD_RUNS ?? 2000);
const SEED = Number(process.env.RAW_HEAD_SEED ?? 20261127);
const MAX_BODY = 1 << 20;

const bytes = (s: string) => Buffer.from(s, 'latin1');
function request(headers: string[], body = '', line = 'POST /v1/data/app/allow HTTP/1.1'): Buffer {
  return bytes(line + '\r\n' + headers.map((h) => h + '\r\n').join('') + '\r\n' + body);
}
const valid = (extra: string[] = [], body = '{"input":{}}') =>
  request(['Host: localhost:8181', ...extra, 'Content-Length: ' + body.length], body);
const read = (b: Buffer, maxBody = MAX_BODY) => readRawRequest(b, 0, maxBody);

describe('readRawRequest', () => {
  it('reads a typical request (the headers fetch sends)', () => {
    const body = '{"input":{"user":"alice"}}';
    const b = request(
      [
        'host: 127.0.0.1:8181',
        'connection: keep-alive',
        'content-type: application/json',
        'accept: */*',
        'accept-language: *',
        'sec-fetch-mode: cors',
        'user-agent: node',
        'accept-encoding: gzip, deflate',
        'content-length: ' + body.length,
      ],
      body,
    );
    const r = read(b) as RawRequest;
    expect(typeof r).toBe('object');
    expect(r.url).toBe('/v1/data/app/allow');
    expect(Object.getPrototypeOf(r.headers)).toBe(null);
    expect({ ...r.headers }).toEqual({
      host: '127.0.0.1:8181',
      connection: 'keep-alive',
      'content-type': 'application/json',
      accept: '*/*',
      'accept-language': '*',
      'sec-fetch-mode': 'cors',
      'user-agent': 'node',
      'accept-encoding': 'gzip, deflate',
      'content-length': String(body.length),
    });
    expect(b.toString('latin1', r.bodyStart, r.bodyEnd)).toBe(body);
    expect(r.bodyEnd).toBe(b.length);
  });

  it('reads the data root, lower-cases names and trims the whitespace around values', () => {
    const r = read(request(['HOST: \t x \t', 'Content-LENGTH:0', 'X-Two:  a \t b  '], '', 'POST /v1/data HTTP/1.1')) as RawRequest;
    expect(r.url).toBe('/v1/data');
    expect({ ...r.headers }).toEqual({ host: 'x', 'content-length': '0', 'x-two': 'a \t b' });
  });

  it('is PARTIAL for every proper prefix of a request', () => {
    const b = valid(['Connection: keep-alive', 'X-A: b'], '{"input":\r\n1}');
    expect(typeof read(b)).toBe('object');
    for (let cut = 0; cut < b.length; cut++) expect(read(b.subarray(0, cut)), `cut at ${cut}`).toBe(PARTIAL);
  });

  it('accepts Connection: keep-alive in any case', () => {
    for (const v of ['keep-alive', 'Keep-Alive', 'KEEP-ALIVE']) expect(typeof read(valid(['Connection: ' + v]))).toBe('object');
  });

  const others: [string, Buffer, number?][] = [
    ['GET', request(['Host: x', 'Content-Length: 0'], '', 'GET /v1/data/a HTTP/1.1')],
    ['lower-case post', request(['Host: x', 'Content-Length: 0'], '', 'post /v1/data/a HTTP/1.1')],
    ['HTTP/1.0', request(['Host: x', 'Content-Length: 0'], '', 'POST /v1/data/a HTTP/1.0')],
    ['another route', request(['Host: x', 'Content-Length: 0'], '', 'POST /v1/query HTTP/1.1')],
    ['/v1/dataX', request(['Host: x', 'Content-Length: 0'], '', 'POST /v1/dataX HTTP/1.1')],
    ['a % in the path', request(['Host: x', 'Content-Length: 0'], '', 'POST /v1/data/a%2Fb HTTP/1.1')],
    ['a . in the path', request(['Host: x', 'Content-Length: 0'], '', 'POST /v1/data/a/../b HTTP/1.1')],
    ['a ? in the path', request(['Host: x', 'Content-Length: 0'], '', 'POST /v1/data/a?pretty HTTP/1.1')],
    ['two spaces after the target', request(['Host: x', 'Content-Length: 0'], '', 'POST /v1/data/a  HTTP/1.1')],
    ['Transfer-Encoding', request(['Host: x', 'Transfer-Encoding: chunked'], '0\r\n\r\n')],
    ['Transfer-Encoding with Content-Length', request(['Host: x', 'Content-Length: 5', 'Transfer-Encoding: chunked'], '0\r\n\r\n')],
    ['two Content-Length headers', request(['Host: x', 'Content-Length: 2', 'Content-Length: 2'], '{}')],
    ['two Content-Length headers differing in case', request(['Host: x', 'Content-Length: 2', 'content-length: 2'], '{}')],
    ['two Host headers', request(['Host: x', 'Host: x', 'Content-Length: 2'], '{}')],
    ['a duplicate header', valid(['X-A: 1', 'x-a: 1'])],
    ['a duplicate Accept', valid(['Accept: */*', 'Accept: */*'])],
    ['a hex Content-Length', request(['Host: x', 'Content-Length: 0x2'], '{}')],
    ['a signed Content-Length', request(['Host: x', 'Content-Length: +2'], '{}')],
    ['a negative Content-Length', request(['Host: x', 'Content-Length: -2'], '{}')],
    ['a Content-Length list', request(['Host: x', 'Content-Length: 2, 2'], '{}')],
    ['an empty Content-Length', request(['Host: x', 'Content-Length:'], '')],
    ['a Content-Length of 16 digits', request(['Host: x', 'Content-Length: 0000000000000002'], '{}')],
    ['no Host', request(['Content-Length: 2'], '{}')],
    ['no Content-Length', request(['Host: x'], '')],
    ['Expect: 100-continue', valid(['Expect: 100-continue'])],
    ['Upgrade', valid(['Upgrade: h2c'])],
    ['Content-Encoding: gzip', valid(['Content-Encoding: gzip'])],
    ['Connection: close', valid(['Connection: close'])],
    ['Connection: keep-alive, Upgrade', valid(['Connection: keep-alive, Upgrade'])],
    ['an obs-fold (SP)', valid(['X-A: 1', ' folded'])],
    ['an obs-fold (HT)', valid(['X-A: 1', '\tfolded'])],
    ['a bare LF ending a header line', bytes('POST /v1/data/a HTTP/1.1\r\nHost: x\nContent-Length: 0\r\n\r\n')],
    ['a bare LF ending the request line', bytes('POST /v1/data/a HTTP/1.1\nHost: x\r\nContent-Length: 0\r\n\r\n')],
    ['a bare LF ending the head', bytes('POST /v1/data/a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\n')],
    ['a bare CR in a value', valid(['X-A: a\rb'])],
    ['a bare CR ending a line', bytes('POST /v1/data/a HTTP/1.1\r\nHost: x\rContent-Length: 0\r\n\r\n')],
    ['a byte >= 0x80 in a value', valid(['X-A: caf\xe9'])],
    ['a DEL in a value', valid(['X-A: a\x7fb'])],
    ['a NUL in a value', valid(['X-A: a\0b'])],
    ['a control byte in a value', valid(['X-A: a\x01b'])],
    ['a space before the colon', request(['Host : x', 'Content-Length: 0'])],
    ['a tab before the colon', request(['Host\t: x', 'Content-Length: 0'])],
    ['a header without a colon', valid(['X-A'])],
    ['an empty header name', valid([': a'])],
    ['a separator in a name', valid(['X(A): a'])],
    ['a line before the request', Buffer.concat([bytes('\r\n'), valid()])],
    // Node refuses these or reads them otherwise (each was read here once)
    ['a tab after the Content-Length digits (llhttp: HPE_INVALID_CONTENT_LENGTH)', request(['Host: x', 'Content-Length: 2\t'], '{}')],
    ['Proxy-Connection (llhttp reads it as Connection)', valid(['Proxy-Connection: close'])],
    ['Set-Cookie (an array in req.headers)', valid(['Set-Cookie: a=1'])],
    ['__proto__ (dropped from req.headers)', valid(['__proto__: x'])],
    ['a declared body over maxBody', valid([], '{"input":12345}'), 14],
    ['a declared body over maxBody, not yet arrived', request(['Host: x', 'Content-Length: 15']), 14],
    ['a head over 16 KiB', valid(['X-Big: ' + 'a'.repeat(MAX_HEAD_BYTES)])],
    ['a head over 16 KiB in many lines', valid(Array.from({ length: 40 }, (_, i) => `X-${i}: ${'b'.repeat(420)}`))],
    ['more than 64 headers', valid(Array.from({ length: 70 }, (_, i) => `X-${i}: 1`))],
  ];
  for (const [what, b, maxBody] of others) {
    it(`is OTHER for ${what}`, () => expect(read(b, maxBody ?? MAX_BODY)).toBe(OTHER));
  }

  it('reads spaces after the Content-Length digits', () => {
    expect(typeof read(request(['Host: x', 'Content-Length: 2  '], '{}'))).toBe('object');
  });

  it('reads a body of exactly maxBody', () => {
    expect(typeof read(valid([], '{"input":1234}'), 14)).toBe('object');
  });

  it('reads two pipelined requests, the second from the first one bodyEnd', () => {
    const one = valid(['X-N: 1'], '{"input":1}');
    const two = request(['Host: y', 'Content-Length: 4', 'X-N: 2'], 'a\r\nb', 'POST /v1/data/b HTTP/1.1');
    const b = Buffer.concat([one, two]);
    const r1 = readRawRequest(b, 0, MAX_BODY) as RawRequest;
    expect(r1.bodyEnd).toBe(one.length);
    const r2 = readRawRequest(b, r1.bodyEnd, MAX_BODY) as RawRequest;
    expect(r2.url).toBe('/v1/data/b');
    expect(r2.headers['x-n']).toBe('2');
    expect(b.toString('latin1', r2.bodyStart, r2.bodyEnd)).toBe('a\r\nb');
    expect(r2.bodyEnd).toBe(b.length);
    expect(readRawRequest(b, r2.bodyEnd, MAX_BODY)).toBe(PARTIAL);
  });
});

// ---- the property: what it accepts, Node reads the same way ----

/** What Node's server saw of one request. */
interface Seen {
  port: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer | undefined;
}

let server: http.Server;
let port = 0;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    // recorded at the request event, so pipelined requests keep their order
    const s: Seen = {
      port: req.socket.remotePort!,
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: undefined,
    };
    seen.push(s);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      s.body = Buffer.concat(chunks);
      res.writeHead(200, { 'Content-Length': '0' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const SENTINEL = bytes('GET /sentinel HTTP/1.1\r\nHost: s\r\n\r\n');

/**
 * Sends `b` and then a GET /sentinel on one connection; waits for `count` + 1 answers (or
 * the connection's close, or 5 s). Node's requests on that connection and its statuses.
 */
function nodeReads(b: Buffer, count: number): Promise<{ requests: Seen[]; statuses: number[] }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let text = '';
    let local = 0;
    const finish = () => {
      clearTimeout(timer);
      sock.destroy();
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      const requests = seen.filter((s) => s.port === local);
      seen.length = 0; // the cases run one at a time
      resolve({ requests, statuses });
    };
    const timer = setTimeout(finish, 5000);
    sock.on('connect', () => {
      local = sock.localPort!;
      sock.write(Buffer.concat([b, SENTINEL]));
    });
    sock.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if ((text.match(/HTTP\/1\.1 /g) ?? []).length >= count + 1) finish();
    });
    sock.on('close', finish);
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

// ---- the generator ----

const TCHARS = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const PATH_CHARS = '_-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Names clients send, names Node treats specially (joins, arrays, drops), Object.prototype's. */
const NAMES = [
  'content-type', 'accept', 'user-agent', 'authorization', 'accept-encoding', 'accept-language',
  'cookie', 'x-request-id', 'traceparent', 'tracestate', 'age', 'from', 'referer', 'etag',
  'if-none-match', 'if-modified-since', 'keep-alive', 'proxy-connection', 'te', 'trailer',
  'via', 'x-forwarded-for', 'x-forwarded-proto', 'content-md5', 'content-location', 'max-forwards',
  'proxy-authorization', 'retry-after', 'server', 'location', 'www-authenticate', 'origin',
  'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'sec-fetch-mode',
];
const SPECIAL = [
  'Proxy-Connection: close', 'Proxy-Connection: keep-alive', 'Proxy-Connection: upgrade', 'Set-Cookie: a=1',
  '__proto__: x', 'Cookie: a=1', 'Keep-Alive: timeout=1', 'Connection: keep-alive\t', 'Connection:\tkeep-alive',
  'Connection: keep-alive,', 'Connection: keep-alive, keep-alive', 'Connection: keep-alive ', 'Connection: TE',
  'Connection: upgrade', 'TE: trailers', 'Trailer: X-A', 'Max-Forwards: 0', 'Upgrade:', 'Expect:', 'Transfer-Encoding:',
  'Host:', 'Content-Type: application/json; charset=utf-8', 'Authorization: Bearer x', 'Content-Length: 0',
  // near-misses of the names llhttp matches
  'Content-Length-X: 5', 'Content-Lengt: 5', 'Transfer-Encoding-X: chunked', 'Transfer-Encodin: chunked',
  'Connection-X: close', 'Connectio: close', 'Proxy-Connectio: close', 'Upgrade-X: h2c', 'Upgrad: h2c', 'Hostname: x',
];
const HOSTS = ['localhost:8181', '127.0.0.1:8181', 'opa', '', '[::1]:8181', 'a b', 'example.com:80'];
const INTERESTING = [0, 9, 10, 13, 32, 34, 44, 58, 59, 127, 128, 0xe9, 0xff, 0x3a, 0x2f, 0x25, 0x2e, 0x3f, 0x48];

interface Head {
  /** The request line and the header lines, without their line ends. */
  lines: string[];
  /** Each line's end. */
  ends: string[];
  body: Buffer;
}

function generator(rand: () => number) {
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(a: readonly T[]): T => a[int(a.length)]!;
  const chance = (p: number) => rand() < p;
  const str = (chars: string, min: number, max: number) => {
    let s = '';
    for (let n = min + int(max - min + 1); n > 0; n--) s += chars[int(chars.length)];
    return s;
  };
  const randomCase = (s: string) => [...s].map((c) => (chance(0.5) ? c.toUpperCase() : c.toLowerCase())).join('');
  const ows = () => str(' \t', 0, chance(0.7) ? 0 : 3);
  /** Visible ASCII with inner spaces and tabs. */
  const value = (max: number) => {
    let v = '';
    for (let n = int(max + 1); n > 0; n--) {
      const r = rand();
      v += r < 0.1 ? ' ' : r < 0.13 ? '\t' : String.fromCharCode(0x21 + int(0x7e - 0x21 + 1));
    }
    return v;
  };
  const body = (): Buffer => {
    const r = rand();
    const n = r < 0.2 ? 0 : r < 0.8 ? 1 + int(64) : r < 0.97 ? int(2000) : int(70_000);
    const b = Buffer.alloc(n);
    const mode = int(3);
    for (let i = 0; i < n; i++) {
      b[i] = mode === 0 ? int(256) : mode === 1 ? 0x20 + int(0x5f) : pick([13, 10, 0x50, 0x20, 0xc3, 0x28, 0, 0x7b, 0x7d]);
    }
    // something that looks like a request, to catch a wrong boundary
    if (n > 40 && chance(0.2)) bytes('POST /v1/data/x HTTP/1.1\r\nHost: x\r\n').copy(b, int(n - 36));
    return b;
  };

  /** A request of raw-head's subset. */
  function validHead(): Head {
    let path = '/v1/data';
    for (let k = int(5); k > 0; k--) path += '/' + str(PATH_CHARS, 0, 12);
    if (chance(0.1)) path += '/';
    const b = body();
    let cl = String(b.length);
    if (chance(0.1)) cl = '0'.repeat(1 + int(3)) + cl;
    const headers: string[] = [];
    const used = new Set<string>();
    const add = (name: string, v: string) => {
      if (used.has(name.toLowerCase())) return;
      used.add(name.toLowerCase());
      headers.splice(int(headers.length + 1), 0, randomCase(name) + ':' + ows() + v + ows());
    };
    add('Host', pick(HOSTS));
    add('Content-Length', cl);
    if (chance(0.5)) add('Connection', 'keep-alive');
    const many = chance(0.05) ? 55 + int(15) : int(10);
    for (let k = 0; k < many; k++) add(chance(0.5) ? pick(NAMES) : str(TCHARS, 1, 20), value(chance(0.9) ? 40 : 300));
    const head: Head = { lines: ['POST ' + path + ' HTTP/1.1', ...headers], ends: [], body: b };
    head.ends = head.lines.map(() => '\r\n');
    // now and then a head near Node's and raw-head's 16 KiB
    if (chance(0.04)) {
      const size = head.lines.reduce((n, l) => n + l.length + 2, 2);
      // the whole head within about 30 bytes either side of the limit
      const room = MAX_HEAD_BYTES - size - 9 - 30 + int(60);
      if (room > 0) {
        head.lines.push('X-Pad: ' + 'p'.repeat(room));
        head.ends.push('\r\n');
      }
    }
    return head;
  }

  const headerAt = (h: Head) => 1 + int(h.lines.length - 1);
  const insertLine = (h: Head, line: string, end = '\r\n') => {
    const at = 1 + int(h.lines.length);
    h.lines.splice(at, 0, line);
    h.ends.splice(at, 0, end);
  };
  const setHeader = (h: Head, name: string, f: (v: string) => string) => {
    const i = h.lines.findIndex((l) => l.toLowerCase().startsWith(name + ':'));
    if (i > 0) h.lines[i] = h.lines[i]!.slice(0, name.length + 1) + f(h.lines[i]!.slice(name.length + 1));
  };
  /** Changes to the head's lines, most of them out of the subset, some of them not. */
  const lineMutations: ((h: Head) => void)[] = [
    (h) => insertLine(h, h.lines[headerAt(h)]!), // a duplicated line
    (h) => insertLine(h, randomCase(h.lines[headerAt(h)]!.split(':')[0]!) + ': ' + value(10)), // a duplicated name
    (h) => (h.ends[int(h.ends.length)] = pick(['\n', '\r', '\n\r', '\r\r\n', ' \r\n'])),
    (h) => insertLine(h, randomCase('Transfer-Encoding') + ': ' + pick(['chunked', 'identity', 'gzip, chunked'])),
    (h) => (h.lines[0] = h.lines[0]!.replace('HTTP/1.1', pick(['HTTP/1.0', 'HTTP/1.2', 'HTTP/2.0', 'http/1.1', 'HTTP/1.1 ']))),
    (h) => (h.lines[0] = h.lines[0]!.replace('POST', pick(['GET', 'PUT', 'post', 'POST ', ' POST', 'POS']))),
    (h) => (h.lines[0] = h.lines[0]!.replace(' HTTP', pick(['%41', '.', '?a=1', '#f', '/..', '%', '\t', '~']) + ' HTTP')),
    (h) => insertLine(h, pick([' ', '\t', ' \t']) + value(10)), // an obs-fold
    (h) => {
      const i = headerAt(h);
      h.lines[i] = h.lines[i]!.replace(':', pick([' :', '\t:', '::', '']));
    },
    (h) =>
      setHeader(h, 'content-length', (v) =>
        pick([` ${Number(v.trim()) + 1}`, ` ${Number(v.trim()) - 1}`, ` +${v.trim()}`, ` -${v.trim()}`, ` 0x${v.trim()}`, ` ${v.trim()} ${v.trim()}`, ` ${v.trim()},${v.trim()}`, ` ${v.trim()}\t`, `\t${v.trim()} `, '', ' 1e3', ' ' + '0'.repeat(16)]),
      ),
    (h) => insertLine(h, pick(['Expect: 100-continue', 'Upgrade: h2c', 'Upgrade: websocket', 'Connection: close', 'Connection: Upgrade', 'Connection: keep-alive, close', 'Content-Encoding: gzip', 'content-encoding: identity'])),
    // headers that mean something to llhttp or to Node's req.headers, weighted up
    ...Array.from({ length: 3 }, () => (h: Head) => insertLine(h, randomCase(pick(SPECIAL)))),
    (h) => {
      const i = h.lines.findIndex((l) => /^(host|content-length):/i.test(l));
      if (i > 0) {
        h.lines.splice(i, 1);
        h.ends.splice(i, 1);
      }
    },
    (h) => insertLine(h, 'X-' + str(TCHARS, 1, 8) + ':' + pick(['\0', '\x7f', '\xe9', '\x01', '\x1b', '\xff']) + value(5)),
    (h) => insertLine(h, pick(['Set-Cookie', '__proto__', 'Cookie', '__defineGetter__']) + ': ' + value(10)),
    (h) => insertLine(h, 'X-Big: ' + 'b'.repeat(MAX_HEAD_BYTES - 100 + int(200))),
    (h) => h.lines.splice(1, 0, ''), // an empty line at the head's start: the body begins there
    (h) => (h.lines[0] = ''), // a CRLF before the request line
  ];

  const serialize = (h: Head) =>
    Buffer.concat([bytes(h.lines.map((l, i) => l + h.ends[i]).join('') + '\r\n'), h.body]);

  /** One request's bytes, and whether they were mutated. */
  return function one(): { b: Buffer; mutated: boolean } {
    const h = validHead();
    if (chance(0.55)) return { b: serialize(h), mutated: false };
    for (let k = 1 + (chance(0.2) ? int(3) : 0); k > 0; k--) {
      const r = rand();
      if (r < 0.6) pick(lineMutations)(h);
      else {
        // a byte inserted, deleted or replaced, mostly in the head
        const b = serialize(h);
        const headLen = b.length - h.body.length;
        const at = chance(0.85) ? int(headLen) : int(b.length);
        const x = chance(0.5) ? pick(INTERESTING) : int(256);
        const kind = int(3);
        const out =
          kind === 0
            ? Buffer.concat([b.subarray(0, at), Buffer.of(x), b.subarray(at)])
            : kind === 1
              ? Buffer.concat([b.subarray(0, at), b.subarray(at + 1)])
              : Buffer.concat([b.subarray(0, at), Buffer.of(x), b.subarray(at + 1)]);
        return { b: chance(0.1) ? out.subarray(0, int(out.length)) : out, mutated: true };
      }
    }
    const b = serialize(h);
    return { b: chance(0.05) ? b.subarray(0, int(b.length)) : b, mutated: true };
  };
}

const entries = (h: object) =>
  Object.entries(h).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe("readRawRequest against Node's parser", () => {
  it(`reads what it accepts as Node does (${RUNS} cases, seed ${SEED})`, { timeout: 60_000 + RUNS * 20 }, async () => {
    const rand = seededRandom(SEED);
    const one = generator(rand);
    let accepted = 0;
    let mutatedOther = 0;
    let mutatedRead = 0;
    let partial = 0;
    let pipelined = 0;
    for (let c = 0; c < RUNS; c++) {
      // one to three requests on a connection
      const parts = Array.from({ length: rand() < 0.7 ? 1 : 2 + Math.floor(rand() * 2) }, one);
      const b = Buffer.concat(parts.map((p) => p.b));
      const maxBody = rand() < 0.1 ? Math.floor(rand() * 200) : MAX_BODY;
      const read: RawRequest[] = [];
      const starts: number[] = [];
      let at = 0;
      let last: RawRequest | typeof PARTIAL | typeof OTHER = PARTIAL;
      while (at < b.length) {
        last = readRawRequest(b, at, maxBody);
        if (typeof last === 'number') break;
        expect(last.bodyStart).toBeGreaterThan(at);
        expect(last.bodyEnd - last.bodyStart).toBe(Number(last.headers['content-length']));
        // the same bytes cut short are waited for, not judged
        for (let k = 0; k < 2; k++) {
          const cut = at + Math.floor(rand() * (last.bodyEnd - at));
          expect(readRawRequest(b.subarray(0, cut), at, maxBody), `cut at ${cut - at}`).toBe(PARTIAL);
        }
        read.push(last);
        starts.push(at);
        at = last.bodyEnd;
      }
      if (read.length === 0) {
        if (last === OTHER && parts[0]!.mutated) mutatedOther++;
        if (last === PARTIAL) partial++;
        continue;
      }
      accepted++;
      if (parts.some((p, k) => p.mutated && k < read.length)) mutatedRead++;
      if (read.length > 1) pipelined++;
      const sent = b.subarray(0, at);
      const node = await nodeReads(sent, read.length);
      const shown = JSON.stringify(sent.toString('latin1'));
      expect(node.statuses, `case ${c}: ${shown}`).toEqual(new Array(read.length + 1).fill(200));
      expect(node.requests.length, `case ${c}: ${shown}`).toBe(read.length + 1);
      read.forEach((r, k) => {
        const n = node.requests[k]!;
        const what = `case ${c}, request ${k}: ${JSON.stringify(sent.toString('latin1', starts[k], r.bodyEnd))}`;
        expect(n.method, what).toBe('POST');
        expect(n.url, what).toBe(r.url);
        // every header line reached req.headers, none joined, dropped or made an array
        expect(n.rawHeaders.length / 2, what).toBe(Object.keys(r.headers).length);
        expect(entries(n.headers), what).toEqual(entries(r.headers));
        expect(n.body?.equals(sent.subarray(r.bodyStart, r.bodyEnd)), what).toBe(true);
      });
      expect(node.requests[read.length]!.url).toBe('/sentinel');
    }
    // the property is not vacuous: most valid requests are read, mutations are refused
    expect(accepted / RUNS).toBeGreaterThan(0.4);
    expect(mutatedOther).toBeGreaterThan(RUNS / 20);
    expect(partial).toBeGreaterThan(0);
    expect(pipelined).toBeGreaterThan(RUNS / 50);
    console.log(`raw-head property: ${RUNS} cases, ${accepted} read (${mutatedRead} with a mutated request), ${pipelined} with pipelined requests, ${mutatedOther} mutated ones OTHER, ${partial} PARTIAL`);
  });
});
