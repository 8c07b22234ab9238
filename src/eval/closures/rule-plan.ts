// A rule's closure plan, built the first time the rule is evaluated and kept on the rule.

import type { CompiledRule } from '../../compiler/tree.js';
import type { RuleNode } from '../../compiler/tree.js';
import { forEachVarShallow } from '../../compiler/terms.js';
import { PlanCtx } from './ctx.js';
import { compileBody } from './exprs.js';
import { compileTerm } from './terms.js';
import type { Step, TermC } from './types.js';
import { traceRuleBody } from '../trace/plan.js';
import { ruleOrderFree } from './order.js';

export interface RulePlan {
  nslots: number;
  args: TermC[];
  body: Step;
  suffix: TermC[];
  key?: TermC;
  value?: TermC;
  /** The head value is a constant: one solution settles the rule. */
  constValue: boolean;
  /** rules.ts's runner for this plan, built on first use (closures made once, not per call). */
  runner: unknown;
}

const TAIL: Step = (fr) => fr.out(fr);

/** Traced plans, kept apart from the rule's own plan (built only when a tracer asks). */
const tracedPlans = new WeakMap<CompiledRule, RulePlan>();

export function planRule(r: CompiledRule, root: RuleNode, traced?: boolean): RulePlan {
  if (traced) return tracedPlans.get(r) ?? buildPlan(r, root, true);
  if (r.plan) return r.plan as RulePlan;
  return buildPlan(r, root, false);
}

function buildPlan(r: CompiledRule, root: RuleNode, traced: boolean): RulePlan {
  const pc = new PlanCtx(root, r.module.package.location?.file ?? '');
  pc.traced = traced;
  pc.orderFree = ruleOrderFree(r, pc);
  const args = (r.args ?? []).map((a) => compileTerm(a, pc));
  const argVars: string[] = [];
  for (const a of r.args ?? []) forEachVarShallow(a, (n) => argVars.push(n));
  for (const n of argVars) pc.bound.add(n);
  let bound = pc.bound;
  const build = (tail: Step): Step => {
    const c = compileBody(r.body, pc, tail);
    bound = c.bound;
    return c.step;
  };
  const step = traced ? traceRuleBody(r.rule, 'data.' + r.path.join('.'), build, TAIL) : build(TAIL);
  pc.bound = bound;
  const plan: RulePlan = {
    nslots: 0,
    args,
    body: step,
    suffix: r.suffix.map((t) => compileTerm(t, pc)),
    key: r.key ? compileTerm(r.key, pc) : undefined,
    value: r.value ? compileTerm(r.value, pc) : undefined,
    constValue: !!r.value && (r.value.type === 'boolean' || r.value.type === 'string' || r.value.type === 'number' || r.value.type === 'null'),
    runner: undefined,
  };
  plan.nslots = pc.nslots;
  if (traced) tracedPlans.set(r, plan);
  else r.plan = plan;
  return plan;
}
