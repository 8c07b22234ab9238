// The HTTP every adapter shares, written once: JSON requests through the configured
// service (its URL, headers and credentials), retries with exponential backoff and jitter
// on throttling (429, honouring Retry-After per service and resource: waited for up to
// retry.max_delay_seconds, the read deferred beyond), server errors and timeouts; responses kept
// while their Cache-Control allows and revalidated with their ETag; a size limit on
// bodies; and errors that say which request failed and how.

import type { ServiceConfig } from '../config/types.js';
import { ServiceClient, ServiceRequestError } from '../services/client.js';
import { REAL_TIMING, sleep, type Timing } from '../timing.js';
import type { JSONValue } from './types.js';

export interface RetryPolicy {
  /** Retries after the first attempt of a request. */
  maxRetries: number;
  /** Cap of one backoff wait, and of an honoured Retry-After. */
  maxDelaySeconds: number;
  maxResponseBytes: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, maxDelaySeconds: 60, maxResponseBytes: 64 * 1024 * 1024 };

/**
 * Retry waits without a Retry-After: exponential from one second (a rate limiter's window
 * is seconds, not OPA's 100 ms), doubled per retry, with equal jitter (half fixed, half
 * random, so clients do not retry in step), capped at maxMs.
 */
export function retryDelayMs(t: Timing, attempt: number, maxMs: number): number {
  const d = Math.min(t.msPerSecond * 2 ** Math.min(attempt, 30), maxMs);
  return Math.round(d / 2 + (t.random() * d) / 2);
}

export class AdapterHttpError extends Error {
  constructor(
    message: string,
    readonly httpCode?: number,
    /** The API's error body, when it sent one. */
    readonly body?: JSONValue,
  ) {
    super(message);
    this.name = 'AdapterHttpError';
  }
}

export interface JSONRequest {
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT';
  /** Path under the service URL, already encoded. */
  path: string;
  /** Query parameters; a list repeats the parameter (eventTypes=a&eventTypes=b). */
  query?: Record<string, string | number | boolean | undefined | (string | number)[]>;
  body?: JSONValue;
  headers?: Record<string, string>;
  /** Send the service's bearer token in this header instead of Authorization. */
  tokenHeader?: string;
}

export interface JSONResponse {
  status: number;
  json: JSONValue;
  headers: Record<string, string | string[] | undefined>;
}

interface Cached {
  etag?: string;
  /** Epoch ms until which the copy is fresh without asking (Cache-Control max-age). */
  freshUntil: number;
  res: JSONResponse;
}

/**
 * A resource is throttled for longer than the adapter waits (retry.max_delay_seconds): the
 * read is deferred until `until` (epoch ms), not failed; no request goes to the resource
 * before then.
 */
export class AdapterDeferred extends AdapterHttpError {
  constructor(
    message: string,
    readonly until: number,
  ) {
    super(message, 429);
    this.name = 'AdapterDeferred';
  }
}

/** Until when (epoch ms) each resource of a service is throttled, by its Retry-After; shared by every adapter of the service. */
const throttles = new WeakMap<ServiceClient, Map<string, number>>();

function throttlesOf(c: ServiceClient): Map<string, number> {
  let m = throttles.get(c);
  if (!m) throttles.set(c, (m = new Map()));
  return m;
}

/** The resource a Retry-After applies to: the path without its query (pages of one list are one resource). */
const resourceOf = (path: string): string => path.split('?')[0]!;

/** Counters a caller can show (and tests assert). */
export interface HttpStats {
  requests: number;
  retries: number;
  throttled: number;
  cacheHits: number;
  notModified: number;
}

const RETRIABLE = new Set([429, 500, 502, 503, 504]);

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(v: string | undefined, now = Date.now()): number | undefined {
  if (!v) return undefined;
  if (/^\s*\d+\s*$/.test(v)) return Number(v);
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, (t - now) / 1000);
}

function cacheControl(v: string | undefined): { maxAge?: number; noStore: boolean } {
  const out: { maxAge?: number; noStore: boolean } = { noStore: false };
  for (const part of (v ?? '').split(',')) {
    const [k, x] = part.trim().toLowerCase().split('=');
    if (k === 'no-store') out.noStore = true;
    else if (k === 'no-cache') out.maxAge = 0;
    else if (k === 'max-age' && x !== undefined && /^\d+$/.test(x)) out.maxAge ??= Number(x);
  }
  return out;
}

