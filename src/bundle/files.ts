// Reading the raw files of a bundle, from a directory or a .tar.gz, as a list of
// (bundle path, bytes). Paths have no leading slash: "/a/data.json" and "./a/data.json"
// in an archive are both "a/data.json". Nothing here interprets the files.

import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ReadEntry } from 'tar';
import { BundleError } from './types.js';

export interface BundleEntry {
  path: string;
  /** Where the file came from (archive entry name or file path), for messages. */
  url: string;
  bytes: Uint8Array;
}

/** OPA's default: 1 GiB per file, a guard against gzip bombs. */
export const DEFAULT_SIZE_LIMIT_BYTES = 1024 * 1024 * 1024;

export function normalizeEntryPath(name: string): string {
  const parts = name.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..')) throw new BundleError(`bundle file path ${name} escapes the bundle root`);
  return parts.join('/');
}

function checkSize(path: string, size: number, limit: number): void {
  if (size > limit) {
    throw new BundleError(`bundle file '${path}' size (${size} bytes) exceeded max size (${limit} bytes)`);
  }
}

/** All regular files under `dir`, recursively; symbolic links are not followed. */
export function readDirectoryEntries(dir: string, sizeLimit = DEFAULT_SIZE_LIMIT_BYTES): BundleEntry[] {
  const out: BundleEntry[] = [];
  const walk = (abs: string, rel: string): void => {
    const names = readdirSync(abs).sort();
    for (const name of names) {
      const full = join(abs, name);
      const relPath = rel ? `${rel}/${name}` : name;
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full, relPath);
      else if (st.isFile()) {
        checkSize(relPath, st.size, sizeLimit);
        out.push({ path: relPath, url: full, bytes: readFileSync(full) });
      }
    }
  };
  walk(dir, '');
  return out;
}

/** The regular files of a gzipped tarball. Truncated or corrupt archives are errors. */
export async function readTarballEntries(gz: Uint8Array, sizeLimit = DEFAULT_SIZE_LIMIT_BYTES): Promise<BundleEntry[]> {
  let tarBytes: Buffer;
  try {
    // An archive that inflates far past the limit is refused before it fills memory.
    tarBytes = gunzipSync(gz, { maxOutputLength: Math.min(sizeLimit * 4, 2 ** 31 - 1) });
  } catch (e) {
    throw new BundleError(`bundle read failed: archive read failed: ${(e as Error).message}`);
  }
  // tar is loaded when the first archive is read (start-up of commands that read none stays light).
  const { Parser } = await import('tar');
  const out: BundleEntry[] = [];
  const pending: Promise<void>[] = [];
  let failure: Error | undefined;
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'ContiguousFile') {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        pending.push(
          new Promise<void>((done) => {
            entry.on('data', (c: Buffer) => {
              size += c.length;
              chunks.push(c);
            });
            entry.on('end', () => {
              try {
                const path = normalizeEntryPath(entry.path);
                checkSize(path, size, sizeLimit);
                out.push({ path, url: entry.path, bytes: Buffer.concat(chunks) });
              } catch (e) {
                failure ??= e as Error;
              }
              done();
            });
          }),
        );
      },
    });
    parser.on('error', (e: Error) => reject(new BundleError(`bundle read failed: ${e.message}`)));
    parser.on('warn', (_code: string, message: string | Error) => {
      failure ??= new BundleError(`bundle read failed: ${typeof message === 'string' ? message : message.message}`);
    });
    parser.on('end', () => resolve());
    parser.end(tarBytes);
  });
  await Promise.all(pending);
  if (failure) throw failure instanceof BundleError ? failure : new BundleError(failure.message);
  return out;
}
