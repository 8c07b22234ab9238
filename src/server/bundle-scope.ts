// Paths a bundle owns cannot be written through the Data and Policy APIs: the bundle
// plugin would silently undo such writes on its next activation. As OPA does, the roots
// recorded at data.system.bundles.<name>.manifest.roots decide; a write at, above or below
// a root is refused with 400 invalid_parameter.

import { isPlainObject, type PlainObject, type Value } from '../value/index.js';
import { pathEscape } from '../storage/index.js';
import { badRequest } from './errors.js';

function child(v: Value | undefined, k: string): Value | undefined {
  return isPlainObject(v ?? null) && Object.hasOwn(v as PlainObject, k) ? (v as PlainObject)[k] : undefined;
}

/** name -> roots (undefined when the manifest records none: the bundle owns everything). */
export function bundleRoots(data: PlainObject): Map<string, string[] | undefined> {
  const out = new Map<string, string[] | undefined>();
  const bundles = child(child(data, 'system'), 'bundles');
  if (!isPlainObject(bundles ?? null)) return out;
  for (const name of Object.keys(bundles as PlainObject).sort()) {
    const roots = child(child((bundles as PlainObject)[name], 'manifest'), 'roots');
    out.set(name, Array.isArray(roots) ? roots.filter((r): r is string => typeof r === 'string') : undefined);
  }
  return out;
}

/** One path is inside the other (segment-wise prefix in either direction). */
function overlaps(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Throws a 400 HttpError when `path` (segments under data) is owned by an active bundle. */
export function checkBundleScope(data: PlainObject, path: readonly string[]): void {
  const owners = bundleRoots(data);
  if (owners.size === 0) return;
  if (path.length === 0) throw badRequest("can't write to document root with bundle roots configured");
  // Compared segment by segment unescaped (a root "a b" owns the path /a%20b); shown escaped as OPA prints paths.
  const spath = path.map(pathEscape).join('/');
  const parts = [...path];
  for (const [name, roots] of owners) {
    if (roots === undefined || roots.includes('')) throw badRequest(`all paths owned by bundle ${JSON.stringify(name)}`);
    for (const root of roots) {
      if (overlaps(parts, root.split('/'))) throw badRequest(`path ${spath} is owned by bundle ${JSON.stringify(name)}`);
    }
  }
}
