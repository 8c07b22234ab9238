// `in` (internal.member_2 / internal.member_3) and internal.test_case.

import { registerBuiltins } from './registry.js';
import { equal, isObject, objectGet, RSet, type Value } from '../../value/index.js';
import { iterateAnyOrder, lookup } from '../../value/collections.js';

/** `x in coll` (exported for the evaluator, which tests it in place). */
export function member2(x: Value, coll: Value): boolean {
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) if (coll[i] === x || equal(coll[i]!, x)) return true;
    return false;
  }
  if (coll instanceof RSet) return coll.has(x);
  // membership does not depend on the order the values are compared in
  return iterateAnyOrder(coll, (_k, v) => equal(v, x));
}

function member3(k: Value, x: Value, coll: Value): boolean {
  if (Array.isArray(coll) || isObject(coll)) {
    const v = Array.isArray(coll) ? lookup(coll, k) : objectGet(coll, k);
    return v !== undefined && equal(v, x);
  }
  return false;
}

registerBuiltins([
  {
    name: 'internal.member_2',
    fn: ([x, coll]) => member2(x!, coll!),
  },
  {
    name: 'internal.member_3',
    fn: ([k, x, coll]) => member3(k!, x!, coll!),
  },
  {
    name: 'internal.test_case',
    impure: true,
    fn: ([path], ctx) => {
      ctx.testCase?.(path!);
      return true;
    },
  },
]);
