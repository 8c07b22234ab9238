// How a replayed decision changed. Results are compared as canonical JSON (object keys
// sorted, sets as sorted arrays, numbers in their exact text), so two results that print
// alike are the same decision.
//
// "allow" is `true` or an object whose `allow` field is `true`; "deny" is `false`,
// undefined (no result), or an object whose `allow` is anything else or absent. A change
// is allow->deny or deny->allow when that verdict flips, and 'value' otherwise. The
// verdicts apply only to boolean-ish paths: a pair where at least one side is a boolean
// or an object with an `allow` field. For any other pair (numbers, strings, arrays,
// objects without `allow` on both sides, or such a value against undefined) a difference
// is a 'value' change: an undefined result counts as deny next to true/false or an
// {allow} object, and as a value change next to anything else.

import { isPlainObject, toJSONText, type Value } from '../../engine/index.js';

export type ChangeKind = 'allow->deny' | 'deny->allow' | 'value';

/** Canonical JSON text of a result; undefined for an undefined result. */
export function canonical(v: Value | undefined): string | undefined {
  return v === undefined ? undefined : toJSONText(v);
}

/** The result as plain JSON (sets as sorted arrays), for reports. */
export function canonicalJSON(v: Value | undefined): unknown {
  const t = canonical(v);
  return t === undefined ? undefined : (JSON.parse(t) as unknown);
}

function decisionLike(v: Value | undefined): boolean {
  return typeof v === 'boolean' || (isPlainObject(v) && Object.hasOwn(v, 'allow'));
}

/** 'allow' / 'deny' for values the verdict rule covers; undefined for other values. */
export function verdict(v: Value | undefined): 'allow' | 'deny' | undefined {
  if (v === true) return 'allow';
  if (v === false || v === undefined) return 'deny';
  if (isPlainObject(v)) return v['allow'] === true ? 'allow' : 'deny';
  return undefined;
}

/** How `after` differs from `before`; undefined when they are the same decision. */
export function classify(before: Value | undefined, after: Value | undefined): ChangeKind | undefined {
  if (canonical(before) === canonical(after)) return undefined;
  if (decisionLike(before) || decisionLike(after)) {
    const b = verdict(before);
    const a = verdict(after);
    if (b && a && b !== a) return b === 'allow' ? 'allow->deny' : 'deny->allow';
  }
  return 'value';
}
