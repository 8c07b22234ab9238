// Writing a bundle as the gzipped tarball `opa build` produces: /data.json (all data,
// compact), each policy at its path, wasm modules, /.signatures.json, then /.manifest.
// Entries carry a leading slash, mode 0600 and no directory entries, as OPA writes them.

import { gzipSync } from 'node:zlib';
import { Header, Pax } from 'tar';
import { toJSONText } from '../value/index.js';
import type { BundleEntry } from './files.js';
import { manifestIsEmpty, manifestText } from './manifest.js';
import { SIGNATURES_FILE, signBundleEntries, signaturesFileText } from './sign.js';
import type { Bundle, SigningConfig } from './types.js';

/** The files of a bundle in OPA's order, without signatures. */
export function bundleEntries(bundle: Bundle): BundleEntry[] {
  const out: BundleEntry[] = [];
  const add = (path: string, bytes: Uint8Array): void => {
    out.push({ path, url: '/' + path, bytes });
  };
  if (!bundle.patch) {
    add('data.json', Buffer.from(toJSONText(bundle.data) + '\n'));
    for (const m of bundle.modules) add(m.path, m.raw);
    for (const w of bundle.wasmModules) add(w.path, w.raw);
  } else {
    add('patch.json', Buffer.from(JSON.stringify({ data: bundle.patch.data }) + '\n'));
  }
  if (!manifestIsEmpty(bundle.manifest)) add('.manifest', Buffer.from(manifestText(bundle.manifest)));
  return out;
}

// Fixed so that building the same inputs twice gives the same bytes.
const MTIME = new Date(0);

function tarEntry(path: string, bytes: Uint8Array): Buffer[] {
  const name = '/' + path;
  const header = new Header({ path: name, mode: 0o600, size: bytes.length, mtime: MTIME, type: 'File', uid: 0, gid: 0 });
  const block = Buffer.alloc(512);
  const parts: Buffer[] = [];
  // Long names need a pax header before the entry.
  if (header.encode(block)) {
    parts.push(new Pax({ path: name, mtime: MTIME }).encode());
    header.encode(block);
  }
  parts.push(block, Buffer.from(bytes));
  const pad = (512 - (bytes.length % 512)) % 512;
  if (pad) parts.push(Buffer.alloc(pad));
  return parts;
}

/** Packs bundle files (paths without leading slash) into a .tar.gz. */
export function packEntries(entries: { path: string; bytes: Uint8Array }[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) parts.push(...tarEntry(e.path, e.bytes));
  parts.push(Buffer.alloc(1024)); // end-of-archive marker
  return gzipSync(Buffer.concat(parts));
}

/**
 * The bundle as a .tar.gz. With `signing`, a fresh .signatures.json covering every file
 * is added (any signatures the bundle carried are replaced).
 */
export async function writeBundle(bundle: Bundle, signing?: SigningConfig): Promise<Buffer> {
  const entries: { path: string; bytes: Uint8Array }[] = bundleEntries(bundle);
  let sigs = bundle.signatures;
  if (signing) sigs = await signBundleEntries(entries, signing);
  if (sigs && (sigs.signatures?.length || sigs.plugin)) {
    // OPA writes the signatures before the manifest.
    const at = entries.findIndex((e) => e.path === '.manifest');
    const sigEntry = { path: SIGNATURES_FILE, bytes: Buffer.from(signaturesFileText(sigs)) };
    if (at < 0) entries.push(sigEntry);
    else entries.splice(at, 0, sigEntry);
  }
  return packEntries(entries);
}
