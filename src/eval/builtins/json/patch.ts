// json.patch, json.filter and json.remove on Rego values (sets and non-string keys
// included), following OPA: paths are "a/b/c" strings (leading slashes dropped, ~0 ~1
// unescaped) or arrays of segments; a failed patch is a built-in error (undefined unless strict).

import { RSet, RObject, equal, isPlainObject, makeObject, objectEntries, objectGet, toRegoString, typeName, type Value } from '../../../value/index.js';
import { typeError } from '../args.js';

export class PatchError extends Error {}

/** OPA's parsePath for json.filter/json.remove/json.patch. */
export function parsePath(p: Value, pos = 2): Value[] {
  if (typeof p === 'string') {
    if (p === '') return [];
    return p
      .replace(/^\/+/, '')
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  if (Array.isArray(p)) return p;
  throw typeError(`operand ${pos} must be one of {set, array} containing string paths or array of path segments but got ${typeName(p)}`);
}

/** The paths operand of json.filter / json.remove. */
export function pathsOperand(v: Value): Value[][] {
  if (!Array.isArray(v) && !(v instanceof RSet)) throw typeError(`operand 2 must be one of {set, array} but got ${typeName(v)}`);
  return (Array.isArray(v) ? v : v.values()).map((p) => parsePath(p));
}

/** A tree of path segments whose leaves are null (a shorter path covers longer ones). */
type PathTree = Map<string, { key: Value; sub: PathTree | null }>;

function keyOf(v: Value): string {
  return typeof v === 'string' ? 's' + v : 'j' + JSON.stringify(v, (_k, x) => (x instanceof RSet ? { set: x.values() } : x));
}

export function pathsToTree(paths: Value[][]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    if (path.length === 0) continue;
    let node = root;
    let done = false;
    for (let i = 0; i < path.length - 1 && !done; i++) {
      const k = keyOf(path[i]!);
      const child = node.get(k);
      if (!child) {
        const sub: PathTree = new Map();
        node.set(k, { key: path[i]!, sub });
        node = sub;
      } else if (child.sub === null) done = true;
      else node = child.sub;
    }
    if (!done) node.set(keyOf(path[path.length - 1]!), { key: path[path.length - 1]!, sub: null });
  }
  return root;
}

function lookup(tree: PathTree, k: Value): PathTree | null | undefined {
  const e = tree.get(keyOf(k));
  return e === undefined ? undefined : e.sub;
}

/**
 * json.filter (`keep` true: only what the paths select) and json.remove (`keep` false: all
 * but that). `b` undefined: no path goes through here; null: a path ends here.
 */
function prune(a: Value, b: PathTree | null | undefined, keep: boolean): Value | undefined {
  if (b === undefined) return keep ? undefined : a;
  if (b === null) return keep ? a : undefined;
  if (Array.isArray(a)) {
    const out: Value[] = [];
    a.forEach((v, i) => {
      const f = prune(v, lookup(b, String(i)), keep);
      if (f !== undefined) out.push(f);
    });
    return out;
  }
  if (a instanceof RSet) {
    const out = new RSet();
    for (const v of a) {
      const f = prune(v, lookup(b, v), keep);
      if (f !== undefined) out.add(f);
    }
    return out;
  }
  if (a instanceof RObject || isPlainObject(a)) {
    const entries: [Value, Value][] = [];
    for (const [k, v] of objectEntries(a)) {
      const f = prune(v, lookup(b, k), keep);
      if (f !== undefined) entries.push([k, f]);
    }
    return makeObject(entries);
  }
  return a;
}

/** Keeps only what the paths select. */
export const jsonFilter = (a: Value, b: PathTree | null | undefined): Value | undefined => prune(a, b, true);

/** Drops what the paths select. */
export const jsonRemove = (a: Value, b: PathTree | null | undefined): Value | undefined => prune(a, b, false);

// ---- json.patch ----------------------------------------------------------------------

/** An array index from a path segment: "-" is the end; no leading zeros; integers only. */
function toIndex(len: number, seg: Value): number {
  if (typeof seg === 'number') {
    if (!Number.isInteger(seg)) throw new PatchError('invalid number type for indexing');
    return seg;
  }
  if (typeof seg === 'string') {
    if (seg === '-') return len;
    if (!/^[+-]?\d+$/.test(seg)) throw new PatchError('invalid string for indexing');
    if (seg !== '0' && seg.startsWith('0')) throw new PatchError('leading zeros are not allowed in JSON paths');
    return Number(seg);
  }
  throw new PatchError('invalid type for indexing');
}

