// The network side of http.send: one request with node:http/https (TLS options, timeout,
// redirects, retries), returning the response shaped as OPA returns it or an error shaped
// as Go's url.Error prints. Never rejects: errors are values.

import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import yaml from 'js-yaml';
import type { Value } from '../../../value/index.js';
import { spans } from '../../spans.js';

export interface SendOptions {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  enableRedirect: boolean;
  forceJson: boolean;
  forceYaml: boolean;
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
  insecure: boolean;
  serverName?: string;
  useSystemCerts: boolean;
  maxRetries: number;
}

export interface SendResult {
  response?: Record<string, Value>;
  /** Response headers as received (for the cache). */
  headers?: Record<string, string[]>;
  error?: { message: string; timeout: boolean };
}

/** Go's url.Error op: "Get", "Post", ... */
function goOp(method: string): string {
  return method.charAt(0).toUpperCase() + method.slice(1).toLowerCase();
}

function netMessage(err: NodeJS.ErrnoException, u: URL): string {
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${host}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return err.message;
  }
}

function hasType(headers: Record<string, string[]>, ...types: string[]): boolean {
  const ct = headers['content-type']?.[0];
  if (!ct) return false;
  const mt = ct.split(';')[0]!.trim().toLowerCase();
  return types.includes(mt);
}

function once(opts: SendOptions, url: string, redirects: number): Promise<SendResult> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      resolve({ error: { message: `${goOp(opts.method)} ${JSON.stringify(url)}: unsupported protocol scheme ""`, timeout: false } });
      return;
    }
    const isHttps = u.protocol === 'https:';
    if (!isHttps && u.protocol !== 'http:') {
      const scheme = u.protocol.replace(/:$/, '');
      resolve({ error: { message: `${goOp(opts.method)} ${JSON.stringify(url)}: unsupported protocol scheme ${JSON.stringify(scheme)}`, timeout: false } });
      return;
    }
    const reqOpts: https.RequestOptions = {
      method: opts.method.toUpperCase(),
      headers: { ...opts.headers },
      agent: false,
    };
    if (isHttps) {
      if (opts.caCert) reqOpts.ca = opts.useSystemCerts ? [...tls.rootCertificates, opts.caCert] : [opts.caCert];
      if (opts.clientCert) reqOpts.cert = opts.clientCert;
      if (opts.clientKey) reqOpts.key = opts.clientKey;
      reqOpts.rejectUnauthorized = !opts.insecure;
      if (opts.serverName) reqOpts.servername = opts.serverName;
    }
    if (opts.body !== undefined) (reqOpts.headers as Record<string, string>)['content-length'] ??= String(Buffer.byteLength(opts.body));
    // distributed tracing: a client span per round trip, its traceparent sent along
    const span = spans()?.client(reqOpts.method!, u);
    if (span) Object.assign(reqOpts.headers as Record<string, string>, span.headers);
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      span?.end(r.response?.status_code as number | undefined, r.error?.message);
      resolve(r);
    };
    const req = (isHttps ? https : http).request(u, reqOpts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => done({ error: { message: `${goOp(opts.method)} ${JSON.stringify(url)}: ${e.message}`, timeout: false } }));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const headers: Record<string, string[]> = Object.create(null);
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          const k = res.rawHeaders[i]!.toLowerCase();
          (headers[k] ??= []).push(res.rawHeaders[i + 1]!);
        }
        const location = headers['location']?.[0];
        if (opts.enableRedirect && location && [301, 302, 303, 307, 308].includes(status)) {
          if (redirects >= 10) {
            done({ error: { message: `${goOp(opts.method)} ${JSON.stringify(location)}: stopped after 10 redirects`, timeout: false } });
            return;
          }
          const next = new URL(location, u).toString();
          const again = status === 303 || ((status === 301 || status === 302) && opts.method.toUpperCase() === 'POST')
            ? { ...opts, method: 'GET', body: undefined }
            : opts;
          void once(again, next, redirects + 1).then(done);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: Value = null;
        try {
          if (opts.forceJson || hasType(headers, 'application/json')) body = JSON.parse(raw) as Value;
          else if (opts.forceYaml || hasType(headers, 'application/yaml', 'application/x-yaml')) {
            body = (yaml.load(raw) ?? null) as Value;
          }
        } catch {
          body = null; // OPA leaves body null when it cannot be decoded
        }
        const hdrs: Record<string, Value> = Object.create(null);
        for (const k of Object.keys(headers)) hdrs[k] = headers[k]!;
        done({
          headers,
          response: {
            status: `${status} ${res.statusMessage ?? http.STATUS_CODES[status] ?? ''}`.trim(),
            status_code: status,
            headers: hdrs,
            body,
            raw_body: raw,
          },
        });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      done({
        error: {
          message: `${goOp(opts.method)} ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
          timeout: true,
        },
      });
    }, opts.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) =>
      done({ error: { message: `${goOp(opts.method)} ${JSON.stringify(url)}: ${netMessage(e, u)}`, timeout: false } }),
    );
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Sends with retries on network errors (exponential backoff, as OPA). */
export async function send(opts: SendOptions): Promise<SendResult> {
  let r = await once(opts, opts.url, 0);
  for (let i = 0; r.error && i < opts.maxRetries; i++) {
    await new Promise((res) => setTimeout(res, Math.min(100 * 2 ** i, 2000)));
    r = await once(opts, opts.url, 0);
  }
  return r;
}
