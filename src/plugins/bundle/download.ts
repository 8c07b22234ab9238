// Downloading one bundle from its service, repeatedly: GET <service>/<resource> with
// If-None-Match, 304 for "unchanged", a jittered delay between min and max seconds after
// a success, long polling (Prefer: wait=N) when configured and the server supports it,
// and exponential backoff after failures. Each outcome is handed to onResult.

import { STATUS_CODES } from 'node:http';
import type { BundleSourceConfig } from '../config/types.js';
import { ServiceRequestError, type ServiceClient } from '../services/client.js';
import { backoffMs, jitteredDelayMs, secondsToMs, type Timing } from '../timing.js';
import { PollingSource, type DownloadResult } from './polling-source.js';

/** Media type a server sends back to say it supports long polling (as OPA's servers do). */
export const LONG_POLLING_MEDIA_TYPE = 'application/vnd.openpolicyagent.bundles';

export type { DownloadResult } from './polling-source.js';

export interface DownloaderOptions {
  client: ServiceClient;
  config: BundleSourceConfig;
  timing: Timing;
  /** Handles one result; the next request waits for it (activation is serialised per bundle). */
  onResult: (r: DownloadResult) => Promise<void>;
  /** The ETag of the active bundle, sent as If-None-Match (cleared when activation fails). */
  etag: () => string | undefined;
}

export class Downloader extends PollingSource {
  private longPolling = false;
  private failures = 0;

  constructor(private readonly opts: DownloaderOptions) {
    super(opts.config.trigger === 'manual', opts.onResult);
  }

  protected delayAfter(res: DownloadResult): number {
    const { polling } = this.opts.config;
    if (res.kind === 'error') {
      return backoffMs(this.opts.timing, this.failures - 1, secondsToMs(this.opts.timing, polling.max_delay_seconds));
    }
    // In long-polling mode the server holds the request until something changes.
    if (this.longPolling) return 0;
    return jitteredDelayMs(this.opts.timing, polling.min_delay_seconds, polling.max_delay_seconds);
  }

  protected async fetchOnce(): Promise<DownloadResult> {
    const { client, config, timing } = this.opts;
    const headers: Record<string, string> = {};
    const etag = this.opts.etag();
    if (etag) headers['if-none-match'] = etag;
    let headerTimeoutMs: number | undefined;
    const lp = config.polling.long_polling_timeout_seconds;
    if (lp) {
      headers['prefer'] = `wait=${lp}`;
      // The server may hold the request for the whole wait; allow the usual margin on top.
      headerTimeoutMs = secondsToMs(timing, lp) + secondsToMs(timing, client.config.response_header_timeout_seconds || 10);
    }
    const t0 = process.hrtime.bigint();
    const took = (): number => Number(process.hrtime.bigint() - t0);
    try {
      const res = await client.request({ method: 'GET', path: config.resource, headers, headerTimeoutMs, signal: this.abort.signal });
      const ctype = String(res.headers['content-type'] ?? '');
      this.longPolling = !!lp && ctype.startsWith(LONG_POLLING_MEDIA_TYPE);
      if (res.status === 304) {
        this.failures = 0;
        return { kind: 'not-modified', requestNs: took() };
      }
      if (res.status === 200) {
        this.failures = 0;
        const limit = config.size_limit_bytes;
        if (limit !== undefined && res.body.length > limit) {
          this.failures++;
          return { kind: 'error', message: `bundle exceeds the size limit of ${limit} bytes`, requestNs: took() };
        }
        const tag = res.headers['etag'];
        return { kind: 'bundle', archive: res.body, etag: typeof tag === 'string' ? tag : undefined, requestNs: took() };
      }
      this.failures++;
      this.longPolling = false;
      return { kind: 'error', message: `server replied with ${STATUS_CODES[res.status] ?? res.status}`, httpCode: res.status, requestNs: took() };
    } catch (e) {
      this.failures++;
      this.longPolling = false;
      const message = e instanceof ServiceRequestError ? e.message : (e as Error).message;
      return { kind: 'error', message, requestNs: took() };
    }
  }
}
