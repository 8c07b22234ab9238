// Refs into data. At plan time the ref's leading constant keys are walked through the
// package tree: a ref that leaves the rule tree is a plain base-data lookup; a ref that
// reaches a rule (or iterates over a node with rules below) evaluates that node's virtual
// document (memoised per query) and walks the rest of the ref through it.

import type { Term } from '../../lang/ast.js';
import { RuleNode as RuleNodeClass, type RuleNode } from '../../compiler/tree.js';
import type { Frame } from '../context.js';
import type { Value } from '../../value/index.js';
import { baseAt, dataAt, nodeValue } from '../virtual-doc.js';
import type { PlanCtx } from './ctx.js';
import { compilePath, compileTerm, fromGen, fromGetter } from './terms.js';
import { forEachVarShallow } from '../../compiler/terms.js';
import type { K, TermC } from './types.js';
import { compareStrings, pathReader } from '../../value/index.js';
import { isPlainObject } from '../../value/object.js';

/** A constant key usable as a data path segment (numbers name keys like "2" in data). */
function segment(t: Term): string | undefined {
  if (t.type === 'string') return t.value;
  if (t.type === 'number' && /^\d+$/.test(t.value)) return t.value;
  return undefined;
}

const EMPTY = new RuleNodeClass([], undefined);

export function planDataPath(rest: Term[], root: RuleNode): { node: RuleNode | null; path: string[]; consumed: number } {
  let node = root;
  let i = 0;
  const path: string[] = [];
  while (i < rest.length) {
    if (!node.hasRules) break;
    if (node.isLeaf || node.general.length > 0) break;
    const seg = segment(rest[i]!);
    if (seg === undefined) break;
    path.push(seg);
    i++;
    const c = node.children.get(seg);
    if (!c) {
      node = EMPTY;
      break;
    }
    node = c;
  }
  if (!node.hasRules) {
    // base data below: take the remaining constant keys directly
    for (let seg = rest[i] && segment(rest[i]!); seg !== undefined && i < rest.length; seg = rest[i] && segment(rest[i]!)) {
      path.push(seg);
      i++;
    }
    return { node: null, path, consumed: i };
  }
  return { node, path, consumed: i };
}

export function compileDataRef(rest: Term[], pc: PlanCtx): TermC {
  return compileFrom(pc.root, [], rest, pc);
}

/** Whether a ref key's value is known when the ref runs (no var it would bind). */
function known(t: Term, pc: PlanCtx): boolean {
  let ok = t.type !== 'arraycomprehension' && t.type !== 'setcomprehension' && t.type !== 'objectcomprehension';
  forEachVarShallow(t, (n) => {
    if (!pc.isBound(n)) ok = false;
  });
  return ok;
}

function compileFrom(root: RuleNode, prefix: string[], rest: Term[], pc: PlanCtx): TermC {
  const planned = planDataPath(rest, root);
  const { node, consumed } = planned;
  const path = [...prefix, ...planned.path];
  const dyn = consumed < rest.length ? rest[consumed]! : undefined;
  const iterating = dyn?.type === 'var' && !pc.isBound(dyn.value);
  if (dyn && node && !node.isLeaf && node.general.length === 0 && (iterating || known(dyn, pc))) {
    // A dynamic key over a node with rules below (`data[input.ns].a`, `data[ns].a`): descend
    // by its value (or each key in turn), as OPA does, instead of reading the whole node,
    // which may hold the rule being evaluated and would recurse.
    const key = compileTerm(dyn, pc);
    const after = rest.slice(consumed + 1);
    const children = new Map<string, TermC>();
    for (const [k, c] of node.children) children.set(k, compileFrom(c, [...path, k], after, pc));
    const below = after.length ? compilePath(after, pc) : undefined;
    const descend = (fr: Frame, kv: Value, k: K): boolean => {
      if (typeof kv !== 'string') return false;
      const c = children.get(kv);
      if (c) return c.gen(fr, k);
      const h = fr.ev.overrides === null ? baseAt(fr.ev.data, [...path, kv]) : dataAt(fr.ev, [...path, kv]);
      if (h === undefined) return false;
      return below ? below.stage(fr, h, k) : k(h);
    };
    if (!iterating) return fromGen((fr, k) => key.gen(fr, (kv) => descend(fr, kv, k)));
    return fromGen((fr, k) => {
      const keys = new Set(children.keys());
      const b = fr.ev.overrides === null ? baseAt(fr.ev.data, path) : dataAt(fr.ev, path);
      if (isPlainObject(b)) for (const x of Object.keys(b)) keys.add(x);
      for (const kv of [...keys].sort(compareStrings)) if (key.match(fr, kv, (f) => descend(f, kv, k))) return true;
      return false;
    });
  }
  // a base document path without array indexes: one generated reader (see value/path-reader.ts)
  const read = node === null && !path.some((seg) => /^\d+$/.test(seg)) ? pathReader('data', path) : undefined;
  const fast: (fr: Frame) => Value | undefined = node
    ? (fr) => nodeValue(node, fr.ev)
    : read
      ? (fr) => read(fr.ev.data)
      : (fr) => baseAt(fr.ev.data, path);
  const head = (fr: Frame): Value | undefined => (fr.ev.overrides === null ? fast(fr) : dataAt(fr.ev, path));
  const remaining = rest.slice(consumed);
  if (remaining.length === 0) return fromGetter(head);
  const p = compilePath(remaining, pc);
  if (p.get) {
    const pg = p.get;
    return fromGetter((fr) => {
      const h = head(fr);
      return h === undefined ? undefined : pg(fr, h);
    });
  }
  const stage = p.stage;
  return fromGen((fr, k) => {
    const h = head(fr);
    return h === undefined ? false : stage(fr, h, k);
  });
}
