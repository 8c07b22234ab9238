// Combining several bundles into one, as `opa build -b a b` does: roots are pooled
// and must not overlap, each bundle contributes its data under its own roots.

import { isPlainObject, type PlainObject, type Value } from '../value/index.js';
import { insertData } from './data-tree.js';
import { manifestRoots } from './manifest.js';
import { validateBundle } from './load.js';
import { BundleError, emptyBundle, type Bundle } from './types.js';

function readAt(data: PlainObject, key: string[]): Value | undefined {
  let node: Value = data;
  for (const k of key) {
    if (!isPlainObject(node) || !Object.hasOwn(node, k)) return undefined;
    node = node[k]!;
  }
  return node;
}

/** One bundle is returned as is; several are merged (revision left empty). */
export function mergeBundles(bundles: Bundle[], regoVersion: number): Bundle {
  if (bundles.length === 0) throw new BundleError('expected at least one bundle');
  if (bundles.length === 1) {
    const b = bundles[0]!;
    b.manifest.rego_version ??= regoVersion;
    b.manifest.roots = manifestRoots(b.manifest);
    return b;
  }
  const out = emptyBundle({ revision: '', roots: [], rego_version: regoVersion }, true);
  const fileVersions: Record<string, number> = {};
  for (const b of bundles) {
    const roots = manifestRoots(b.manifest);
    out.manifest.roots!.push(...roots);
    out.modules.push(...b.modules);
    out.wasmModules.push(...b.wasmModules);
    out.dataFiles.push(...b.dataFiles);
    if (b.manifest.wasm?.length) (out.manifest.wasm ??= []).push(...b.manifest.wasm);
    for (const root of roots) {
      const key = root === '' ? [] : root.split('/');
      const v = key.length === 0 ? b.data : readAt(b.data, key);
      if (v === undefined || (key.length === 0 && Object.keys(b.data).length === 0)) continue;
      out.data = insertData(out.data, key, v, root || '/');
    }
    // Modules keep the Rego version of the bundle they came from.
    const v = b.manifest.rego_version;
    for (const m of b.modules) {
      const fv = b.manifest.file_rego_versions?.[m.path] ?? v;
      if (fv !== undefined && fv !== regoVersion) fileVersions['/' + m.path] = fv;
    }
  }
  if (Object.keys(fileVersions).length) out.manifest.file_rego_versions = fileVersions;
  validateBundle(out);
  return out;
}
