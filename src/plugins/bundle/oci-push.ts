// Publishing a bundle archive to an OCI registry in the layout OPA pulls: an image manifest
// whose config is an (empty) OCI image config and whose one layer, of the tar+gzip layer
// type, is the bundle archive — titled bundle.tar.gz, with the revision as an annotation.

import type { ServiceClient } from '../services/client.js';
import { BUNDLE_LAYER, OCI_CONFIG, OCI_MANIFEST, OciRegistry, parseReference, type Manifest } from '../services/oci.js';

export interface PushedBundle {
  /** registry/repository:tag as pushed. */
  reference: string;
  /** The manifest's digest (pull by repository@digest to pin it). */
  digest: string;
  layerDigest: string;
}

export async function pushBundle(client: ServiceClient, reference: string, archive: Buffer, revision?: string): Promise<PushedBundle> {
  const ref = parseReference(reference);
  if (ref.digest) throw new Error(`push to a tag, not a digest: ${reference}`);
  const reg = new OciRegistry(client);
  const config = await reg.pushBlob(ref.repository, Buffer.from('{}'), OCI_CONFIG);
  const annotations: Record<string, string> = { 'org.opencontainers.image.title': 'bundle.tar.gz' };
  if (revision) annotations['org.openpolicyagent.bundle.revision'] = revision;
  const layer = await reg.pushBlob(ref.repository, archive, BUNDLE_LAYER, annotations);
  const manifest: Manifest = { schemaVersion: 2, mediaType: OCI_MANIFEST, config, layers: [layer], annotations: { 'org.opencontainers.image.created': new Date().toISOString() } };
  const digest = await reg.pushManifest(ref.repository, ref.tag!, manifest);
  const host = new URL(client.url('/')).host;
  return { reference: `${host}/${ref.repository}:${ref.tag}`, digest, layerDigest: layer.digest };
}
