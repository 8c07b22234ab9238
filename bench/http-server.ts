// The server side of bench/http.ts, run in its own process (so that it does not share an
// event loop with the load generator):
//   regolith  the real decision server (src/server startServer + RegolithEngine), logging
//             at warn level instead of the default info (one line per request)
//   hono      a bare Hono route on @hono/node-server returning a constant JSON body: the
//             ceiling for any Node HTTP server on this machine
//   hono-body the same route, but it reads and JSON.parses the request body first (what any
//             real handler of these requests must do): a second, body-reading ceiling
//   regolith-secure  the decision server over TLS (BENCH_TLS_CERT / BENCH_TLS_KEY) with
//             --authentication=token --authorization=basic: every request is first decided
//             by data.system.authz.allow (the token "bench-token" may do anything)
//   regolith-logs  the decision server with the decision log plugin uploading every decision
//             to BENCH_COLLECTOR_URL (the parent's collector, which only counts bytes), every
//             1 to 2 s (BENCH_LOG_DELAY, seconds: "min,max"), started by the plugin manager
//             from a configuration as `regolith run` does
//   regolith-nologs  the same, with no decision_logs section (the figure to compare with)
//   regolith-nullsink  regolith-nologs with a decision logger that drops every event: the
//             server's own share of logging's cost
//   regolith-ballast  regolith-nullsink whose logger copies each decision's input text and
//             320 more bytes into a ring of BENCH_BALLAST_KB (default 1536): the memory a
//             logger that keeps events touches, without its work (is the plugin's cost in
//             the server, above its cost in a loop, cache pressure on the request path?)
//   regolith-posting  regolith-nullsink that also POSTs 32 KB gzipped bodies to the collector
//             through the services' client, BENCH_POSTS at a time (default 5, one after the
//             other, as an upload sends its chunks) every BENCH_POST_MS (default 1500): what the
//             uploads alone cost the server at ~2,000 decisions/s; regolith-posting-raw writes
//             the same requests on one kept-alive net.Socket instead (no HTTP client: what is
//             the client's share?)
//   node-body a bare node:http server that reads the body, JSON.parses it and answers a
//             constant: the ceiling for any Node server answering these requests (issue 30)
// Listens on 127.0.0.1 (a free port) and reports its URL to the parent over IPC.

import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { connect } from 'node:net';
import { rawRequest, ServiceAgents } from '../src/plugins/services/client.js';
import { startServer } from '../src/server/index.js';
import { RegolithEngine } from '../src/engine/store-engine.js';
import { validateConfig } from '../src/plugins/config/index.js';
import { PluginManager } from '../src/plugins/manager.js';

const mode = process.argv[2] ?? '';
/** Decisions the decision log plugin has logged (the parent waits until its collector has them all). */
let logged = (): number => 0;

function readNode(inc: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    inc.on('data', (b: Buffer) => chunks.push(b));
    inc.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    inc.on('error', reject);
  });
}

/** The modes made of the plugin manager's server, with or without a decision logger of some kind. */
const LOGGING_MODES = new Set(['regolith-logs', 'regolith-nologs', 'regolith-nullsink', 'regolith-ballast', 'regolith-posting', 'regolith-posting-raw']);