function child(node: Value, seg: Value): Value {
  if (Array.isArray(node)) {
    const i = toIndex(node.length, seg);
    if (i < 0 || i >= node.length) throw new PatchError('index out of range');
    return node[i]!;
  }
  if (node instanceof RSet) {
    if (!node.has(seg)) throw new PatchError('value not found in set');
    return seg;
  }
  if (node instanceof RObject || isPlainObject(node)) {
    const v = objectGet(node, seg);
    if (v === undefined) throw new PatchError('key not found');
    return v;
  }
  throw new PatchError('path leads into a scalar');
}

function withChild(node: Value, seg: Value, value: Value): Value {
  if (Array.isArray(node)) {
    const out = node.slice();
    out[toIndex(node.length, seg)] = value;
    return out;
  }
  if (node instanceof RSet) {
    const out = RSet.from(node.values().filter((x) => !equal(x, seg)));
    out.add(value);
    return out;
  }
  return makeObject([...objectEntries(node as never).filter(([k]) => !equal(k, seg)), [seg, value]]);
}

type Leaf = (parent: Value, seg: Value) => Value;

function update(node: Value, path: Value[], i: number, leaf: Leaf): Value {
  if (i === path.length - 1) return leaf(node, path[i]!);
  return withChild(node, path[i]!, update(child(node, path[i]!), path, i + 1, leaf));
}

function render(doc: Value, path: Value[]): Value {
  let node = doc;
  for (const seg of path) node = child(node, seg);
  return node;
}

function insert(doc: Value, path: Value[], value: Value): Value {
  if (path.length === 0) return value;
  return update(doc, path, 0, (parent, seg) => {
    if (Array.isArray(parent)) {
      const i = toIndex(parent.length, seg);
      if (i < 0 || i > parent.length) throw new PatchError('index out of range');
      return [...parent.slice(0, i), value, ...parent.slice(i)];
    }
    if (parent instanceof RSet) {
      if (!equal(seg, value)) throw new PatchError('set key and value must be equal');
      const out = RSet.from(parent.values());
      out.add(value);
      return out;
    }
    if (parent instanceof RObject || isPlainObject(parent)) return withChild(parent, seg, value);
    throw new PatchError('cannot insert into a scalar');
  });
}

function remove(doc: Value, path: Value[]): Value {
  if (path.length === 0) throw new PatchError('cannot delete the root document');
  return update(doc, path, 0, (parent, seg) => {
    child(parent, seg); // must exist
    if (Array.isArray(parent)) {
      const i = toIndex(parent.length, seg);
      return [...parent.slice(0, i), ...parent.slice(i + 1)];
    }
    if (parent instanceof RSet) return RSet.from(parent.values().filter((x) => !equal(x, seg)));
    return makeObject(objectEntries(parent as never).filter(([k]) => !equal(k, seg)));
  });
}

function attr(op: Value, name: string): Value {
  const v = op instanceof RObject || isPlainObject(op) ? objectGet(op, name) : undefined;
  if (v === undefined) throw new PatchError(`missing '${name}' attribute`);
  return v;
}

function patchPath(v: Value): Value[] {
  if (typeof v !== 'string' && !Array.isArray(v)) throw new PatchError('invalid path');
  return parsePath(v);
}

/** Applies the operations in order; throws PatchError when one cannot be applied. */
export function applyPatch(doc: Value, ops: Value[]): Value {
  for (const op of ops) {
    if (!(op instanceof RObject || isPlainObject(op))) throw new PatchError('must be an array of JSON-Patch objects');
    const name = attr(op, 'op');
    if (typeof name !== 'string') throw new PatchError("attribute 'op' must be a string");
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(name)) throw new PatchError(`unrecognized op '${name}'`);
    const path = patchPath(attr(op, 'path'));
    const from = name === 'move' || name === 'copy' ? patchPath(attr(op, 'from')) : [];
    const value = name === 'add' || name === 'replace' || name === 'test' ? attr(op, 'value') : null;
    switch (name) {
      case 'add':
        doc = insert(doc, path, value);
        break;
      case 'remove':
        doc = remove(doc, path);
        break;
      case 'replace':
        doc = path.length === 0 ? value : insert(remove(doc, path), path, value);
        break;
      case 'move': {
        const v = render(doc, from);
        doc = insert(from.length === 0 ? doc : remove(doc, from), path, v);
        break;
      }
      case 'copy':
        doc = insert(doc, path, render(doc, from));
        break;
      case 'test':
        {
          const found = render(doc, path);
          // OPA's wording for a failed test (values in Rego syntax).
          if (!equal(found, value))
            throw new PatchError(`value from EditTree != patch value.\n\nExpected: ${toRegoString(value)}\n\nFound: ${toRegoString(found)}`);
        }
        break;
    }
  }
  return doc;
}
