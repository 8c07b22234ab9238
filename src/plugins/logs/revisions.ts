// The bundle revisions a decision-log event names. OPA's server reads them from the store
// on every commit (every name under data.system.bundles, so bundles given with -b too);
// here they are read when asked, once per decision, and the same frozen object is handed
// back until data.system.bundles or the bundle plugin's revisions change (the event text
// of the bundles is kept by that object's identity).

import { isPlainObject, type PlainObject } from '../../value/index.js';
import type { Store } from '../../storage/index.js';

const NONE: Record<string, string> = Object.freeze({});

export interface RevisionSources {
  store: Store;
  /** Revisions the bundle plugin knows (its activations; an activator may keep them out of the store). */
  downloaded: () => Readonly<Record<string, string>>;
  /** Names under data.system.bundles that are not bundles to the decision log (data adapters' documents). */
  skip: (name: string) => boolean;
}

/** name -> revision of every active bundle, as one frozen object per change. */
export function activeRevisions(s: RevisionSources): () => Record<string, string> {
  let lastSnapshot: unknown;
  let lastBundles: unknown;
  let lastDownloaded: unknown;
  let current = NONE;
  return () => {
    const snap = s.store.snapshot();
    const downloaded = s.downloaded();
    // no commit since the last decision: nothing to read
    if (snap === lastSnapshot && downloaded === lastDownloaded) return current;
    lastSnapshot = snap;
    const sys = snap.data['system'];
    const bundles = isPlainObject(sys ?? null) ? (sys as PlainObject)['bundles'] : undefined;
    if (bundles === lastBundles && downloaded === lastDownloaded) return current;
    lastBundles = bundles;
    lastDownloaded = downloaded;
    const out: Record<string, string> = {};
    if (isPlainObject(bundles ?? null)) {
      for (const [name, b] of Object.entries(bundles as PlainObject)) {
        if (s.skip(name)) continue;
        const m = isPlainObject(b) ? b['manifest'] : undefined;
        const r = isPlainObject(m ?? null) ? (m as PlainObject)['revision'] : undefined;
        out[name] = typeof r === 'string' ? r : '';
      }
    }
    Object.assign(out, downloaded);
    current = Object.keys(out).length ? Object.freeze(out) : NONE;
    return current;
  };
}
