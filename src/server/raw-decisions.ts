// Decisions answered below Node's HTTP layer. For the requests of a decision service
// (`POST /v1/data/<path>` with a small JSON body, kept-alive connections) Node's
// IncomingMessage and ServerResponse streams cost more CPU than the decision itself: a
// bare node:http server that only parses the body spends ~23 µs a request here, one that
// reads the same requests from the socket ~12 µs. So each plain-HTTP connection starts
// here: complete requests of the strict shape raw-head.ts reads are answered straight on
// the socket, with the bytes Node would write (raw-decisions.test.ts compares them). At the
// first byte of anything else (another route, a request split over reads, a header
// outside the subset) the connection is handed to Node's own HTTP server with the unread
// bytes put back, for good: from there Node reads, limits, times out and answers as
// always. TLS, the authorization gate and tracing keep Node's path throughout.

import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerContext } from './context.js';
import type { RequestHead } from './body.js';
import type { RequestObserver } from './observe.js';
import type { ClusterHooks } from './cluster.js';
import type { Reply } from './reply.js';
import { answerDecision, DECISION_HANDLER } from './fast-decision.js';
import { readRawRequest } from './raw-head.js';

/** Requests answered here and connections handed to Node, over the process (tests read them). */
export const rawCounts = { answered: 0, handedOver: 0 };

export interface RawDecisionOptions {
  ctx: ServerContext;
  obs: RequestObserver;
  cluster?: ClusterHooks;
}

/** The connections being served here, for the server's shutdown. */
export interface RawDecisions {
  /** Closes idle connections now and the others after the answer they owe (Node's closeIdleConnections). */
  closeIdle(): void;
  /** Destroys every connection still served here (Node's closeAllConnections). */
  closeAll(): void;
}

/**
 * Takes over `server`'s new connections (see the top of this file); undefined, and the
 * server left as it is, where it is not the plain node:http server this expects.
 */
export function installRawDecisions(server: Server, opts: RawDecisionOptions): RawDecisions | undefined {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1 || (server.maxRequestsPerSocket ?? 0) > 0) return undefined;
  const nodeConnection = listeners[0] as (socket: Socket) => void;
  server.removeListener('connection', nodeConnection);
  const state: Shared = {
    server,
    opts,
    open: new Set(),
    closing: false,
    handOver: (socket) => nodeConnection.call(server, socket),
  };
  server.on('connection', (socket: Socket) => {
    // a connection accepted after close() began is Node's to refuse or serve
    if (state.closing) state.handOver(socket);
    else state.open.add(new RawConnection(socket, state));
  });
  return {
    closeIdle() {
      state.closing = true;
      for (const c of state.open) c.closeIfIdle();
    },
    closeAll() {
      state.closing = true;
      for (const c of state.open) c.destroy();
    },
  };
}

interface Shared {
  server: Server;
  opts: RawDecisionOptions;
  open: Set<RawConnection>;
  /** The server is shutting down: every answer from now on closes its connection. */
  closing: boolean;
  handOver(socket: Socket): void;
}

class RawConnection {
  /** Bytes received and not yet answered. */
  private pending: Buffer | undefined;
  /**
   * Reading waits: an answer is awaited (evaluation or gzip waiting on I/O; later requests
   * wait for it), or the client is not reading what was written (the socket's buffer is
   * past its high-water mark). The socket is paused meanwhile, so neither the bytes read
   * nor the answers written pile up in memory.
   */
  private busy = false;
  /** Of those: an answer is awaited (a drain alone must not let later requests overtake it). */
  private awaiting = false;
  /** The client has ended its side: close ours once everything owed is written. */
  private ended = false;
  private done = false;
  private readonly onData = (chunk: Buffer): void => {
    this.pending = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    if (!this.busy) this.serve();
  };
  private readonly onEnd = (): void => {
    this.ended = true;
    if (!this.busy && this.pending === undefined) this.end();
  };
  private readonly onDrain = (): void => this.unblock();
  private readonly onTimeout = (): void => {
    // Node's keep-alive timeout: an idle connection is closed; one awaiting its answer is not idle
    if (!this.busy) this.destroy();
  };
  private readonly onError = (): void => this.destroy();
  private readonly onClose = (): void => {
    this.done = true;
    this.shared.open.delete(this);
  };

  constructor(
    private readonly socket: Socket,
    private readonly shared: Shared,
  ) {
    for (const [event, fn] of this.listeners()) socket.on(event, fn);
    // idle between requests (or silent from the start): Node's keep-alive timeout, else its headers timeout
    const ms = shared.server.keepAliveTimeout || shared.server.headersTimeout;
    if (ms > 0) socket.setTimeout(ms);
  }

  /** This connection's socket listeners: added when it starts, all removed when Node takes it. */
  private listeners(): [string, (chunk: Buffer) => void][] {
    return [
      ['data', this.onData],
      ['end', this.onEnd],
      ['drain', this.onDrain],
      ['error', this.onError],
      ['close', this.onClose],
      ['timeout', this.onTimeout],
    ];
  }

  closeIfIdle(): void {
    if (!this.busy) this.destroy();
  }

  destroy(): void {
    this.done = true;
    this.shared.open.delete(this);
    this.socket.destroy();
  }

