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
