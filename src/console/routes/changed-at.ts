// When the server's policies or data (outside data.system) last changed, for "open in
// playground": a decision made before then was made over something else, even at the same
// bundle revision (a PUT through the Data API), and the page says its replay may differ.
// A commit that writes the same values again is no change: a bundle server without ETag
// has every poll re-activate the same bundle, which would otherwise warn about every
// decision. Work is done per commit (comparing what it wrote), never per decision.

import { equal, isPlainObject, type Value } from '../../value/index.js';
import type { Snapshot, Store } from '../../storage/index.js';

/** The value at `path`, data.system left out; undefined where there is none. */
function at(s: Snapshot, path: readonly string[]): Value | undefined {
  if (!s.exists(path)) return undefined;
  const v = s.read(path);
  if (path.length > 0 || !isPlainObject(v)) return v;
  const { system: _system, ...rest } = v;
  return rest;
}

function same(a: Value | undefined, b: Value | undefined): boolean {
  return a === undefined || b === undefined ? a === b : equal(a, b);
}

/** Watches `store`: the function answers the ISO time of its last real change, if there was one since. */
export function watchChanges(store: Store): () => string | undefined {
  let last = store.snapshot();
  let changedAt: string | undefined;
  store.onCommit((ev, snap) => {
    const prev = last;
    last = snap;
    const data = ev.data.some((d) => d.path[0] !== 'system' && !same(at(prev, d.path), at(snap, d.path)));
    const policies = ev.policies.some((p) => prev.policies.get(p.id)?.raw !== snap.policies.get(p.id)?.raw);
    if (data || policies) changedAt = new Date().toISOString();
  });
  return () => changedAt;
}
