// Keeping the last activated bundle on disk (bundles: <name>: persist: true), so that a
// restarted sidecar serves its last good policy before the first download succeeds.
// Writes go to a temporary file that is fsynced and renamed over the old one: a crash
// leaves the old archive or the new one, never a torn file.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { readFileAtomic, writeFileAtomic } from '../../storage/index.js';

const FILE = 'bundle.tar.gz';

/** OPA's default persistence directory: .opa under the working directory. */
export function defaultPersistenceDir(): string {
  return path.join(process.cwd(), '.opa');
}

export class BundlePersistence {
  constructor(readonly dir: string) {}

  private fileOf(name: string): string {
    // Bundle names may contain slashes; keep one directory per name without nesting tricks.
    return path.join(this.dir, 'bundles', encodeURIComponent(name), FILE);
  }

  save(name: string, archive: Uint8Array): void {
    writeFileAtomic(this.fileOf(name), archive);
  }

  /** The persisted archive, or undefined when there is none. */
  load(name: string): Buffer | undefined {
    return readFileAtomic(this.fileOf(name));
  }

  remove(name: string): void {
    fs.rmSync(path.dirname(this.fileOf(name)), { recursive: true, force: true });
  }
}
