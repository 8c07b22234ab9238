// writeFileAtomic under the failures a server meets: a full disk (ENOSPC injected at the
// file layer, as a write(2) on a full filesystem returns it) and temporary files left by a
// process killed mid-write.

import fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileAtomic, writeFileAtomic } from '../../src/storage/index.js';
import { diskFull } from './disk-full.js';

const tmpdir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'regolith-atomic-'));

afterEach(() => vi.restoreAllMocks());

describe('writeFileAtomic', () => {
  it('replaces the file and leaves nothing else behind', () => {
    const dir = tmpdir();
    const file = path.join(dir, 'doc.json');
    writeFileAtomic(file, 'one');
    writeFileAtomic(file, 'two');
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(fs.readdirSync(dir)).toEqual(['doc.json']);
  });

  it('on a full disk: throws ENOSPC, keeps the old file whole and removes its temporary file', () => {
    const dir = tmpdir();
    const file = path.join(dir, 'doc.json');
    writeFileAtomic(file, 'the last good state');
    diskFull(dir, 4); // a few bytes get written before the disk is full
    expect(() => writeFileAtomic(file, 'x'.repeat(100_000))).toThrow(/ENOSPC/);
    vi.restoreAllMocks();
    expect(fs.readFileSync(file, 'utf8')).toBe('the last good state');
    expect(fs.readdirSync(dir)).toEqual(['doc.json']);
  });
});

describe('readFileAtomic', () => {
  it('is undefined when there is no file', () => {
    expect(readFileAtomic(path.join(tmpdir(), 'none'))).toBeUndefined();
  });

  it('sweeps the temporary files of a writer that died mid-write, and only those', () => {
    const dir = tmpdir();
    const file = path.join(dir, 'doc.json');
    writeFileAtomic(file, 'whole');
    const dead = 2 ** 22 + 12345; // above the kernel's pid_max default: no such process
    const torn = [`.doc.json.${dead}.1.tmp`, `.doc.json.${process.pid}.999.tmp`];
    const kept = [`.doc.json.${process.ppid}.1.tmp`, `.other.json.${dead}.1.tmp`, 'notes.txt'];
    for (const n of [...torn, ...kept]) fs.writeFileSync(path.join(dir, n), '{"half":');
    expect(readFileAtomic(file)?.toString()).toBe('whole');
    // a live process's (the parent's) may be in progress; another file's are not this file's business
    expect(fs.readdirSync(dir).sort()).toEqual(['doc.json', ...kept].sort());
  });
});
