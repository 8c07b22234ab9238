// Crash-safe file replacement: write a temporary file beside the target, fsync it, rename
// it over the target, then fsync the directory so the rename itself survives a crash. A
// reader finds either the old file or the new one, never a torn one.

import * as fs from 'node:fs';
import * as path from 'node:path';

let seq = 0;

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${++seq}.tmp`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, data); // loops until every byte is written
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  try {
    const dfd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    /* not every platform can fsync a directory; the rename is still atomic */
  }
}
