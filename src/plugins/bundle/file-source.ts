// A bundle whose resource is a file:// URL: read from the local disk instead of a service,
// on the same schedule as a download (min/max delay, or manual trigger). A .tar.gz is
// handed over as is; a directory laid out as a bundle is packed into one, so that
// verification, activation and persistence take the same path as downloaded archives.
// The content hash plays the ETag: an unchanged file is "not modified".

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packEntries, readDirectoryEntries } from '../../bundle/index.js';
import type { BundleSourceConfig } from '../config/types.js';
import { jitteredDelayMs, sleep, type Timing } from '../timing.js';
import type { DownloadResult } from './download.js';

export interface FileSourceOptions {
  config: BundleSourceConfig;
  timing: Timing;
  onResult: (r: DownloadResult) => Promise<void>;
  /** The "ETag" (content hash) of the active bundle. */
  etag: () => string | undefined;
}

/** file:///abs/path and file://rel/path (OPA's loader accepts both) -> a filesystem path. */
export function filePathOf(resource: string): string {
  if (resource.startsWith('file:///')) return fileURLToPath(resource);
  return resource.slice('file://'.length);
}

export class FileSource {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly opts: FileSourceOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  async once(): Promise<void> {
    await this.opts.onResult(this.readOnce());
  }

  private async run(): Promise<void> {
    const manual = this.opts.config.trigger === 'manual';
    const { polling } = this.opts.config;
    while (!this.abort.signal.aborted) {
      if (manual) {
        await new Promise<void>((r) => (this.wake = r));
        if (this.abort.signal.aborted) return;
      }
      try {
        await this.opts.onResult(this.readOnce());
      } catch {
        /* onResult reports its own errors */
      }
      if (manual) continue;
      const delay = jitteredDelayMs(this.opts.timing, polling.min_delay_seconds, polling.max_delay_seconds);
      if (!(await sleep(delay, this.abort.signal))) return;
    }
  }

  private readOnce(): DownloadResult {
    const t0 = process.hrtime.bigint();
    const took = (): number => Number(process.hrtime.bigint() - t0);
    const path = filePathOf(this.opts.config.resource);
    try {
      const archive = statSync(path).isDirectory() ? packEntries(readDirectoryEntries(path)) : readFileSync(path);
      const limit = this.opts.config.size_limit_bytes;
      if (limit !== undefined && archive.length > limit) {
        return { kind: 'error', message: `bundle exceeds the size limit of ${limit} bytes`, requestNs: took() };
      }
      const etag = createHash('sha256').update(archive).digest('hex');
      if (etag === this.opts.etag()) return { kind: 'not-modified', requestNs: took() };
      return { kind: 'bundle', archive, etag, requestNs: took() };
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const message = err.code === 'ENOENT' ? `open ${path}: no such file or directory` : err.message;
      return { kind: 'error', message, requestNs: took() };
    }
  }
}
