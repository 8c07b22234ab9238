// Manifest roots: which parts of `data` a bundle owns. Rules as OPA applies them:
// roots are slash-separated paths, "" owns everything, and two roots of one bundle
// may not overlap (one a prefix of the other, segment-wise).

function segments(path: string): string[] {
  return path.split('/');
}

function contains(root: string[], other: string[]): boolean {
  if (root.length === 1 && root[0] === '') return true;
  if (root.length > other.length) return false;
  return root.every((s, i) => s === other[i]);
}

export function normalizeRoot(root: string): string {
  return root.replace(/^\/+|\/+$/g, '');
}

export function rootPathsOverlap(a: string, b: string): boolean {
  const x = segments(a);
  const y = segments(b);
  return contains(x, y) || contains(y, x);
}

/** Whether `path` (slash-separated) lies under one of `roots`. */
export function rootPathsContain(roots: string[], path: string): boolean {
  const p = segments(path);
  return roots.some((r) => contains(segments(r), p));
}

/** Formats a root list like Go's %v of a []string: [a b/c]. */
export function formatRoots(roots: string[]): string {
  return `[${roots.join(' ')}]`;
}

/**
 * OPA's refusal to activate bundles whose roots overlap (bundle/store.go hasRootsOverlap),
 * or undefined when they do not. Its wording: bundles with an empty root are named apart.
 */
export function rootsOverlapMessage(bundles: ReadonlyArray<{ name: string; roots: string[] }>): string | undefined {
  const colliding = new Set<string>();
  const conflicts = new Set<string>();
  const emptyRoots = new Set(bundles.filter((b) => b.roots.includes('')).map((b) => b.name));
  for (const b of bundles) {
    for (const other of bundles) {
      if (other.name === b.name) continue;
      for (const r of b.roots) {
        for (const o of other.roots) {
          if (!rootPathsOverlap(r, o)) continue;
          colliding.add(b.name).add(other.name);
          conflicts.add(r === o ? `root ${r} is in multiple bundles` : `${[r, o].sort().join(' overlaps ')}`);
        }
      }
    }
  }
  if (colliding.size === 0) return undefined;
  const names = [...colliding].sort().join(', ');
  if (emptyRoots.size > 0) {
    return `bundles [${names}] have overlapping roots and cannot be activated simultaneously because bundle(s) [${[...emptyRoots].sort().join(', ')}] specify empty root paths ('') which overlap with any other bundle root`;
  }
  return `detected overlapping roots in manifests for these bundles: [${names}] (${[...conflicts].sort().join(', ')})`;
}