async function main(): Promise<void> {
  let url: string;
  if (mode === 'regolith') {
    const s = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'warn' }) });
    url = s.url;
  } else if (LOGGING_MODES.has(mode)) {
    const [min, max] = (process.env['BENCH_LOG_DELAY'] ?? '1,2').split(',').map(Number);
    const config = validateConfig({
      // regolith-nologs has the service too, unused (no plugin talks to it)
      services: { collector: { url: process.env['BENCH_COLLECTOR_URL'] ?? 'http://127.0.0.1:9' } },
      ...(mode === 'regolith-logs' ? { decision_logs: { service: 'collector', reporting: { min_delay_seconds: min, max_delay_seconds: max } } } : {}),
    });
    const engine = new RegolithEngine();
    const manager = new PluginManager({ config, engine });
    await manager.start();
    logged = () => manager.decisionLogs?.counts.logged ?? 0;
    // regolith-nullsink: the server's side of logging alone (ids, the input's text, the
    // event handed over) with a logger that drops every event
    const sink =
      mode === 'regolith-nullsink' || mode.startsWith('regolith-posting')
        ? { decisionLogger: () => undefined, decisionLoggerReadsBody: true }
        : mode === 'regolith-ballast'
          ? { decisionLogger: ballastLogger(Number(process.env['BENCH_BALLAST_KB'] ?? 1536) * 1024), decisionLoggerReadsBody: true }
          : {};
    if (mode.startsWith('regolith-posting')) postEvery(mode === 'regolith-posting-raw', Number(process.env['BENCH_POST_MS'] ?? 1500), Number(process.env['BENCH_POSTS'] ?? 5), `${process.env['BENCH_COLLECTOR_URL'] ?? 'http://127.0.0.1:9'}/logs`);
    const s = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'warn' }), ...manager.serverOptions(), ...sink });
    url = s.url;
  } else if (mode === 'regolith-secure') {
    const engine = new RegolithEngine();
    await engine.putPolicy('authz.rego', 'package system.authz\n\ndefault allow := false\n\nallow if input.identity == "bench-token"\n');
    const s = await startServer({
      addr: '127.0.0.1:0',
      engine,
      logger: pino({ level: 'warn' }),
      tls: { certFile: process.env['BENCH_TLS_CERT']!, keyFile: process.env['BENCH_TLS_KEY']! },
      access: { authentication: 'token', authorization: 'basic' },
    });
    url = s.url;
  } else if (mode === 'hono' || mode === 'hono-body') {
    const app = new Hono();
    const body = { result: true };
    if (mode === 'hono-body') {
      // Straight from the Node stream: c.req.json() goes through a web ReadableStream and
      // costs several times more than the whole decision server.
      app.post('/v1/data/*', async (c) => {
        const doc = JSON.parse(await readNode((c.env as { incoming: IncomingMessage }).incoming)) as { input?: unknown };
        return c.json(doc.input === undefined ? {} : body);
      });
    } else app.post('/v1/data/*', (c) => c.json(body));
    url = await new Promise<string>((resolve) => {
      serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => resolve(`http://127.0.0.1:${info.port}`));
    });
  } else if (mode === 'node-body') {
    // what every Node server must do for these requests, and no more: read, parse, answer
    const answer = '{"result":true}\n';
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) };
    const srv = createServer((inc, res) => {
      const chunks: Buffer[] = [];
      inc.on('data', (b: Buffer) => chunks.push(b));
      inc.on('end', () => {
        const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown };
        res.writeHead(doc.input === undefined ? 400 : 200, headers);
        res.end(answer);
      });
    });
    url = await new Promise<string>((resolve) => srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(srv.address() as AddressInfo).port}`)));
  } else {
    throw new Error(`usage: http-server.ts regolith|regolith-logs|regolith-nologs|regolith-nullsink|regolith-ballast|regolith-posting|regolith-posting-raw|regolith-secure|hono|hono-body|node-body (got ${mode})`);
  }
  process.send?.({ url });
}

// The parent asks for this process's CPU time around each run (server CPU per request).
process.on('message', (m) => {
  if ((m as { cpu?: boolean }).cpu) process.send?.({ cpu: process.cpuUsage(), logged: logged() });
});

// The parent ends the benchmark by disconnecting (or dies): exit with it.
process.on('disconnect', () => process.exit(0));
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

/** A logger that only writes each decision's input text and 320 filler bytes into a ring of `bytes` (regolith-ballast). */
function ballastLogger(bytes: number): (d: { input_text?: Buffer }) => undefined {
  const ring = Buffer.alloc(bytes);
  const filler = Buffer.alloc(320, 0x61);
  let at = 0;
  return (d) => {
    const t = d.input_text;
    const n = (t?.length ?? 0) + filler.length;
    if (at + n > ring.length) at = 0;
    if (t) t.copy(ring, at);
    filler.copy(ring, at + (t?.length ?? 0));
    at += n;
    return undefined;
  };
}

/** POSTs a 32 KB gzipped JSON array without events to `url`, `n` times in a row every `ms` (regolith-posting). */
function postEvery(raw: boolean, ms: number, n: number, url: string): void {
  const items: string[] = [];
  let body = gzipSync('[]');
  while (body.length < 32 * 1024) {
    for (let i = 0; i < 200; i++) items.push(randomBytes(12).toString('hex'));
    body = gzipSync(JSON.stringify(items));
  }
  if (raw) return rawPosts(ms, n, url, body);
  const agents = new ServiceAgents();
  const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
  const burst = async (): Promise<void> => {
    for (let i = 0; i < n; i++) await rawRequest(url, 'POST', headers, body, { rejectUnauthorized: true }, 10_000, undefined, undefined, agents).catch(() => undefined);
  };
  setInterval(() => void burst(), ms).unref();
}

/** postEvery's requests written on one kept-alive socket: each waits for its answer's status line (regolith-posting-raw). */
function rawPosts(ms: number, n: number, url: string, body: Buffer): void {
  const u = new URL(url);
  const head = Buffer.from(`POST ${u.pathname} HTTP/1.1\r\nhost: ${u.host}\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\n\r\n`);
  const request = Buffer.concat([head, body]);
  const sock = connect(Number(u.port), u.hostname);
  sock.unref();
  let waiting: (() => void) | undefined;
  sock.on('data', (b: Buffer) => {
    // a 204 answer has no body: one status line per answer
    for (let i = b.indexOf('HTTP/1.1 '); i >= 0; i = b.indexOf('HTTP/1.1 ', i + 1)) waiting?.();
  });
  sock.on('error', () => undefined);
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      waiting = resolve;
      sock.write(request);
    });
  const burst = async (): Promise<void> => {
    for (let i = 0; i < n; i++) await one();
  };
  setInterval(() => void burst(), ms).unref();
}
