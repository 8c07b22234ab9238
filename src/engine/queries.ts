// Preparing queries: Rego text (or a parsed body) -> a QueryPlan against one compiled
// policy, with the timers OPA reports, and a bounded cache of prepared plans that lives
// exactly as long as the compiled policy it was planned against.

import { parseQuery, type Body, type RegoVersion } from '../lang/index.js';
import type { CompiledPolicy } from '../compiler/index.js';
import { QueryPlan } from '../eval/query.js';

/** Parses (unless given a body), compiles and plans a query. Throws RegoParseError / RegoCompileError. */
export function planQuery(policy: CompiledPolicy, query: string | Body, regoVersion: RegoVersion, metrics?: Record<string, number>): QueryPlan {
  const t0 = metrics ? process.hrtime.bigint() : 0n;
  const body = typeof query === 'string' ? parseQuery(query, { regoVersion }) : query;
  const t1 = metrics ? process.hrtime.bigint() : 0n;
  const plan = new QueryPlan(policy, policy.compileQuery(body), body, 'query');
  if (metrics) {
    metrics['timer_rego_query_parse_ns'] = Number(t1 - t0);
    metrics['timer_rego_query_compile_ns'] = Number(process.hrtime.bigint() - t1);
  }
  return plan;
}

/** Prepared plans by key; cleared whole when full (decision paths are few, ad-hoc queries many). */
export class PlanCache {
  private plans = new Map<string, QueryPlan>();
  constructor(private readonly max = 1000) {}

  get(key: string): QueryPlan | undefined {
    return this.plans.get(key);
  }

  set(key: string, plan: QueryPlan): void {
    if (this.plans.size >= this.max) this.plans.clear();
    this.plans.set(key, plan);
  }

  clear(): void {
    this.plans.clear();
  }
}
