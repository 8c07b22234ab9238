// A client for one configured service: requests relative to the service URL with its
// headers and credentials (bearer token, OAuth2 client credentials, client TLS), a limit
// on the wait for response headers, and cancellation. node:http(s) is used rather than
// fetch so that TLS settings (CA, client certificates, insecure mode) apply per service.
// Each client keeps its connections alive (one http and one https Agent per service, a
// bounded number of sockets): a decision-log chunk or a bundle poll does not pay a TCP (and
// TLS) handshake each time. Idle sockets do not hold the process open; close() ends them.
//
// A kept-alive connection may be closed by the server just as a request is sent on it. As
// Go's transport, the request is then sent again on a new connection only when that cannot
// repeat it: a safe method (GET, HEAD, OPTIONS: no side effects), or no byte of the request
// was handed to the socket. A POST the server may have received is never sent twice: its
// failure is reported (the decision-log plugin keeps the events and retries them later).

import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { environmentCredentials, signV4 } from './sigv4.js';
import type { ServiceConfig } from '../config/types.js';
import { OAuth2TokenSource } from './oauth2.js';

export interface ServiceRequest {
  method: string;
  /** Path relative to the service URL (a leading slash is optional). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Overrides the service's response header timeout (e.g. for long polling). */
  headerTimeoutMs?: number;
  signal?: AbortSignal;
  /** A larger response body is refused (and its connection closed) instead of buffered. */
  maxResponseBytes?: number;
  /** Send the bearer token in this header, as is, instead of `Authorization: <scheme> <token>`. */
  tokenHeader?: string;
  /**
   * The Authorization header to send instead of the configured credentials (a registry's
   * token), or null for none (a redirect to another host must not carry them).
   */
  authorization?: string | null;
}

export interface ServiceResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class ServiceRequestError extends Error {
  constructor(message: string, readonly timeout = false) {
    super(message);
    this.name = 'ServiceRequestError';
  }
}

/** Joins a base URL and a resource path with exactly one slash, as OPA does. */
export function joinURL(base: string, path: string): string {
  if (/^https?:\/\//.test(path)) return path;
  return base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}

function goMethod(m: string): string {
  return m.charAt(0).toUpperCase() + m.slice(1).toLowerCase();
}

export interface TLSOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  passphrase?: string;
  rejectUnauthorized: boolean;
}

/** TLS material for a service, read from the configured files. */
export function tlsOptionsOf(cfg: ServiceConfig): TLSOptions {
  const read = (what: string, p: string): Buffer => {
    try {
      return readFileSync(p);
    } catch (e) {
      throw new ServiceRequestError(`service ${cfg.name}: cannot read ${what} ${p}: ${(e as Error).message}`);
    }
  };
  const o: TLSOptions = { rejectUnauthorized: !cfg.allow_insecure_tls };
  if (cfg.tls?.ca_cert) o.ca = read('CA certificate', cfg.tls.ca_cert);
  const ct = cfg.credentials.client_tls;
  if (ct) {
    o.cert = read('client certificate', ct.cert);
    o.key = read('client private key', ct.private_key);
    if (ct.private_key_passphrase) o.passphrase = ct.private_key_passphrase;
  }
  return o;
}

/** Connections kept per service (and per host it redirects to): at most this many at once. */
const MAX_SOCKETS = 16;
/** Idle connections kept per host. */
const MAX_FREE_SOCKETS = 4;
/** An idle connection is closed after this long (or the server's Keep-Alive hint less a second, if shorter). */
const IDLE_TIMEOUT_MS = 30_000;
/** How often a request is sent again after its reused connection failed (see above). */
const STALE_RETRIES = 2;
/** Methods without side effects: sent again after a reused connection failed before an answer. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The keep-alive agents of one service (created on first use). */
export class ServiceAgents {
  private httpAgent: http.Agent | undefined;
  private httpsAgent: https.Agent | undefined;

