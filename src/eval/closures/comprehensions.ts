// Comprehensions: the body runs in the enclosing frame (it sees outer bindings) and its
// head values are collected into an accumulator kept in a hidden slot.

import type { ArrayComprehensionTerm, ObjectComprehensionTerm, SetComprehensionTerm } from '../../lang/ast.js';
import type { Frame } from '../context.js';
import { conflict } from '../errors.js';
import { equal, makeObject, RSet, type Value } from '../../value/index.js';
import type { PlanCtx } from './ctx.js';
import { compileBody } from './exprs.js';
import { compileTerm, fromGetter, valueKey } from './terms.js';
import type { Step, TermC } from './types.js';
import { traceChildBody } from '../trace/plan.js';
import { comprehensionOrderFree } from './order.js';

/** In a traced plan the comprehension body is a child query, as in OPA. */
function traced(step: Step, t: ArrayComprehensionTerm | SetComprehensionTerm | ObjectComprehensionTerm, pc: PlanCtx): Step {
  if (!pc.traced) return step;
  return traceChildBody(t.value.body, t.value.body.map((e) => e.location?.text ?? '').join('; '), t.location, step);
}

export function compileComprehension(t: ArrayComprehensionTerm | SetComprehensionTerm | ObjectComprehensionTerm, pc: PlanCtx): TermC {
  // an array collects in iteration order; a set or object does not depend on it
  const saved = pc.orderFree;
  pc.orderFree = comprehensionOrderFree(t.type, pc);
  try {
    return compileIn(t, pc);
  } finally {
    pc.orderFree = saved;
  }
}

function compileIn(t: ArrayComprehensionTerm | SetComprehensionTerm | ObjectComprehensionTerm, pc: PlanCtx): TermC {
  const acc = pc.hidden();
  return pc.withBound(null, () => {
    if (t.type === 'objectcomprehension') {
      let keyC: TermC | undefined;
      let valC: TermC | undefined;
      const { step: plain, bound } = compileBody(t.value.body, pc, (fr) => {
        const m = fr.slots[acc] as unknown as Map<string, [Value, Value]>;
        return keyC!.gen(fr, (k) =>
          valC!.gen(fr, (v) => {
            const hk = valueKey(k);
            const prev = m.get(hk);
            if (prev && !equal(prev[1], v)) throw conflict('object keys must be unique', t.location);
            m.set(hk, [k, v]);
            return false;
          }),
        );
      });
      const step = traced(plain, t, pc);
      pc.withBound(bound, () => {
        keyC = compileTerm(t.value.key, pc);
        valC = compileTerm(t.value.value, pc);
      });
      return fromGetter((fr: Frame) => {
        const saved = fr.slots[acc];
        const m = new Map<string, [Value, Value]>();
        fr.slots[acc] = m as unknown as Value;
        step(fr);
        fr.slots[acc] = saved;
        return makeObject([...m.values()]);
      });
    }
    let headC: TermC | undefined;
    const isSet = t.type === 'setcomprehension';
    const { step: plain, bound } = compileBody(t.value.body, pc, (fr) => {
      const a = fr.slots[acc] as unknown as Value[] | RSet;
      return headC!.gen(fr, (v) => {
        if (isSet) (a as RSet).addUnchecked(v);
        else (a as Value[]).push(v);
        return false;
      });
    });
    const step = traced(plain, t, pc);
    pc.withBound(bound, () => {
      headC = compileTerm(t.value.term, pc);
    });
    return fromGetter((fr: Frame) => {
      const saved = fr.slots[acc];
      const a: Value[] | RSet = isSet ? new RSet() : [];
      fr.slots[acc] = a as Value;
      step(fr);
      fr.slots[acc] = saved;
      return a as Value;
    });
  });
}
