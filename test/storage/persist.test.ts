import { describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DirectoryPersistence, Store, StorageError } from '../../src/storage/index.js';
import { parseJSON } from '../../src/value/index.js';
import type { PlainObject } from '../../src/value/index.js';

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'regolith-store-'));
}

describe('directory persistence', () => {
  it('round-trips data and policies across restarts', () => {
    const dir = tmpdir();
    const s1 = new Store({ persistence: new DirectoryPersistence(dir) });
    s1.transactSync((t) => {
      t.makeDir(['a', 'b']);
      t.write('add', ['a', 'b', 'big'], parseJSON('12345678901234567890'));
      t.write('add', ['a', 'list'], parseJSON('[1,{"x":"y"}]'));
      t.upsertPolicy('p.rego', 'package p\nallow := true\n');
    });
    const s2 = new Store({ persistence: new DirectoryPersistence(dir) });
    expect(JSON.stringify(s2.read(['a', 'list']))).toBe('[1,{"x":"y"}]');
    expect(String(s2.read(['a', 'b', 'big']))).toBe('12345678901234567890');
    expect(s2.snapshot().getPolicy('p.rego').raw).toBe('package p\nallow := true\n');
    // No temporary files are left behind.
    expect(fs.readdirSync(dir)).toEqual(['store.json']);
  });

  it('ignores a torn temporary file from a crash', () => {
    const dir = tmpdir();
    const s1 = new Store({ persistence: new DirectoryPersistence(dir) });
    s1.transactSync((t) => t.write('add', ['k'], 1));
    fs.writeFileSync(path.join(dir, '.store.json.999.1.tmp'), '{"data":{"k":'); // crash mid-write
    const s2 = new Store({ persistence: new DirectoryPersistence(dir) });
    expect(s2.read(['k'])).toBe(1);
  });

  it('a commit that cannot be persisted does not happen', () => {
    const dir = tmpdir();
    const p = new DirectoryPersistence(dir);
    const s = new Store({ persistence: p, data: { k: 1 } as PlainObject });
    fs.rmSync(dir, { recursive: true });
    fs.writeFileSync(dir, 'not a directory'); // mkdir/open will fail
    expect(() => s.transactSync((t) => t.write('replace', ['k'], 2))).toThrow(StorageError);
    expect(s.read(['k'])).toBe(1);
    fs.rmSync(dir);
  });

  it('starts empty when the directory has no store file', () => {
    const s = new Store({ persistence: new DirectoryPersistence(tmpdir()) });
    expect(s.read([])).toEqual({});
  });
});
