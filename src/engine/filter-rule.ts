// What a data-filtering request (/v1/compile/{path}) reads from the filter rule's METADATA
// when the request does not say: the unknowns and the mask rule, from `compile:` (OPA 1.9+)
// or the older `custom:` keys, looked up on the rule, then its document, then its package.

import type { Annotations } from '../lang/index.js';
import type { CompiledPolicy } from '../compiler/index.js';

export interface FilterRuleMeta {
  unknowns?: string[];
  maskRule?: string;
}

function fromAnnotation(a: Annotations): FilterRuleMeta {
  const out: FilterRuleMeta = {};
  const custom = a.custom ?? {};
  const unknowns = a.compile?.unknowns ?? custom['unknowns'];
  const mask = a.compile?.mask_rule ?? custom['mask_rule'];
  if (Array.isArray(unknowns) && unknowns.every((u) => typeof u === 'string')) out.unknowns = unknowns as string[];
  if (typeof mask === 'string') out.maskRule = mask;
  return out;
}

export function filterRuleMeta(policy: CompiledPolicy, path: readonly string[]): FilterRuleMeta {
  const node = policy.root.find([...path]);
  const rules = node ? [...node.complete, ...node.sets, ...node.general, ...(node.default ? [node.default] : [])] : [];
  const blocks: Annotations[] = [];
  for (const r of rules) blocks.push(...(r.rule.annotations ?? []));
  for (const r of rules) blocks.push(...r.module.annotations.filter((a) => a.scope === 'document' || a.scope === 'package' || a.scope === 'subpackages'));
  const out: FilterRuleMeta = {};
  for (const a of blocks) {
    const m = fromAnnotation(a);
    out.unknowns ??= m.unknowns;
    out.maskRule ??= m.maskRule;
  }
  // a mask rule named relative to the filter rule's package
  if (out.maskRule && !out.maskRule.startsWith('data.')) out.maskRule = ['data', ...path.slice(0, -1), out.maskRule].join('.');
  return out;
}
