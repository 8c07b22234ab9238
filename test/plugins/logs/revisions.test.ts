// The revisions a decision-log event names: every bundle under data.system.bundles (as
// OPA's server reads them from the store), the bundle plugin's, one frozen object per change.

import { describe, expect, it } from 'vitest';
import { activeRevisions } from '../../../src/plugins/logs/revisions.js';
import { Store } from '../../../src/storage/index.js';

async function record(store: Store, name: string, revision: string): Promise<void> {
  await store.transact((txn) => {
    txn.makeDir(['system', 'bundles']);
    const key = ['system', 'bundles', name];
    txn.write(txn.exists(key) ? 'replace' : 'add', key, { manifest: { revision, roots: [name] }, etag: '' });
  });
}

describe('activeRevisions', () => {
  it('names every bundle in the store, with the plugin revisions and without skipped names', async () => {
    const store = new Store();
    let downloaded: Record<string, string> = Object.freeze({ remote: 'd1' });
    const revisions = activeRevisions({ store, downloaded: () => downloaded, skip: (n) => n === 'adapter/a' });
    expect(revisions()).toEqual({ remote: 'd1' });
    await record(store, './b1', 'r7');
    await record(store, 'adapter/a', 'x');
    expect(revisions()).toEqual({ './b1': 'r7', remote: 'd1' });
    downloaded = Object.freeze({ remote: 'd2' });
    expect(revisions()).toEqual({ './b1': 'r7', remote: 'd2' });
  });

  it('hands back the same frozen object until the bundles change', async () => {
    const store = new Store();
    await record(store, 'b', '1');
    const none = Object.freeze({});
    const revisions = activeRevisions({ store, downloaded: () => none, skip: () => false });
    const first = revisions();
    await store.transact((txn) => txn.write('add', ['other'], 1));
    expect(revisions()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    await record(store, 'b', '2');
    expect(revisions()).not.toBe(first);
    expect(revisions()).toEqual({ b: '2' });
  });

  it('a manifest without a revision names the empty one; no bundles, no names', async () => {
    const store = new Store();
    const revisions = activeRevisions({ store, downloaded: () => ({}), skip: () => false });
    expect(revisions()).toEqual({});
    await store.transact((txn) => {
      txn.makeDir(['system', 'bundles']);
      txn.write('add', ['system', 'bundles', 'odd'], { manifest: { roots: [''] } });
    });
    expect(revisions()).toEqual({ odd: '' });
  });
});
