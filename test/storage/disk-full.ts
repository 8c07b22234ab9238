// A full disk at the file layer, for tests: from the call on, every write(2) to a file
// opened under `dir` fails with ENOSPC as it does on a full filesystem (after `partial`
// bytes, when given, are accepted first). Other files — logs, the test runner's — are
// untouched. vi.restoreAllMocks() frees the disk again.

import fs from 'node:fs';
import { vi } from 'vitest';

export function diskFull(dir: string, partial = 0): void {
  const full = new Set<number>();
  const open = fs.openSync;
  vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (open as (...a: unknown[]) => number)(p, ...rest);
    if (String(p).startsWith(dir)) full.add(fd);
    return fd;
  }) as typeof fs.openSync);
  const write = fs.writeSync;
  let left = partial;
  vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
    if (!full.has(fd)) return (write as (...a: unknown[]) => number)(fd, ...rest);
    const data = rest[0] as Uint8Array;
    if (left > 0) {
      const n = Math.min(left, data.byteLength);
      left -= n;
      return (write as (...a: unknown[]) => number)(fd, data, rest[1], n);
    }
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
  }) as typeof fs.writeSync);
}
