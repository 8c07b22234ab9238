// Reading a bundle from a path on disk: a directory laid out as a bundle, or a .tar.gz.

import { readFileSync, statSync } from 'node:fs';
import { DEFAULT_SIZE_LIMIT_BYTES, readDirectoryEntries, readTarballEntries, type BundleEntry } from './files.js';
import { loadBundle, type LoadOptions } from './load.js';
import { BundleError, type Bundle } from './types.js';

export interface ReadOptions extends LoadOptions {
  sizeLimitBytes?: number;
}

/** The raw files of the bundle at `path` (directory or gzipped tarball). */
export async function readBundleEntries(path: string, sizeLimit = DEFAULT_SIZE_LIMIT_BYTES): Promise<BundleEntry[]> {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new BundleError(`stat ${path}: no such file or directory`);
  }
  if (st.isDirectory()) return readDirectoryEntries(path, sizeLimit);
  return readTarballEntries(readFileSync(path), sizeLimit);
}

export async function readBundle(path: string, opts: ReadOptions = {}): Promise<Bundle> {
  const entries = await readBundleEntries(path, opts.sizeLimitBytes);
  return loadBundle(entries, { source: statSync(path).isDirectory() ? path : undefined, ...opts });
}

/** A bundle from the bytes of a .tar.gz (what the downloader receives). */
export async function readBundleFromBytes(gz: Uint8Array, opts: ReadOptions = {}): Promise<Bundle> {
  return loadBundle(await readTarballEntries(gz, opts.sizeLimitBytes), opts);
}
