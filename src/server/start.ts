// Starts a listening server. close() stops accepting connections, lets requests in flight
// finish (up to a grace period), closes idle keep-alive connections, and resolves when
// the socket is closed.

import { createAdaptorServer } from '@hono/node-server';
import { chmodSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import pino, { type Logger } from 'pino';
import { createApp } from './app.js';
import { opaLogOptions } from './log-shape.js';
import { createListeners } from './listener.js';
import { installRawDecisions, type RawDecisions } from './raw-decisions.js';
import { httpsOptions, reloadCertificates, type TLSOptions } from './tls.js';
import type { ServerOptions } from './context.js';
import type { Engine } from '../engine/types.js';

export interface StartOptions extends Omit<ServerOptions, 'engine' | 'logger' | 'config'> {
  /** "host:port", ":port" or "port"; port 0 picks a free port. Default "localhost:8181". */
  addr?: string;
  engine: Engine;
  config?: Record<string, unknown>;
  logger?: Logger;
  /** How long close() waits for requests in flight before cutting connections (ms). */
  shutdownGraceMs?: number;
  /** Serve HTTPS (and, with a CA file, require client certificates). */
  tls?: TLSOptions;
  /** Octal permissions of a unix socket address (OPA's --unix-socket-perm, default 755). */
  unixSocketPerm?: string;
  /**
   * Slow clients: the whole request head must arrive within headersMs (default 10 s) and the
   * whole request within requestMs (default 60 s), else the connection is closed (408).
   */
  timeouts?: { headersMs?: number; requestMs?: number };
}

export interface RunningServer {
  /** "http://host:port" of the listening socket. */
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

export function parseAddr(addr: string): { host: string; port: number } {
  const s = addr.replace(/^https?:\/\//, '');
  const i = s.lastIndexOf(':');
  if (i < 0) return { host: 'localhost', port: Number(s) };
  const host = s.slice(0, i).replace(/^\[|\]$/g, '') || '0.0.0.0';
  return { host, port: Number(s.slice(i + 1)) };
}

/** A unix socket address (`unix://path` or `unix:path`), or undefined for TCP. */
export function unixPath(addr: string): string | undefined {
  const m = /^unix:(?:\/\/)?(.+)$/.exec(addr);
  return m ? m[1] : undefined;
}

export function startServer(opts: StartOptions): Promise<RunningServer> {
  const logger = opts.logger ?? pino(opaLogOptions('info'));
  const addr = opts.addr ?? 'localhost:8181';
  const socketPath = unixPath(addr);
  const { host, port } = socketPath ? { host: '', port: 0 } : parseAddr(addr);
  const created = createApp({ ...opts, logger });
  const listeners = createListeners(created, logger);
  let stopReload: (() => void) | undefined;
  return new Promise((resolve, reject) => {
    // thrown here, a bad TLS setting rejects the promise like a failed listen
    const secure = opts.tls ? httpsOptions(opts.tls) : undefined;
    const headersMs = opts.timeouts?.headersMs ?? 10_000;
    const server = createAdaptorServer({
      fetch: listeners.fetch as (req: Request, env: unknown) => Response | Promise<Response>,
      hostname: host || undefined,
      // how often Node checks the timeouts below (its default, 30 s, would let a slow client stay that long)
      serverOptions: { connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersMs / 2))) },
      createServer: ((options: object, hono: Parameters<typeof listeners.wrap>[0]) => {
        if (!secure) return createServer(options, listeners.wrap(hono));
        const s = createHttpsServer({ ...options, ...secure }, listeners.wrap(hono));
        stopReload = reloadCertificates(s, opts.tls!, secure, logger);
        return s;
      }) as never,
    }) as Server;
    // a client trickling its headers or body (slowloris) cannot hold a connection for long
    server.headersTimeout = headersMs;
    server.requestTimeout = opts.timeouts?.requestMs ?? 60_000;
    server.once('error', reject);
    // plain HTTP: decisions are read straight from the socket (raw-decisions.ts)
    const raw = !secure && listeners.raw ? installRawDecisions(server, listeners.raw) : undefined;
    // in a worker: its connections are counted, to spread them over the workers
    const counted = opts.cluster?.connection;
    if (counted && !opts.diagnostic) server.on('connection', (socket: Socket) => counted(socket));
    const ready = () => {
      let url: string;
      let info: AddressInfo | undefined;
      if (socketPath) {
        // OPA's --unix-socket-perm (default 755)
        chmodSync(socketPath, parseInt(opts.unixSocketPerm ?? '755', 8));
        url = `unix://${socketPath}`;
      } else {
        info = server.address() as AddressInfo;
        const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        url = `${secure ? 'https' : 'http'}://${shownHost}:${info.port}`;
      }
      logger.info({ addrs: [url] }, opts.diagnostic ? 'Initializing diagnostic server.' : 'Initializing server.');
      let closing: Promise<void> | undefined;
      resolve({
        url,
        port: info?.port ?? 0,
        host: info?.address ?? socketPath!,
        close: () => {
          stopReload?.();
          return (closing ??= shutdown(server, raw, logger, opts.shutdownGraceMs ?? 10_000));
        },
      });
    };
    if (socketPath) server.listen(socketPath, ready);
    else server.listen(port, host, ready);
  });
}

function shutdown(server: Server, raw: RawDecisions | undefined, logger: Logger, graceMs: number): Promise<void> {
  logger.info('Shutting down...');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      raw?.closeAll();
      server.closeAllConnections();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      logger.info('Server shutdown.');
      resolve();
    });
    // Idle keep-alive sockets would hold close() open; busy ones finish their request first.
    server.closeIdleConnections();
    raw?.closeIdle();
  });
}
