// What `regolith run [--watch] paths...` writes into the store, and what a reload may
// replace. The watched paths own their modules and the top-level data documents their
// files define; everything else in the store (bundle plugin data, writes through the data
// API) was put there by someone else and survives a reload. Paths loaded as bundles are
// activated as OPA's runtime does: each one's manifest recorded at
// data.system.bundles.<path as given>, which a reload rewrites.

import type { Store } from '../storage/index.js';
import type { Module } from '../engine/index.js';
import { manifestDocument } from '../bundle/manifest.js';
import { newPlainObject } from '../value/index.js';
import type { Loaded } from './load-paths.js';

export interface Owned {
  /** Module ids (file names) installed from the paths. */
  ids: Set<string>;
  /** Top-level data keys the paths' data files define. */
  keys: Set<string>;
  /** Names of the bundles whose manifests the paths recorded under data.system.bundles. */
  bundles: Set<string>;
}

export const NOTHING_OWNED: Owned = { ids: new Set(), keys: new Set(), bundles: new Set() };

const SYSTEM_BUNDLES = ['system', 'bundles'];

/** Replaces what `previous` owned with `loaded`, in one commit; returns what is owned now. */
export async function installOwned(store: Store, loaded: Loaded, parsed: Map<string, Module>, previous: Owned): Promise<Owned> {
  const bundles = loaded.bundles ?? [];
  const now: Owned = { ids: new Set(loaded.modules.map((m) => m.file)), keys: new Set(Object.keys(loaded.data)), bundles: new Set(bundles.map((b) => b.name)) };
  await store.transact((txn) => {
    const present = new Set(txn.listPolicies().map((p) => p.id));
    for (const id of previous.ids) if (!now.ids.has(id) && present.has(id)) txn.deletePolicy(id);
    // Data first removed, then written: a key that became a module's package path is not in the way.
    for (const k of previous.keys) if (!now.keys.has(k) && txn.exists([k])) txn.write('remove', [k]);
    for (const k of now.keys) txn.write('add', [k], loaded.data[k]!);
    for (const m of loaded.modules) txn.upsertPolicy(m.file, m.text, parsed.get(m.file));
    // Manifests last: a data file's `system` key must not overwrite them.
    for (const name of previous.bundles) if (!now.bundles.has(name) && txn.exists([...SYSTEM_BUNDLES, name])) txn.write('remove', [...SYSTEM_BUNDLES, name]);
    if (bundles.length) txn.makeDir(SYSTEM_BUNDLES);
    for (const b of bundles) {
      // a local bundle has no ETag; OPA records the empty one
      const doc = newPlainObject();
      doc['manifest'] = manifestDocument(b.manifest);
      doc['etag'] = '';
      const key = [...SYSTEM_BUNDLES, b.name];
      txn.write(txn.exists(key) ? 'replace' : 'add', key, doc);
    }
  });
  return now;
}
