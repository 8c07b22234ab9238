// Loopback stand-ins for a bundle service, log collector and status endpoint, plus
// helpers to build bundles with the bundle-format code and wait for conditions.

import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { newPlainObject, type PlainObject } from '../src/value/index.js';
import { writeBundle, type Bundle, type SigningConfig } from '../src/bundle/index.js';
import type { Timing } from '../src/plugins/timing.js';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Handler = (req: Recorded, res: http.ServerResponse) => void | Promise<void>;

export interface TestHTTPServer {
  url: string;
  requests: Recorded[];
  handler: Handler;
  close(): Promise<void>;
}

export async function httpServer(handler: Handler, port = 0): Promise<TestHTTPServer> {
  const state: TestHTTPServer = { url: '', requests: [], handler, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      state.requests.push(rec);
      Promise.resolve(state.handler(rec, res)).catch(() => {
        res.statusCode = 500;
        res.end();
      });
    });
  });
  await new Promise<void>((r, j) => server.once('error', j).listen(port, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

/** A loopback port nobody listens on right now (for servers that need their port up front). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Test timing: 1 configured second = `ms` milliseconds, no jitter. */
export function fastTiming(ms = 20): Timing {
  return { msPerSecond: ms, random: () => 0.5 };
}

export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function obj(v: Record<string, unknown>): PlainObject {
  const o = newPlainObject();
  for (const [k, x] of Object.entries(v)) o[k] = (x && typeof x === 'object' && !Array.isArray(x) ? obj(x as Record<string, unknown>) : x) as PlainObject[string];
  return o;
}

/** A bundle in memory: policies by path, data document, manifest fields. */
export function makeBundle(opts: { revision: string; roots?: string[]; modules?: Record<string, string>; data?: Record<string, unknown> }): Bundle {
  return {
    manifest: { revision: opts.revision, roots: opts.roots ?? [''] },
    hasManifest: true,
    data: obj(opts.data ?? {}),
    dataFiles: [],
    modules: Object.entries(opts.modules ?? {}).map(([path, text]) => ({
      path,
      url: '/' + path,
      raw: Buffer.from(text),
      text,
      packagePath: /package\s+([\w.]+)/.exec(text)![1]!.split('.'),
    })),
    wasmModules: [],
  };
}

export async function archive(opts: Parameters<typeof makeBundle>[0], signing?: SigningConfig): Promise<Buffer> {
  return writeBundle(makeBundle(opts), signing);
}

export function gunzipJSON(b: Buffer): unknown {
  return JSON.parse(gunzipSync(b).toString('utf8'));
}

/** A loopback bundle service: path -> archive (and ETag); unknown paths are 404. */
export type BundleFiles = Record<string, { body: Buffer; etag?: string } | undefined>;

export function serveBundles(files: BundleFiles): Handler {
  return (req, res) => {
    const f = files[req.url.split('?')[0]!];
    if (!f) {
      res.statusCode = 404;
      return void res.end();
    }
    if (f.etag && req.headers['if-none-match'] === f.etag) {
      res.statusCode = 304;
      return void res.end();
    }
    if (f.etag) res.setHeader('etag', f.etag);
    res.statusCode = 200;
    res.end(f.body);
  };
}
