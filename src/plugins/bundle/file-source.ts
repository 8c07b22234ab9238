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
import { jitteredDelayMs, type Timing } from '../timing.js';
import { PollingSource, type DownloadResult } from './polling-source.js';

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

export class FileSource extends PollingSource {
  constructor(private readonly opts: FileSourceOptions) {
    super(opts.config.trigger === 'manual', opts.onResult);
  }

  protected delayAfter(): number {
    const { polling } = this.opts.config;
    return jitteredDelayMs(this.opts.timing, polling.min_delay_seconds, polling.max_delay_seconds);
  }

  protected fetchOnce(): DownloadResult {
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