/** The query appended to `path` (which may carry a query of its own). */
function withQuery(path: string, q: JSONRequest['query']): string {
  if (!q) return path;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(x))}`);
  }
  if (!parts.length) return path;
  return path + (path.includes('?') ? '&' : '?') + parts.join('&');
}

/** Responses kept at most (the oldest goes first): page tokens and time windows make new paths all the time. */
const CACHE_ENTRIES = 256;

/** A short description of an error body (the API's `message` when it has one). */
function describeBody(json: JSONValue | undefined, text: string): string {
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const m = json['message'] ?? json['error'];
    if (typeof m === 'string') return m;
    if (m && typeof m === 'object' && !Array.isArray(m) && typeof m['message'] === 'string') return m['message'];
  }
  const t = text.trim();
  return t.length > 200 ? t.slice(0, 200) + '...' : t;
}

/**
 * An integration's client for one service outside a running adapter (a one-shot command
 * such as `regolith deps-check`): the service's URL, headers and credentials, real time,
 * the default retries.
 */
export function adapterHttpFor(service: ServiceConfig): AdapterHttp {
  return new AdapterHttp(new ServiceClient(service), REAL_TIMING, DEFAULT_RETRY);
}

export class AdapterHttp {
  readonly stats: HttpStats;
  private readonly cache: Map<string, Cached>;

  /** `shared`: another AdapterHttp of the same adapter whose cache and counters this one uses (a read with its own deadline). */
  constructor(
    readonly client: ServiceClient,
    private readonly timing: Timing,
    private readonly policy: RetryPolicy = DEFAULT_RETRY,
    private readonly signal?: AbortSignal,
    shared?: AdapterHttp,
  ) {
    this.stats = shared?.stats ?? { requests: 0, retries: 0, throttled: 0, cacheHits: 0, notModified: 0 };
    this.cache = shared?.cache ?? new Map();
  }

  /**
   * Waits out a Retry-After the service gave for this resource earlier; throws
   * AdapterDeferred when that is longer than the adapter waits.
   */
  private async throttleWait(what: string, path: string): Promise<void> {
    const until = throttlesOf(this.client).get(resourceOf(path));
    if (until === undefined) return;
    const ms = until - Date.now();
    if (ms <= 0) {
      throttlesOf(this.client).delete(resourceOf(path));
      return;
    }
    if (ms > this.policy.maxDelaySeconds * this.timing.msPerSecond) {
      throw new AdapterDeferred(`${what}: throttled (429) for another ${Math.ceil(ms / this.timing.msPerSecond)}s (Retry-After): read deferred`, until);
    }
    if (!(await sleep(ms, this.signal ?? new AbortController().signal))) throw new AdapterHttpError(`${what}: canceled`);
  }

  /** A JSON request; retried on throttling, server errors and network failures. */
  async json(r: JSONRequest): Promise<JSONResponse> {
    const method = r.method ?? 'GET';
    const path = withQuery(r.path, r.query);
    const what = `${method} ${this.client.url(path)}`;
    const cached = method === 'GET' ? this.cache.get(path) : undefined;
    if (cached && cached.freshUntil > Date.now()) {
      this.stats.cacheHits++;
      return cached.res;
    }
    const body = r.body === undefined ? undefined : Buffer.from(JSON.stringify(r.body));
    const headers: Record<string, string> = { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...r.headers };
    if (cached?.etag) headers['if-none-match'] = cached.etag;
    for (let attempt = 0; ; attempt++) {
      if (this.signal?.aborted) throw new AdapterHttpError(`${what}: canceled`);
      await this.throttleWait(what, path);
      let retry: { error: AdapterHttpError; waitMs?: number };
      try {
        this.stats.requests++;
        const res = await this.client.request({
          method,
          path,
          headers,
          body,
          signal: this.signal,
          maxResponseBytes: this.policy.maxResponseBytes,
          tokenHeader: r.tokenHeader,
        });
        const h = res.headers as JSONResponse['headers'];
        if (res.status === 304 && cached) {
          this.stats.notModified++;
          this.remember(path, h, cached.res);
          return cached.res;
        }
        const out = this.decode(what, res.status, h, res.body);
        if (!(out instanceof AdapterHttpError)) {
          if (method === 'GET') this.remember(path, h, out);
          return out;
        }
        if (out.httpCode === undefined || !RETRIABLE.has(out.httpCode)) throw out;
        retry = { error: out };
        const after = retryAfterSeconds(typeof h['retry-after'] === 'string' ? h['retry-after'] : undefined);
        if (out.httpCode === 429) this.stats.throttled++;
        if (after !== undefined && (out.httpCode === 429 || out.httpCode === 503)) {
          // remembered for the resource: no request (this adapter's or another's) goes there before
          const until = Date.now() + after * this.timing.msPerSecond;
          throttlesOf(this.client).set(resourceOf(path), until);
          if (after > this.policy.maxDelaySeconds) throw new AdapterDeferred(`${what}: throttled (${out.httpCode}) for ${Math.ceil(after)}s (Retry-After), longer than the adapter waits (${this.policy.maxDelaySeconds}s): read deferred`, until);
          retry.waitMs = 0; // throttleWait waits it out before the next attempt
        }
      } catch (e) {
        if (!(e instanceof ServiceRequestError)) throw e;
        // an oversized body will be oversized again; a network failure or timeout may pass
        if (/larger than/.test(e.message)) throw new AdapterHttpError(e.message);
        retry = { error: new AdapterHttpError(e.message) };
      }
      if (attempt >= this.policy.maxRetries) throw retry.error;
      this.stats.retries++;
      const delay = retry.waitMs ?? retryDelayMs(this.timing, attempt, this.policy.maxDelaySeconds * this.timing.msPerSecond);
      if (delay > 0 && !(await sleep(delay, this.signal ?? new AbortController().signal))) throw new AdapterHttpError(`${what}: canceled`);
    }
  }

  /** A response as JSON, or the error it is (a status outside 2xx, a body that is not JSON). */
  private decode(what: string, status: number, h: JSONResponse['headers'], raw: Buffer): JSONResponse | AdapterHttpError {
    const text = raw.toString('utf8');
    let json: JSONValue | undefined;
    let parseError: string | undefined;
    try {
      json = text === '' ? null : (JSON.parse(text) as JSONValue);
    } catch (e) {
      parseError = (e as Error).message;
    }
    if (status < 200 || status >= 300) return new AdapterHttpError(`${what}: server answered ${status}: ${describeBody(json, text)}`, status, json);
    if (parseError === undefined) return { status, json: json!, headers: h };
    const ctype = String(h['content-type'] ?? '');
    const kind = /edn/i.test(ctype) ? `an EDN body (${ctype}), not JSON` : `a body that is not JSON (${ctype || 'no content type'}: ${parseError})`;
    // not retriable: the same request gets the same body
    return new AdapterHttpError(`${what}: the server answered ${kind}`);
  }

  private remember(path: string, h: JSONResponse['headers'], res: JSONResponse): void {
    const cc = cacheControl(typeof h['cache-control'] === 'string' ? h['cache-control'] : undefined);
    const etag = typeof h['etag'] === 'string' ? h['etag'] : undefined;
    // kept only when it can serve: fresh for a while, or revalidated by its ETag
    if (cc.noStore || (!etag && !cc.maxAge)) {
      this.cache.delete(path);
      return;
    }
    this.cache.delete(path); // re-inserted last: the map's order is the age order
    this.cache.set(path, { etag, freshUntil: Date.now() + (cc.maxAge ?? 0) * this.timing.msPerSecond, res });
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }

  /**
   * Follows page tokens until the last page. A token seen twice is an error (a server that
   * loops would otherwise never end the read).
   */
  async pages<T>(page: (token: string | undefined) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let token: string | undefined;
    for (;;) {
      const p = await page(token);
      out.push(...p.items);
      if (!p.next) return out;
      if (seen.has(p.next)) throw new AdapterHttpError(`paging did not end: page token ${JSON.stringify(p.next)} came back twice`);
      seen.add(p.next);
      token = p.next;
    }
  }
}
