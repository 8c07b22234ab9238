// Copy-on-write operations on a tree of base documents. Nothing here mutates its input:
// a write copies the containers on the way from the root to the change and shares every
// other subtree, so a snapshot held by a reader never changes. Semantics and messages
// follow OPA's in-memory store (storage/inmem) so HTTP clients see the same errors.

import { isPlainObject, newPlainObject } from '../value/index.js';
import type { PlainObject, Value } from '../value/index.js';
import {
  ARRAY_INDEX_TYPE,
  OUT_OF_RANGE,
  invalidPatch,
  notFound,
  notFoundBare,
  StorageError,
} from './errors.js';
import { parseArrayIndex, pathToString, type StoragePath } from './path.js';

export type WriteOp = 'add' | 'replace' | 'remove';

/** Reads the document at `path`; throws storage_not_found_error as OPA's ptr.Ptr does. */
export function readAt(root: Value, path: StoragePath): Value {
  let node: Value = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (Array.isArray(node)) {
      node = node[arrayIndex(node, key, path)]!;
    } else if (isPlainObject(node)) {
      if (!Object.hasOwn(node, key)) throw notFound(pathToString(path));
      node = node[key]!;
    } else {
      throw notFound(pathToString(path));
    }
  }
  return node;
}

/** Whether a document exists at `path`. */
export function existsAt(root: Value, path: StoragePath): boolean {
  try {
    readAt(root, path);
    return true;
  } catch (e) {
    if (e instanceof StorageError && e.code === 'storage_not_found_error') return false;
    throw e;
  }
}

function arrayIndex(arr: readonly Value[], key: string, path: StoragePath): number {
  const idx = parseArrayIndex(key);
  if (idx === undefined) throw notFound(pathToString(path), ARRAY_INDEX_TYPE);
  if (idx < 0 || idx >= arr.length) throw notFound(pathToString(path), OUT_OF_RANGE);
  return idx;
}

/** A shallow copy of a plain object without a prototype, so "__proto__" stays a key. */
export function copyObject(o: PlainObject): PlainObject {
  const out = newPlainObject();
  for (const k of Object.keys(o)) out[k] = o[k]!;
  return out;
}

/**
 * Applies one write and returns the new root. `root` must be an object. Throws a
 * StorageError (and changes nothing) when the write is not possible.
 */
export function applyWrite(root: PlainObject, op: WriteOp, path: StoragePath, value: Value | undefined): PlainObject {
  if (path.length === 0) {
    if (op === 'remove') throw invalidPatch('root cannot be removed');
    if (!isPlainObject(value ?? null)) throw invalidPatch('root must be object');
    return value as PlainObject;
  }
  return writeIn(root, op, path, 0, value) as PlainObject;
}

function writeIn(node: Value, op: WriteOp, path: StoragePath, idx: number, value: Value | undefined): Value {
  if (Array.isArray(node)) return writeArray(node, op, path, idx, value);
  if (isPlainObject(node)) return writeObject(node, op, path, idx, value);
  throw notFoundBare();
}

function writeObject(node: PlainObject, op: WriteOp, path: StoragePath, idx: number, value: Value | undefined): PlainObject {
  const key = path[idx]!;
  const has = Object.hasOwn(node, key);
  if (idx === path.length - 1) {
    if ((op === 'replace' || op === 'remove') && !has) throw notFoundBare();
    const out = copyObject(node);
    if (op === 'remove') delete out[key];
    else out[key] = value ?? null;
    return out;
  }
  if (!has) throw notFoundBare();
  const child = writeIn(node[key]!, op, path, idx + 1, value);
  const out = copyObject(node);
  out[key] = child;
  return out;
}

function writeArray(node: Value[], op: WriteOp, path: StoragePath, idx: number, value: Value | undefined): Value[] {
  const key = path[idx]!;
  if (idx === path.length - 1) {
    if (key === '-' || key === String(node.length)) {
      if (op !== 'add') throw invalidPatch(`${pathToString(path)}: invalid patch path`);
      return [...node, value ?? null];
    }
    const pos = arrayIndex(node, key, path);
    const out = node.slice();
    if (op === 'add') out.splice(pos, 0, value ?? null);
    else if (op === 'remove') out.splice(pos, 1);
    else out[pos] = value ?? null;
    return out;
  }
  const pos = arrayIndex(node, key, path);
  const out = node.slice();
  out[pos] = writeIn(node[pos]!, op, path, idx + 1, value);
  return out;
}
