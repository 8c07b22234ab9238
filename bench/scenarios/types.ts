// A realistic decision: a policy file under bench/policies, its data, inputs (as the JSON
// text a server receives) and a hand-written JavaScript function computing the same
// decision from the same JSON text.

export interface Scenario {
  name: string;
  /** File name under bench/policies/. */
  policy: string;
  /** The query prepared once, e.g. "data.rbac.allow". */
  query: string;
  /** The package path for the HTTP API, e.g. "rbac". */
  packagePath: string;
  /** The base data document (or {}). */
  data: Record<string, unknown>;
  /** Inputs as JSON text, with the decision each one must get (checked at startup). */
  cases: { json: string; expect: unknown }[];
  /** Builds the hand-written decision function (given the data, as a real app would have it). */
  handWritten(data: Record<string, unknown>, policyConstants: Record<string, unknown>): (json: string) => unknown;
  /** Constants of the policy the hand-written version shares (queried once at startup). */
  constants?: string[];
  /** Turns an undefined policy result into the decision it stands for (e.g. [] for an empty set). */
  undefinedAs?: unknown;
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function get(o: unknown, ...path: string[]): unknown {
  let cur = o;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}
