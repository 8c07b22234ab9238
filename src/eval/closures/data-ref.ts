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
import { compilePath, fromGen, fromGetter } from './terms.js';
import type { TermC } from './types.js';

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
  const { node, path, consumed } = planDataPath(rest, pc.root);
  const fast: (fr: Frame) => Value | undefined = node
    ? (fr) => nodeValue(node, fr.ev)
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
