// Virtual documents: the value of any node of the package tree, merging base data with
// the documents rules define, plus the `with data...` overrides. Memoised per EvalCtx.

import type { RuleNode } from '../compiler/tree.js';
import { EvalCtx, UNDEF, type OverrideNode } from './context.js';
import { conflict } from './errors.js';
import { equal, isObject, isPlainObject, makeObject, newPlainObject, objectEntries, RSet, type Value } from '../value/index.js';
import { lookup, markInsertionOrdered } from '../value/collections.js';
import { evalComplete, evalSet, generalSolutions } from './rules.js';
import { valueKey } from './closures/terms.js';

export function baseAt(data: Value, path: readonly string[]): Value | undefined {
  let v: Value | undefined = data;
  for (let i = 0; i < path.length; i++) {
    if (v === undefined) return undefined;
    const seg = path[i]!;
    v = Array.isArray(v) ? lookup(v, /^\d+$/.test(seg) ? Number(seg) : seg) : lookup(v, seg);
  }
  return v;
}

/** The document at a node: a rule's value, a set, or the merged object of everything below. */
export function nodeValue(node: RuleNode, ev: EvalCtx): Value | undefined {
  if (node.isFunction) return undefined;
  if (node.complete.length || node.default) return evalComplete(node, ev);
  if (node.sets.length) return evalSet(node, ev);
  const m = ev.docMemo.get(node);
  if (m !== undefined) return m === UNDEF ? undefined : m;
  const acc = new Acc(baseAt(ev.data, node.path));
  fillAcc(acc, node, ev);
  const v = acc.finish();
  ev.docMemo.set(node, v);
  return v;
}

function fillAcc(acc: Acc, node: RuleNode, ev: EvalCtx): void {
  for (const r of node.general) generalSolutions(r, ev, (keys, value, setLeaf) => acc.insert(keys, 0, value, setLeaf));
  for (const [name, c] of node.children) {
    if (!c.hasRules || c.isFunction) continue;
    if (c.isLeaf) {
      const v = nodeValue(c, ev);
      if (v instanceof RSet && c.sets.length) {
        acc.ensureSet(name);
        for (const m of v.values()) acc.insert([name], 0, m, true);
      } else if (v !== undefined) acc.insert([name], 0, v, false);
    } else {
      fillAcc(acc.child(name), c, ev);
    }
  }
}

/** An object being assembled from rule outputs. Rule values are opaque leaves. */
class Acc {
  readonly entries = new Map<string, { key: Value; node: Acc | Leaf }>();
  constructor(readonly base: Value | undefined) {}

  child(name: string): Acc {
    const e = this.entries.get('s' + name);
    if (e) {
      if (e.node instanceof Acc) return e.node;
      throw conflict('object keys must be unique');
    }
    const b = isObject(this.base) ? lookup(this.base, name) : undefined;
    const a = new Acc(isObject(b) ? b : undefined);
    this.entries.set('s' + name, { key: name, node: a });
    return a;
  }

  ensureSet(name: string): void {
    if (!this.entries.has('s' + name)) this.entries.set('s' + name, { key: name, node: { set: new RSet() } });
  }

  insert(keys: Value[], i: number, value: Value, setLeaf: boolean): void {
    const key = keys[i]!;
    const hk = valueKey(key);
    const e = this.entries.get(hk);
    if (i < keys.length - 1) {
      let sub: Acc;
      if (!e) {
        const b = isObject(this.base) ? lookup(this.base, key) : undefined;
        sub = new Acc(isObject(b) ? b : undefined);
        this.entries.set(hk, { key, node: sub });
      } else if (e.node instanceof Acc) sub = e.node;
      else throw conflict('object keys must be unique');
      sub.insert(keys, i + 1, value, setLeaf);
      return;
    }
    if (setLeaf) {
      if (!e) {
        const s = new RSet();
        s.add(value);
        this.entries.set(hk, { key, node: { set: s } });
      } else if (!(e.node instanceof Acc) && e.node.set) e.node.set.add(value);
      else throw conflict('object keys must be unique');
      return;
    }
    if (!e) this.entries.set(hk, { key, node: { value } });
    else if (e.node instanceof Acc || e.node.set || !equal(e.node.value!, value)) throw conflict('object keys must be unique');
  }

  finish(): Value {
    const pairs: [Value, Value][] = [];
    const seen = new Set<string>();
    const base = isObject(this.base) ? this.base : undefined;
    for (const [hk, e] of this.entries) {
      seen.add(hk);
      const n = e.node;
      // a base document value stands where a rule also defines one (as OPA reads it)
      const b = base && !(n instanceof Acc) ? lookup(base, e.key) : undefined;
      pairs.push([e.key, b !== undefined && !isObject(b) ? b : n instanceof Acc ? n.finish() : n.set ? n.set : n.value!]);
    }
    if (base) {
      for (const [k, v] of objectEntries(base)) if (!seen.has(valueKey(k))) pairs.push([k, v]);
    }
    const o = makeObject(pairs);
    markInsertionOrdered(o);
    return o;
  }
}

interface Leaf {
  value?: Value;
  set?: RSet;
}

/** The document at a data path, honouring `with data...` overrides. */
export function dataAt(ev: EvalCtx, path: readonly string[]): Value | undefined {
  let on: OverrideNode | undefined = ev.overrides ?? undefined;
  for (let i = 0; on && i <= path.length; i++) {
    if (on.value !== undefined) return baseAt(on.value, path.slice(i));
    if (i === path.length) break;
    on = on.children.get(path[i]!);
  }
  const v = plainDataAt(ev, path);
  if (!on) return v;
  return applyOverrides(v, on);
}

function applyOverrides(v: Value | undefined, on: OverrideNode): Value {
  if (on.value !== undefined) return on.value;
  const o = newPlainObject();
  if (isObject(v)) for (const [k, x] of objectEntries(v)) if (typeof k === 'string') o[k] = x;
  for (const [k, c] of on.children) o[k] = applyOverrides(isPlainObject(v) ? (v as Record<string, Value>)[k] : undefined, c);
  return o;
}

/** The document at a path without overrides at or above it. */
function plainDataAt(ev: EvalCtx, path: readonly string[]): Value | undefined {
  let node: RuleNode = rootOf(ev);
  for (let i = 0; i < path.length; i++) {
    if (!node.hasRules) return baseAt(ev.data, path);
    if (node.isLeaf || node.general.length) return baseAt(nodeValue(node, ev) ?? null, path.slice(i));
    const c = node.children.get(path[i]!);
    if (!c) return baseAt(ev.data, path);
    node = c;
  }
  return node.hasRules ? nodeValue(node, ev) : baseAt(ev.data, path);
}

function rootOf(ev: EvalCtx): RuleNode {
  return ev.q.root;
}