  /** Answers the complete requests in `pending`, in order, until one must be awaited or is Node's. */
  private serve(): void {
    const { ctx, obs, cluster } = this.shared.opts;
    const socket = this.socket;
    const b = this.pending!;
    this.pending = undefined;
    let at = 0;
    let out = '';
    try {
      // (done: the socket failed or closed while answers were written; the rest is moot)
      while (at < b.length && !this.done) {
        const r = readRawRequest(b, at, ctx.limits.maxLength);
        if (typeof r === 'number' || cluster?.owns('POST', r.url)) {
          if (out !== '') socket.write(out);
          this.handOver(b.subarray(at));
          return;
        }
        rawCounts.answered++;
        const head: RequestHead = { method: 'POST', url: r.url, headers: r.headers, socket };
        const start = obs.begin(head);
        const body = b.subarray(r.bodyStart, r.bodyEnd);
        at = r.bodyEnd;
        // a worker over its share of connections, or a server shutting down, closes this one after its answer
        const close = this.shared.closing || (cluster?.shed?.(socket) ?? false);
        const held = cluster?.hold();
        const reply = held ? held.then(() => answerDecision(ctx, head, body)) : answerDecision(ctx, head, body);
        if (reply instanceof Promise) {
          if (out !== '') socket.write(out);
          this.awaiting = true;
          this.block(at < b.length ? b.subarray(at) : undefined);
          reply.then(
            (rep) => {
              this.awaiting = false;
              obs.end(head, start, rep.status, DECISION_HANDLER);
              if (this.done) return;
              // shutdown may have begun while the answer was awaited
              const closeNow = close || this.shared.closing;
              this.write(rep, closeNow);
              if (closeNow) this.end();
              else this.unblock();
            },
            // answerDecision turns every failure into a reply: only a bug gets here
            (e: unknown) => this.fail(e),
          );
          return;
        }
        obs.end(head, start, reply.status, DECISION_HANDLER);
        if (typeof reply.body === 'string' && !close) {
          out += responseText(this.shared.server, reply, false);
          continue;
        }
        if (out !== '') socket.write(out);
        out = '';
        this.write(reply, close);
        if (close) {
          this.end();
          return;
        }
      }
    } catch (e) {
      this.fail(e);
      return;
    }
    if (out !== '' && !socket.write(out)) this.block(undefined);
    else if (this.ended) this.end();
  }

  /** Stops reading until unblock(); `rest`: bytes read and not yet answered. */
  private block(rest: Buffer | undefined): void {
    this.busy = true;
    this.pending = rest;
    this.socket.pause();
  }

  /** Reads again once nothing is awaited and the client has taken what was written. */
  private unblock(): void {
    if (this.done || this.awaiting || this.socket.writableNeedDrain) return;
    this.busy = false;
    this.socket.resume();
    if (this.pending !== undefined) this.serve();
    else if (this.ended) this.end();
  }

  /** A failure no reply stands for (a bug): logged, and the connection dropped rather than left hanging. */
  private fail(e: unknown): void {
    this.shared.opts.ctx.logger?.error({ err: e }, 'a decision failed without an answer');
    this.destroy();
  }

  private write(reply: Reply, close: boolean): void {
    if (typeof reply.body === 'string') this.socket.write(responseText(this.shared.server, reply, close));
    else {
      this.socket.cork();
      this.socket.write(responseHead(this.shared.server, reply, reply.body.length, close), 'latin1');
      this.socket.write(reply.body);
      this.socket.uncork();
    }
  }

  /** Closes our side once what was written is sent (after `Connection: close`, or the client's end). */
  private end(): void {
    if (this.done) return;
    this.done = true;
    this.shared.open.delete(this);
    this.socket.removeListener('data', this.onData);
    this.socket.end();
  }

  /** Gives the connection, with `rest` unread, to Node's HTTP server. */
  private handOver(rest: Buffer): void {
    const socket = this.socket;
    rawCounts.handedOver++;
    this.shared.open.delete(this);
    this.done = true;
    // paused, so that the bytes put back wait for Node's listener; resumed once it listens
    socket.pause();
    for (const [event, fn] of this.listeners()) socket.removeListener(event, fn);
    socket.setTimeout(0);
    if (rest.length > 0) socket.unshift(rest);
    this.shared.handOver(socket);
    socket.resume();
  }
}

/** The response as Node's ServerResponse writes it after writeReply (reply.ts). */
function responseText(server: Server, reply: Reply, close: boolean): string {
  const body = reply.body as string;
  return responseHead(server, reply, Buffer.byteLength(body), close) + body;
}

function responseHead(server: Server, reply: Reply, length: number, close: boolean): string {
  const headers = reply.headers;
  headers['content-length'] = String(length);
  let h = 'HTTP/1.1 ' + reply.status + ' ' + (STATUS_CODES[reply.status] ?? 'unknown') + '\r\n';
  for (const k in headers) h += k + ': ' + headers[k] + '\r\n';
  h += 'Date: ' + dateText() + '\r\n';
  if (close) return h + 'Connection: close\r\n\r\n';
  const ms = server.keepAliveTimeout;
  return h + (ms ? 'Connection: keep-alive\r\nKeep-Alive: timeout=' + Math.floor(ms / 1000) + '\r\n\r\n' : 'Connection: keep-alive\r\n\r\n');
}

let date = '';
let dateUntil = 0;

/** The Date header's text, made once a second (as Node's utcDate()). */
function dateText(): string {
  const now = Date.now();
  if (now >= dateUntil) {
    date = new Date(now).toUTCString();
    dateUntil = now - (now % 1000) + 1000;
  }
  return date;
}
