// Loopback stand-ins for a bundle service, log collector and status endpoint, plus
// helpers to build bundles with the bundle-format code and wait for conditions.

import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * A loopback port for a server that needs its port up front (one started in a child process).
 * Not the kernel's pick for port 0: that comes from its ephemeral range, from which every
 * outgoing connection of every test process also takes its local port, so in a busy suite
 * another connection could hold the port by the time the child binds it (seen once in three
 * runs under stress-ng: demo:workspace found its port taken). These come from below that
 * range, where no connection takes a port unasked, each reserved machine-wide by a file
 * created exclusively (parallel test workers and other clones' suites never get the same
 * one) and checked free by binding it.
 */
export async function freePort(): Promise<number> {
  const range = reservableRange();
  if (!range) return kernelPort();
  mkdirSync(PORTS_DIR, { recursive: true });
  for (let tries = 0; tries < 500; tries++) {
    const port = range[0] + Math.floor(Math.random() * (range[1] - range[0]));
    if (!reserve(port)) continue;
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${range[0]}-${range[1] - 1} after 500 tries`);
}

const PORTS_DIR = join(tmpdir(), 'regolith-test-ports');
/** A reservation older than this is taken to be a finished test's (no test holds a port longer). */
const RESERVED_MS = 30 * 60_000;

/** [low, high) below the kernel's ephemeral range, or undefined when that range leaves too little room. */
export function reservableRange(): [number, number] | undefined {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    /* not Linux: its usual default */
  }
  const low = Math.max(10_000, ephemeralLow - 12_000);
  return ephemeralLow - low >= 1000 ? [low, ephemeralLow] : undefined;
}

/** Creates the port's reservation file; false when another holds a recent one. */
function reserve(port: number): boolean {
  const file = join(PORTS_DIR, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  try {
    if (Date.now() - statSync(file).mtimeMs < RESERVED_MS) return false;
    writeFileSync(file, String(process.pid)); // a stale one: take it over (its mtime renewed)
    return true;
  } catch {
    return false;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The kernel's pick, where the machine's ephemeral range leaves no room below it. */
function kernelPort(): Promise<number> {
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
