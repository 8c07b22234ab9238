// Crash-safe file replacement: write a temporary file beside the target, fsync it, rename
// it over the target, then fsync the directory so the rename itself survives a crash. A
// reader finds either the old file or the new one, never a torn one. A write that fails
// (a full disk: ENOSPC) removes its temporary file and leaves the old file as it was; the
// temporary files a killed process left behind are swept when the file is next read.

// the module object, not a namespace: its functions are looked up at each call, so a test
// can make write(2) fail as on a full disk
import fs from 'node:fs';
import * as path from 'node:path';

let seq = 0;

/** `.<name>.<pid>.<seq>.tmp`: the pid says whose it is. */
const TEMP = /^\.(.+)\.(\d+)\.\d+\.tmp$/;

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${++seq}.tmp`);
  try {
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      const buf = typeof data === 'string' ? Buffer.from(data) : data;
      for (let off = 0; off < buf.byteLength; ) off += fs.writeSync(fd, buf, off, buf.byteLength - off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    // a half-written temporary file would only hold space a full disk needs back
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

/**
 * The file writeFileAtomic wrote (undefined when there is none), after removing the
 * temporary files a crashed writer left beside it: each crash mid-write would otherwise
 * leave one more for good.
 */
export function readFileAtomic(file: string): Buffer | undefined {
  removeStaleTemps(file);
  try {
    return fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function removeStaleTemps(file: string): void {
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m || m[1] !== path.basename(file)) continue;
    // ours cannot be in progress (writes are synchronous); another live process's may be
    const pid = Number(m[2]);
    if (pid !== process.pid && alive(pid)) continue;
    fs.rmSync(path.join(dir, name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
