// GET /ui/api/status lists the bundles the command line activated (-b) under local_bundles,
// with the revision and roots of their manifests in the store; without them, no such key.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/storage/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { fakeBuild, get, startUi, type UiServer } from './helpers.js';

let build: ReturnType<typeof fakeBuild>;
beforeAll(() => {
  build = fakeBuild();
});
afterAll(() => build.remove());

async function engineWith(bundles: Record<string, unknown>): Promise<RegolithEngine> {
  const store = new Store();
  await store.transact((txn) => {
    txn.makeDir(['system', 'bundles']);
    for (const [name, doc] of Object.entries(bundles)) txn.write('add', ['system', 'bundles', name], doc as never);
  });
  return new RegolithEngine({ store });
}

describe('GET /ui/api/status: local bundles', () => {
  let s: UiServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('names each local bundle with its revision and roots, leaving other recorded bundles out', async () => {
    const names = new Set(['./b1']);
    const engine = await engineWith({
      './b1': { manifest: { revision: 'r7', roots: ['x'] }, etag: '' },
      remote: { manifest: { revision: 'd1', roots: ['y'] }, etag: 'e' },
    });
    s = await startUi({ assetsDir: build.dir, localBundles: () => names }, { engine });
    expect((await get(s, '/ui/api/status')).json.local_bundles).toEqual({ './b1': { revision: 'r7', roots: ['x'] } });
    // a reload that drops the bundle: the listing follows the runtime's names
    names.delete('./b1');
    expect((await get(s, '/ui/api/status')).json.local_bundles).toEqual({});
  });

  it('a server without local bundles has no local_bundles key', async () => {
    s = await startUi({ assetsDir: build.dir }, { engine: await engineWith({}) });
    expect((await get(s, '/ui/api/status')).json).not.toHaveProperty('local_bundles');
  });
});
