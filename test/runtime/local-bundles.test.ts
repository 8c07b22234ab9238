// Paths loaded as bundles are activated as OPA's runtime activates them: the manifest of
// each is recorded at data.system.bundles.<the path as given> (roots [""], revision "" when
// there is no .manifest; etag ""), and a reload (--watch) rewrites or removes them.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPaths } from '../../src/runtime/load-paths.js';
import { installOwned, NOTHING_OWNED, type Owned } from '../../src/runtime/install.js';
import { buildPolicySet } from '../../src/runtime/policy-set.js';
import { packEntries } from '../../src/bundle/write.js';
import { Store } from '../../src/storage/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { StoreActivator } from '../../src/plugins/bundle/activate.js';
import { emptyBundle } from '../../src/bundle/types.js';
import { tempDir, writeTree } from '../bundle/helpers.js';

async function install(store: Store, opts: { paths?: string[]; bundles?: string[] }, previous: Owned = NOTHING_OWNED): Promise<Owned> {
  const loaded = await loadPaths(opts);
  return installOwned(store, loaded, buildPolicySet(loaded).modules, previous);
}

function systemBundles(store: Store): unknown {
  const sys = store.snapshot().data['system'];
  return sys && typeof sys === 'object' ? (sys as Record<string, unknown>)['bundles'] : undefined;
}

function tarball(files: Record<string, string>): string {
  const p = join(tempDir(), 'b.tar.gz');
  writeFileSync(p, packEntries(Object.entries(files).map(([path, text]) => ({ path, bytes: Buffer.from(text) }))));
  return p;
}

describe('local bundles in the store', () => {
  it('records a directory bundle under the path as given, with its manifest as OPA writes it', async () => {
    const dir = writeTree({
      '.manifest': JSON.stringify({ revision: 'r7', roots: ['x'], rego_version: 1, metadata: { team: 'a', n: 2 } }),
      'x/p.rego': 'package x\nallow := true\n',
      'x/data.json': '{"k": 1}',
    });
    const store = new Store();
    await install(store, { bundles: [dir] });
    expect(systemBundles(store)).toEqual({
      [dir]: { etag: '', manifest: { revision: 'r7', roots: ['x'], rego_version: 1, metadata: { team: 'a', n: 2 } } },
    });
    expect(store.snapshot().data['x']).toEqual({ k: 1 });
  });

  it('a bundle without a manifest owns everything, with an empty revision', async () => {
    const dir = writeTree({ 'p.rego': 'package y\nz := 1\n' });
    const store = new Store();
    await install(store, { bundles: [dir] });
    expect(systemBundles(store)).toEqual({ [dir]: { etag: '', manifest: { revision: '', roots: [''] } } });
  });

  it('a .tar.gz is a bundle given with -b or as a plain path, named by the path', async () => {
    const tgz = tarball({ '.manifest': '{"revision":"t1","roots":["t"]}', 't/p.rego': 'package t\nok := true\n' });
    for (const opts of [{ bundles: [tgz] }, { paths: [tgz] }]) {
      const store = new Store();
      await install(store, opts);
      expect(systemBundles(store)).toEqual({ [tgz]: { etag: '', manifest: { revision: 't1', roots: ['t'] } } });
    }
  });

  it('a .tar.gz met while walking a directory is loaded as files, not activated as a bundle', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'inner.tar.gz'), packEntries([{ path: '.manifest', bytes: Buffer.from('{"revision":"i","roots":["i"]}') }, { path: 'i/data.json', bytes: Buffer.from('{"v":1}') }]));
    const store = new Store();
    await install(store, { paths: [dir] });
    expect(systemBundles(store)).toBeUndefined();
    expect(store.snapshot().data['i']).toEqual({ v: 1 });
  });

  it('two bundles are recorded side by side; plain paths record nothing', async () => {
    const a = writeTree({ '.manifest': '{"revision":"a1","roots":["a"]}', 'a/p.rego': 'package a\nx := 1\n' });
    const b = writeTree({ '.manifest': '{"revision":"b1","roots":["b"]}', 'b/p.rego': 'package b\nx := 2\n' });
    const store = new Store();
    await install(store, { bundles: [a, b] });
    expect(Object.keys(systemBundles(store) as object).sort()).toEqual([a, b].sort());

    const plain = new Store();
    await install(plain, { paths: [a, b] });
    expect(plain.snapshot().data['system']).toBeUndefined();
  });

  it('a reload rewrites the manifest and removes those of bundles no longer given', async () => {
    const a = writeTree({ '.manifest': '{"revision":"a1","roots":["a"]}', 'a/p.rego': 'package a\nx := 1\n' });
    const b = writeTree({ '.manifest': '{"revision":"b1","roots":["b"]}', 'b/p.rego': 'package b\nx := 2\n' });
    const store = new Store();
    let owned = await install(store, { bundles: [a, b] });
    writeFileSync(join(a, '.manifest'), '{"revision":"a2","roots":["a"]}');
    owned = await install(store, { bundles: [a] }, owned);
    expect(systemBundles(store)).toEqual({ [a]: { etag: '', manifest: { revision: 'a2', roots: ['a'] } } });
    expect([...owned.bundles]).toEqual([a]);
  });

  it('a downloaded bundle whose roots overlap a local one is refused, as OPA checks every bundle in the store', async () => {
    const a = writeTree({ '.manifest': '{"revision":"a1","roots":["a"]}' });
    const store = new Store();
    await install(store, { bundles: [a] });
    const activator = new StoreActivator(new RegolithEngine({ store }));
    await expect(activator.activate('remote', emptyBundle({ revision: 'd1', roots: ['a/b'] }, true))).rejects.toThrow(/overlapping roots/);
    await activator.activate('other', emptyBundle({ revision: 'd1', roots: ['c'] }, true));
    expect(Object.keys(systemBundles(store) as object).sort()).toEqual([a, 'other'].sort());
  });

  it('a reload keeps bundle manifests recorded by others (downloaded bundles)', async () => {
    const a = writeTree({ '.manifest': '{"revision":"a1","roots":["a"]}' });
    const store = new Store();
    await store.transact((txn) => {
      txn.makeDir(['system', 'bundles']);
      txn.write('add', ['system', 'bundles', 'remote'], { manifest: { revision: 'r', roots: ['r'] }, etag: 'e' });
    });
    const owned = await install(store, { bundles: [a] });
    await install(store, { bundles: [] }, owned);
    expect(systemBundles(store)).toEqual({ remote: { manifest: { revision: 'r', roots: ['r'] }, etag: 'e' } });
  });
});
