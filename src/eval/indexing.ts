// Rule indexing: among the rules defining one document, only those whose equality tests
// against constants can hold for this input are evaluated. A rule body's top-level
// `input.a.b == <constant>` (or `=`) constrains it; the ref constraining the most rules
// with the most distinct values becomes the index key. Rules without a constraint on it
// (or with an else chain) are always candidates.

import type { Term } from '../lang/ast.js';
import type { CompiledRule, RuleNode } from '../compiler/tree.js';
import { refName } from '../compiler/terms.js';
import type { EvalCtx } from './context.js';
import { lookup } from '../value/collections.js';
import { constValue, valueKey } from './closures/terms.js';
import type { Value } from '../value/index.js';

interface RuleIndex {
  path: string[];
  buckets: Map<string, CompiledRule[]>;
  always: CompiledRule[];
  order: Map<CompiledRule, number>;
}

/** Fewer rules than this are not indexed: candidates() returns them all. */
export const MIN_RULES = 8;

function inputPath(t: Term): string[] | undefined {
  if (t.type !== 'ref' || t.value[0]?.type !== 'var' || t.value[0].value !== 'input') return undefined;
  const out: string[] = [];
  for (const x of t.value.slice(1)) {
    if (x.type !== 'string') return undefined;
    out.push(x.value);
  }
  return out;
}

/** The (input path, constant) equality tests at the top level of a rule body. */
function constraints(r: CompiledRule): Map<string, { path: string[]; value: Value }> {
  const out = new Map<string, { path: string[]; value: Value }>();
  if (r.else) return out;
  for (const e of r.body) {
    if (e.negated || (e.with && e.with.length) || !Array.isArray(e.terms) || e.terms.length !== 3) continue;
    const op = refName(e.terms[0]!);
    if (op !== 'eq' && op !== 'equal') continue;
    const [a, b] = [e.terms[1]!, e.terms[2]!];
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const p = inputPath(x);
      const v = p && constValue(y);
      if (p && v !== undefined) {
        const k = p.join('\u0000');
        if (!out.has(k)) out.set(k, { path: p, value: v });
      }
    }
  }
  return out;
}

function build(rules: CompiledRule[]): RuleIndex | null {
  const per = rules.map(constraints);
  const stats = new Map<string, { path: string[]; values: Set<string>; n: number }>();
  for (const c of per)
    for (const [k, { path, value }] of c) {
      let s = stats.get(k);
      if (!s) stats.set(k, (s = { path, values: new Set(), n: 0 }));
      s.values.add(valueKey(value));
      s.n++;
    }
  let best: { key: string; path: string[]; score: number } | undefined;
  for (const [key, s] of stats) {
    const score = s.values.size * 1e6 + s.n;
    if (s.values.size > 1 && (!best || score > best.score)) best = { key, path: s.path, score };
  }
  if (!best) return null;
  const idx: RuleIndex = { path: best.path, buckets: new Map(), always: [], order: new Map() };
  rules.forEach((r, i) => {
    idx.order.set(r, i);
    const c = per[i]!.get(best!.key);
    if (!c) idx.always.push(r);
    else {
      const k = valueKey(c.value);
      let b = idx.buckets.get(k);
      if (!b) idx.buckets.set(k, (b = []));
      b.push(r);
    }
  });
  return idx;
}

/** The rules of `kind` at `node` that can apply for this evaluation, in source order. */
export function candidates(node: RuleNode, kind: 'complete' | 'sets', ev: EvalCtx): CompiledRule[] {
  const rules = node[kind];
  if (rules.length < MIN_RULES) return rules;
  const key = kind === 'complete' ? 'index:complete' : 'index:sets';
  let idx = node.cache[key] as RuleIndex | null | undefined;
  if (idx === undefined) node.cache[key] = idx = build(rules);
  if (!idx) return rules;
  let v: Value | undefined = ev.input;
  for (const p of idx.path) {
    if (v === undefined) break;
    v = lookup(v, p);
  }
  const hit = v === undefined ? undefined : idx.buckets.get(valueKey(v));
  if (!hit) return idx.always;
  if (idx.always.length === 0) return hit;
  return [...hit, ...idx.always].sort((a, b) => idx!.order.get(a)! - idx!.order.get(b)!);
}
