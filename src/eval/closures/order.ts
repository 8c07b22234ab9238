// Where the order of iteration can be observed. Sets and objects iterate in sorted order
// (as OPA's do), but sorting costs; a body whose solutions only feed a set, an object
// comprehension, a complete rule or a function (all of which give the same value, or
// the same conflict, in any order) may iterate in insertion order instead. Array
// comprehensions, queries (their result order) and ref-head object rules (documents that
// iterate in the order rules produced them) keep the sorted order, as do policies that
// print or trace (their output order is observable) and strict-builtin-errors runs
// (which error is met first could change).

import type { CompiledRule, RuleNode } from '../../compiler/tree.js';
import { refName } from '../../compiler/terms.js';
import { walkBody, walkTerm } from '../../compiler/walk.js';
import type { Term } from '../../lang/ast.js';
import { iterate, iterateAnyOrder } from '../../value/collections.js';
import type { Frame } from '../context.js';
import type { Value } from '../../value/index.js';
import type { PlanCtx } from './ctx.js';

type Iterate = (coll: Value | undefined, fn: (k: Value, v: Value) => boolean) => boolean;

const OUTPUT_BUILTINS = new Set(['print', 'trace']);

/** Whether no rule of the policy prints or traces (cached on the root node). */
export function quietPolicy(root: RuleNode): boolean {
  let quiet = root.cache['quiet'] as boolean | undefined;
  if (quiet !== undefined) return quiet;
  quiet = true;
  const loud = (t: Term) => {
    const n = refName(t);
    if (n !== undefined && OUTPUT_BUILTINS.has(n)) quiet = false;
  };
  const visit = (n: RuleNode) => {
    for (const r of n.allRules())
      for (let x: CompiledRule | undefined = r; x && quiet; x = x.else) {
        walkBody(x.body, { term: loud, call: loud });
        for (const t of [x.key, x.value, ...(x.args ?? []), ...x.suffix]) if (t) walkTerm(t, { term: loud, call: loud });
      }
    for (const c of n.children.values()) if (quiet) visit(c);
  };
  visit(root);
  root.cache['quiet'] = quiet;
  return quiet;
}

/** Whether a rule's body may iterate in any order (see the top of this file). */
export function ruleOrderFree(r: CompiledRule, pc: PlanCtx): boolean {
  return (r.kind === 'set' || r.kind === 'complete' || r.kind === 'function') && !pc.traced && quietPolicy(pc.root);
}

/** Whether a comprehension's body (and head) may iterate in any order. */
export function comprehensionOrderFree(kind: 'arraycomprehension' | 'setcomprehension' | 'objectcomprehension', pc: PlanCtx): boolean {
  return kind !== 'arraycomprehension' && !pc.traced && quietPolicy(pc.root);
}

/** The iteration to use where the planner is now: any order if allowed, else sorted. */
export function iterationFor(pc: PlanCtx): (fr: Frame) => Iterate {
  if (!pc.orderFree) return () => iterate;
  // `with` mocks may put a printing function where the policy had none
  return (fr) => (fr.ev.q.strict || fr.ev.mocks !== null ? iterate : iterateAnyOrder);
}
