// The `provenance` object of data responses: build information plus the revision of
// every bundle recorded in the store (data.system.bundles.<name>.manifest.revision).

import { isPlainObject, type PlainObject, type Value } from '../value/index.js';
import type { Snapshot } from '../storage/index.js';
import type { ServerContext } from './context.js';

function at(v: Value | undefined, ...path: string[]): Value | undefined {
  let cur = v;
  for (const k of path) {
    if (!isPlainObject(cur ?? null)) return undefined;
    cur = (cur as PlainObject)[k];
  }
  return cur;
}

/** Bundle name -> revision, read from the snapshot's system.bundles documents. */
export function bundleRevisions(snap: Snapshot): { legacy?: string; revisions: Record<string, string> } {
  const revisions: Record<string, string> = {};
  const bundles = at(snap.data, 'system', 'bundles');
  if (isPlainObject(bundles ?? null)) {
    for (const [name, b] of Object.entries(bundles as PlainObject)) {
      const r = at(b, 'manifest', 'revision');
      revisions[name] = typeof r === 'string' ? r : '';
    }
  }
  const legacy = at(snap.data, 'system', 'bundle', 'manifest', 'revision');
  return { legacy: typeof legacy === 'string' && legacy ? legacy : undefined, revisions };
}

export function provenance(ctx: ServerContext, snap: Snapshot): Value {
  const out: Record<string, Value> = {};
  const br = bundleRevisions(snap);
  if (br.legacy) out['revision'] = br.legacy;
  else {
    const bundles: Record<string, Value> = {};
    for (const [name, rev] of Object.entries(br.revisions)) bundles[name] = { revision: rev };
    if (Object.keys(bundles).length) out['bundles'] = bundles;
  }
  out['version'] = ctx.version.version;
  out['build_commit'] = ctx.version.build_commit;
  out['build_timestamp'] = ctx.version.build_timestamp;
  out['build_hostname'] = ctx.version.build_hostname;
  return out as PlainObject;
}
