// Preparing and running one query against a compiled policy set, synchronously when the
// policy needs no I/O and on the async path otherwise (http.send and friends), with the
// timing metrics `opa eval --metrics` reports.

import { planQuery, runPlan, type QueryPlan, type RawResult, type RegoEvalError, type RegoVersion, type Tracer, type Value } from '../engine/index.js';
import { CommandErrors, toErrorDetails, type PolicySet } from './policy-set.js';

export interface PreparedRun {
  plan: QueryPlan;
  metrics: Record<string, number>;
}

function ns(from: bigint): number {
  return Number(process.hrtime.bigint() - from);
}

/** Parses and compiles the query; throws CommandErrors in OPA's shape. */
export function prepareQuery(set: PolicySet, query: string, regoVersion: RegoVersion): PreparedRun {
  const metrics: Record<string, number> = {};
  try {
    return { plan: planQuery(set.regolith.compile(), query, regoVersion, metrics), metrics };
  } catch (e) {
    throw new CommandErrors(toErrorDetails(e));
  }
}

export interface RunQueryOptions {
  input?: Value;
  data: Value;
  strict?: boolean;
  timeoutMs?: number;
  tracer?: Tracer;
  print?: (m: string) => void;
  /** Collects the errors of built-in calls made undefined (`opa eval --show-builtin-errors`). */
  builtinErrors?: RegoEvalError[];
}

/** Runs a prepared query; evaluation errors come back as CommandErrors. */
export async function runPrepared(p: PreparedRun, o: RunQueryOptions): Promise<RawResult[]> {
  const run = {
    input: o.input,
    data: o.data,
    strict: o.strict,
    tracer: o.tracer,
    print: o.print,
    builtinErrors: o.builtinErrors,
    deadline: o.timeoutMs ? Date.now() + o.timeoutMs : undefined,
  };
  const t0 = process.hrtime.bigint();
  try {
    return await runPlan(p.plan, run);
  } catch (e) {
    throw new CommandErrors(toErrorDetails(e));
  } finally {
    p.metrics.timer_rego_query_eval_ns = ns(t0);
  }
}
