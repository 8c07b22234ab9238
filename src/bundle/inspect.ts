// What `opa inspect` reports about a bundle: its manifest, signatures and which files
// contribute to which namespace of `data`.

import { posix } from 'node:path';
import { manifestRoots } from './manifest.js';
import type { Bundle, Manifest, SignaturesConfig } from './types.js';

export interface BundleInfo {
  manifest: Manifest;
  signatures_config: SignaturesConfig;
  /** "data.a.b" → files (sorted by namespace when serialised). */
  namespaces: Record<string, string[]>;
}

/**
 * `fromDirectory`: files are shown by their path on disk; for archives by their entry
 * name with a leading slash, as OPA shows them.
 */
export function inspectBundle(bundle: Bundle, fromDirectory: boolean): BundleInfo {
  const ns: Record<string, string[]> = {};
  const add = (key: string, file: string): void => {
    (ns[key] ??= []).push(file);
  };
  const shown = (path: string, url: string): string => (fromDirectory ? posix.normalize(url) : '/' + path);
  for (const m of bundle.modules) add(['data', ...m.packagePath].join('.'), shown(m.path, m.url));
  for (const d of bundle.dataFiles) add(['data', ...d.key].join('.'), shown(d.path, d.url));
  for (const w of bundle.manifest.wasm ?? []) {
    if (w.entrypoint) add(['data', ...w.entrypoint.replace(/^\//, '').split('/')].join('.'), w.module ?? '');
  }
  const namespaces: Record<string, string[]> = {};
  for (const k of Object.keys(ns).sort()) namespaces[k] = ns[k]!;
  const manifest: Manifest = { ...bundle.manifest, roots: manifestRoots(bundle.manifest) };
  return { manifest, signatures_config: bundle.signatures ?? {}, namespaces };
}
