// Mounting data files into one `data` document: a file at a/b/data.json becomes
// data.a.b. Objects merge recursively; any other collision is a conflict, as in OPA.

import { isPlainObject, newPlainObject, type PlainObject, type Value } from '../value/index.js';
import { BundleError } from './types.js';

/** Directory segments under which a data file at `path` (slash-separated) is mounted. */
export function dataKeyOf(path: string): string[] {
  const dir = path.split('/').slice(0, -1);
  return dir.filter((s) => s !== '' && s !== '.');
}

function merge(a: PlainObject, b: PlainObject): PlainObject | undefined {
  const out = newPlainObject();
  for (const k of Object.keys(a)) out[k] = a[k]!;
  for (const k of Object.keys(b)) {
    if (!Object.hasOwn(out, k)) {
      out[k] = b[k]!;
      continue;
    }
    const x = out[k]!;
    const y = b[k]!;
    if (!isPlainObject(x) || !isPlainObject(y)) return undefined;
    const m = merge(x, y);
    if (!m) return undefined;
    out[k] = m;
  }
  return out;
}

/** Returns `data` with `value` inserted at `key`; throws when it collides. */
export function insertData(data: PlainObject, key: string[], value: Value, file: string): PlainObject {
  if (key.length === 0 && !isPlainObject(value)) {
    throw new BundleError(`bundle load failed on ${file}: root value must be object`);
  }
  let tree: Value = value;
  for (let i = key.length - 1; i >= 0; i--) {
    const o = newPlainObject();
    o[key[i]!] = tree;
    tree = o;
  }
  const merged = merge(data, tree as PlainObject);
  if (!merged) {
    throw new BundleError(
      `bundle load failed on ${file}: failed to insert data file from path ${key.join('/') || '/'}: conflicting values`,
    );
  }
  return merged;
}

/** Calls fn(path, node) depth-first; fn returns true to stop descending. */
export function walkData(value: Value, path: string, fn: (path: string, node: Value) => boolean): void {
  if (fn(path, value)) return;
  if (!isPlainObject(value)) return;
  for (const k of Object.keys(value)) walkData(value[k]!, `${path}/${k}`, fn);
}
