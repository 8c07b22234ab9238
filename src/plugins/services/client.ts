// A client for one configured service: requests relative to the service URL with its
// headers and credentials (bearer token, OAuth2 client credentials, client TLS), a limit
// on the wait for response headers, and cancellation. node:http(s) is used rather than
// fetch so that TLS settings (CA, client certificates, insecure mode) apply per service.

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

/** One HTTP exchange with a header timeout; rejects with ServiceRequestError. */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  tlsOpts: TLSOptions,
  headerTimeoutMs: number,
  signal?: AbortSignal,
  maxResponseBytes?: number,
): Promise<ServiceResponse> {
  const u = new URL(url);
  const isHttps = u.protocol === 'https:';
  const lib = isHttps ? https : http;
  const what = `${goMethod(method)} "${url}"`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (err: Error | undefined, res?: ServiceResponse): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res!);
    };
    const req = lib.request(
      u,
      {
        method,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        ...(isHttps ? { ca: tlsOpts.ca, cert: tlsOpts.cert, key: tlsOpts.key, passphrase: tlsOpts.passphrase, rejectUnauthorized: tlsOpts.rejectUnauthorized } : {}),
        agent: false,
      },
      (res) => {
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
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
    }
    req.on('error', (e: NodeJS.ErrnoException) => {
      const msg = e.code === 'ECONNREFUSED' ? `dial tcp ${u.host}: connect: connection refused` : e.message;
      done(new ServiceRequestError(`${what}: ${msg}`));
    });
    req.end(body);
  });
}

export class ServiceClient {
  readonly config: ServiceConfig;
  private tlsOpts: TLSOptions | undefined;
  private readonly oauth2: OAuth2TokenSource | undefined;
  /** Milliseconds per configured second (tests shrink it). */
  private readonly msPerSecond: number;

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
    const res = await rawRequest(this.url(r.path), r.method, headers, r.body, this.tls(), timeout, r.signal, r.maxResponseBytes);
    // A rejected token may have been revoked early: fetch a fresh one next time.
    if (res.status === 401 && this.oauth2) this.oauth2.invalidate();
    return res;
  }
}
