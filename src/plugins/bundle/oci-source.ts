// A bundle from an OCI registry (services.<name>.type: oci), polled like any bundle: the
// reference's manifest is resolved, its first layer of the bundle media type is the
// archive, and the layer's digest is the bundle's ETag — an unchanged digest is "not
// modified" without downloading the layer again (as OPA's OCI downloader does).

import type { BundleSourceConfig } from '../config/types.js';
import { ServiceRequestError, type ServiceClient } from '../services/client.js';
import { BUNDLE_LAYER, OciError, OciRegistry, parseReference, type Reference } from '../services/oci.js';
import { backoffMs, jitteredDelayMs, secondsToMs, type Timing } from '../timing.js';
import { PollingSource, type DownloadResult } from './polling-source.js';

export interface OciSourceOptions {
  client: ServiceClient;
  config: BundleSourceConfig;
  timing: Timing;
  onResult: (r: DownloadResult) => Promise<void>;
  /** The digest (hex) of the active bundle's layer. */
  etag: () => string | undefined;
}

/** The registry reference of a bundle resource; a registry host in it must be the service's. */
export function bundleReference(resource: string, client: ServiceClient): Reference {
  const ref = parseReference(resource);
  const host = new URL(client.url('/')).host;
  if (ref.registry && ref.registry !== host) {
    throw new OciError(`bundle resource ${JSON.stringify(resource)} names registry ${ref.registry}, but service ${client.config.name} is ${host}`);
  }
  return ref;
}

export class OciSource extends PollingSource {
  private failures = 0;
  private readonly registry: OciRegistry;

  constructor(private readonly opts: OciSourceOptions) {
    super(opts.config.trigger === 'manual', opts.onResult);
    this.registry = new OciRegistry(opts.client, this.abort.signal);
  }

  protected delayAfter(res: DownloadResult): number {
    const { polling } = this.opts.config;
    if (res.kind === 'error') return backoffMs(this.opts.timing, this.failures - 1, secondsToMs(this.opts.timing, polling.max_delay_seconds));
    return jitteredDelayMs(this.opts.timing, polling.min_delay_seconds, polling.max_delay_seconds);
  }

  protected async fetchOnce(): Promise<DownloadResult> {
    const t0 = process.hrtime.bigint();
    const took = (): number => Number(process.hrtime.bigint() - t0);
    try {
      const ref = bundleReference(this.opts.config.resource, this.opts.client);
      const { manifest } = await this.registry.manifest(ref);
      const layer = manifest.layers.find((l) => l.mediaType === BUNDLE_LAYER);
      if (!layer) throw new OciError(`${this.opts.config.resource}: no layer of type ${BUNDLE_LAYER} in the manifest`);
      const etag = layer.digest.replace(/^sha256:/, '');
      if (etag === this.opts.etag()) {
        this.failures = 0;
        return { kind: 'not-modified', requestNs: took() };
      }
      const archive = await this.registry.blob(ref.repository, layer, this.opts.config.size_limit_bytes);
      this.failures = 0;
      return { kind: 'bundle', archive, etag, requestNs: took() };
    } catch (e) {
      this.failures++;
      if (e instanceof OciError) return { kind: 'error', message: e.message, httpCode: e.httpCode, requestNs: took() };
      if (e instanceof ServiceRequestError) return { kind: 'error', message: e.message, requestNs: took() };
      return { kind: 'error', message: (e as Error).message, requestNs: took() };
    }
  }
}
