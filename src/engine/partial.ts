// Partial evaluation as the engine offers it: the residual queries and support modules of
// src/partial, with their Rego text and the JSON shapes OPA serves (the Compile API's
// `{queries, support}`, `opa eval --partial`'s `{queries, modules}`).

import { bodyToJSON, formatBody, formatModule, moduleToJSON, type Body, type Module } from '../lang/index.js';
import { partialEval, PartialError, type PartialOptions } from '../partial/index.js';
import { Suspend } from '../eval/errors.js';
import { asyncBuiltinOf } from './custom-builtins.js';
import type { QueryPlan } from '../eval/query.js';
import type { Value } from '../value/index.js';

export type { PartialOptions };

export class PartialQueries {
  constructor(
    /** One body per alternative; an empty body: always true; none: never true. */
    readonly queries: Body[],
    /** Support modules (packages under `partial`) the queries refer to. */
    readonly support: Module[],
  ) {}

  /** Each query as Rego text, one expression per line. */
  get queriesText(): string[] {
    // one expression per line: where the policy wrote each one is no reason for blank lines
    return this.queries.map((b) => formatBody(b.map((e) => ({ ...e, location: undefined }))));
  }

  get supportText(): string[] {
    return this.support.map((m) => formatModule(m));
  }

  /** The Compile API's result: `{}` when never true, else `{queries, support?}` in OPA's JSON AST. */
  compileResult(): Value {
    if (!this.queries.length) return {};
    const out: Record<string, Value> = { queries: this.queries.map((b) => bodyToJSON(b) as Value) };
    if (this.support.length) out['support'] = this.support.map((m) => moduleToJSON(m) as Value);
    return out;
  }

  /** `opa eval --partial --format json`'s `partial` member. */
  evalOutput(): Value {
    const out: Record<string, Value> = {};
    if (this.queries.length) out['queries'] = this.queries.map((b) => bodyToJSON(b) as Value);
    if (this.support.length) out['modules'] = this.support.map((m) => moduleToJSON(m) as Value);
    return out;
  }
}

export function partialPlan(plan: QueryPlan, o: PartialOptions): PartialQueries {
  let r: ReturnType<typeof partialEval>;
  try {
    r = partialEval(plan.policy, plan.cq, o);
  } catch (e) {
    // Partial evaluation is synchronous: a built-in that waits (an async custom one, or
    // http.send with nondeterministic built-ins evaluated) cannot answer there.
    if (!(e instanceof Suspend)) throw e;
    const b = asyncBuiltinOf(e);
    throw new PartialError(`${b?.name ?? 'a built-in that waits on I/O'}: asynchronous built-ins cannot be evaluated during partial evaluation`, b?.location);
  }
  return new PartialQueries(r.queries, r.support);
}