  get(isHttps: boolean): http.Agent {
    const o = { keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_FREE_SOCKETS, timeout: IDLE_TIMEOUT_MS, scheduling: 'lifo' as const };
    return isHttps ? (this.httpsAgent ??= new https.Agent(o)) : (this.httpAgent ??= new http.Agent(o));
  }

  /** Closes every connection (nothing in flight should go on); later requests open new ones. */
  close(): void {
    this.httpAgent?.destroy();
    this.httpsAgent?.destroy();
    this.httpAgent = this.httpsAgent = undefined;
  }
}

/**
 * Whether a request that failed with `err` may be sent again: its connection was a reused
 * one, no answer came, and either the method is safe or nothing of the request reached the
 * socket (`written`: the socket's byte count when it was handed to the request, or
 * undefined before that).
 */
function resendable(method: string, req: http.ClientRequest, err: NodeJS.ErrnoException, written: number | undefined): boolean {
  if (!req.reusedSocket || (err.code !== 'ECONNRESET' && err.code !== 'EPIPE')) return false;
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  return written !== undefined && req.socket !== null && req.socket.bytesWritten === written;
}

/**
 * One HTTP exchange with a header timeout; rejects with ServiceRequestError. With `agents`,
 * over a kept-alive connection of the service; without, a connection of its own.
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  tlsOpts: TLSOptions,
  headerTimeoutMs: number,
  signal?: AbortSignal,
  maxResponseBytes?: number,
  agents?: ServiceAgents,
): Promise<ServiceResponse> {
  const u = new URL(url);
  const isHttps = u.protocol === 'https:';
  const lib = isHttps ? https : http;
  const agent = agents ? agents.get(isHttps) : false;
  const what = `${goMethod(method)} "${url}"`;
  return new Promise((resolve, reject) => {
    let retries = STALE_RETRIES;
    let answered = false;
    let req: http.ClientRequest;
    let settled = false;
    const done = (err: Error | undefined, res?: ServiceResponse): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res!);
    };
    const send = (): void => {
      req = lib.request(
        u,
        {
          method,
          headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          ...(isHttps ? { ca: tlsOpts.ca, cert: tlsOpts.cert, key: tlsOpts.key, passphrase: tlsOpts.passphrase, rejectUnauthorized: tlsOpts.rejectUnauthorized } : {}),
          agent,
        },
        (res) => {
          answered = true;
          if (timer) clearTimeout(timer);
          timer = undefined;
          const chunks: Buffer[] = [];
          let size = 0;
          const tooLarge = (): void => {
            done(new ServiceRequestError(`${what}: response body larger than ${maxResponseBytes} bytes`));
            req.destroy();
          };
          const declared = Number(res.headers['content-length']);
          if (maxResponseBytes !== undefined && declared > maxResponseBytes) return tooLarge();
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (maxResponseBytes !== undefined && size > maxResponseBytes) {
              chunks.length = 0;
              return tooLarge();
            }
            chunks.push(c);
          });
          res.on('end', () => done(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', (e) => done(new ServiceRequestError(`${what}: ${e.message}`)));
          res.on('aborted', () => done(new ServiceRequestError(`${what}: unexpected EOF`)));
        },
      );
      // The socket's byte count when the request got it (nothing of the request is written before).
      let written: number | undefined;
      req.on('socket', (sock) => (written = sock.bytesWritten));
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (!answered && !settled && retries > 0 && resendable(method, req, e, written)) {
          retries--;
          return send();
        }
        const msg = e.code === 'ECONNREFUSED' ? `dial tcp ${u.host}: connect: connection refused` : e.message;
        done(new ServiceRequestError(`${what}: ${msg}`));
      });
      req.end(body);
    };
    let timer: NodeJS.Timeout | undefined =
      headerTimeoutMs > 0
        ? setTimeout(() => {
            done(new ServiceRequestError(`${what}: net/http: timeout awaiting response headers`, true));
            req.destroy();
          }, headerTimeoutMs)
        : undefined;
    const onAbort = (): void => {
      done(new ServiceRequestError(`${what}: context canceled`));
      req.destroy();
    };
    if (signal) {
      if (signal.aborted) return done(new ServiceRequestError(`${what}: context canceled`));
      signal.addEventListener('abort', onAbort, { once: true });
    }
    send();
  });
}

export class ServiceClient {
  readonly config: ServiceConfig;
  private tlsOpts: TLSOptions | undefined;
  private readonly oauth2: OAuth2TokenSource | undefined;
  /** Milliseconds per configured second (tests shrink it). */
  private readonly msPerSecond: number;
  private readonly agents = new ServiceAgents();

  constructor(config: ServiceConfig, msPerSecond = 1000) {
    this.config = config;
    this.msPerSecond = msPerSecond;
    const o = config.credentials.oauth2;
    if (o) this.oauth2 = new OAuth2TokenSource(o, () => this.tls(), config.response_header_timeout_seconds * msPerSecond);
  }

  private tls(): TLSOptions {
    return (this.tlsOpts ??= tlsOptionsOf(this.config));
  }

  /** The Authorization header value for the next request, if any. */
  async authorization(): Promise<string | undefined> {
    const b = this.config.credentials.bearer;
    if (b) return `${b.scheme} ${this.bearerToken()}`;
    if (this.oauth2) return `Bearer ${await this.oauth2.token()}`;
    return undefined;
  }

  /** The configured bearer token (re-read from token_path each time), or undefined. */
  bearerToken(): string | undefined {
    const b = this.config.credentials.bearer;
    if (b) {
      let token = b.token ?? '';
      // OPA re-reads token_path on every request so rotated tokens are picked up.
      if (b.token_path) {
        try {
          token = readFileSync(b.token_path, 'utf8').trim();
        } catch (e) {
          throw new ServiceRequestError(`service ${this.config.name}: cannot read bearer token file: ${(e as Error).message}`);
        }
      }
      return token;
    }
    return undefined;
  }

  /** SigV4 headers for a request (OPA's s3_signing with environment_credentials). */
  private sign(r: ServiceRequest, service: string): Record<string, string> {
    const creds = environmentCredentials();
    if (!creds) throw new ServiceRequestError(`service ${this.config.name}: s3_signing needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment`);
    const region = process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
    const body = typeof r.body === 'string' || Buffer.isBuffer(r.body) ? r.body : undefined;
    return signV4({ method: r.method, url: new URL(this.url(r.path)), headers: {}, body, region, service, now: new Date() }, creds);
  }

  url(path: string): string {
    return joinURL(this.config.url, path);
  }

  async request(r: ServiceRequest): Promise<ServiceResponse> {
    const headers: Record<string, string> = { 'user-agent': 'Regolith', ...this.config.headers, ...(r.headers ?? {}) };
    const token = r.tokenHeader ? this.bearerToken() : undefined;
    if (r.authorization !== undefined) {
      if (r.authorization !== null) headers['authorization'] = r.authorization;
    } else if (token !== undefined) headers[r.tokenHeader!.toLowerCase()] = token;
    else {
      const auth = await this.authorization();
      if (auth !== undefined) headers['authorization'] = auth;
    }
    const aws = this.config.credentials.s3_signing;
    if (aws) Object.assign(headers, this.sign(r, aws.service));
    const timeout = r.headerTimeoutMs ?? this.config.response_header_timeout_seconds * this.msPerSecond;
    const res = await rawRequest(this.url(r.path), r.method, headers, r.body, this.tls(), timeout, r.signal, r.maxResponseBytes, this.agents);
    // A rejected token may have been revoked early: fetch a fresh one next time.
    if (res.status === 401 && this.oauth2) this.oauth2.invalidate();
    return res;
  }

  /** Closes the kept-alive connections (the plugins stopped); a later request opens new ones. */
  close(): void {
    this.agents.close();
  }
}
