// Partial evaluation: a compiled query plus what is known -> the conditions that remain on
// what is unknown. `partialEval` answers with residual queries (one per way the query can
// hold; an empty one means "always") and the support modules they refer to. The engine
// serves it as POST /v1/compile, `regolith eval --partial` and `prepare(q).partial()`.

import type { Body, Expr, Module } from '../lang/ast.js';
import type { CompiledPolicy, CompiledQuery } from '../compiler/index.js';
import type { Value } from '../value/index.js';
import { PartialError, PartialEvaluator } from './evaluator.js';
import { EMPTY, lookup } from './state.js';
import { callExpr, keyOf } from './terms.js';
import { parseUnknowns, Unknowns } from './unknowns.js';
import { PartialTrace } from './trace.js';
import type { Tracer } from '../eval/trace/events.js';
import { formatBody } from '../lang/index.js';

export { PartialError };
export { UnknownError, parseUnknowns } from './unknowns.js';
export { NOT_EXPANSION_LIMIT } from './negation.js';

/** More alternatives than this is an error, not an answer: no client can use a million queries. */
export const MAX_QUERIES = 10000;

export interface PartialOptions {
  input?: Value;
  data?: Value;
  /** Refs (Rego text) whose values are unknown; default ["input"]. */
  unknowns?: readonly string[];
  /** Data refs (Rego text) never inlined: they stay support rules. */
  disableInlining?: readonly string[];
  /** Evaluate non-deterministic built-ins (http.send, time.now_ns, rand.*) instead of keeping them. */
  nondeterministicBuiltins?: boolean;
  strictBuiltinErrors?: boolean;
  /** Absolute deadline, ms since the epoch. */
  deadline?: number;
  /** Receives the explanation events (Enter, Eval, Save, Fail, Exit). */
  tracer?: Tracer;
}

export interface PartialResult {
  /** One body per alternative; an empty body means the query always holds. No bodies: never. */
  queries: Body[];
  /** Modules of the support rules the queries refer to (packages under `partial`). */
  support: Module[];
}

export function partialEval(policy: CompiledPolicy, cq: CompiledQuery, o: PartialOptions = {}): PartialResult {
  const unknowns = new Unknowns(parseUnknowns(o.unknowns ?? ['input']));
  const disableInlining = parseUnknowns(o.disableInlining ?? []).map((p) => (p[0] === 'data' ? p.slice(1) : p));
  const pe = new PartialEvaluator(policy, {
    input: o.input,
    data: o.data ?? {},
    unknowns,
    disableInlining,
    evalNondeterministic: !!o.nondeterministicBuiltins,
    strictBuiltinErrors: !!o.strictBuiltinErrors,
    deadline: o.deadline,
    trace: o.tracer ? new PartialTrace(o.tracer) : undefined,
  });
  const fr = pe.frame();
  const trace = pe.o.trace;
  const text = trace ? formatBody(cq.body) : '';
  trace?.query('Enter', fr.id, cq.body, text);
  const queries: Body[] = [];
  const seen = new Set<string>();
  pe.body(cq.body, 0, fr, EMPTY, (s) => {
    trace?.query('Exit', fr.id, cq.body, text);
    // the caller reads its query's variables from the residual, as OPA includes them
    const bindings: Expr[] = [];
    let st = s;
    for (const name of cq.outputVars) {
      const b = lookup(st, `${fr.id}:${name}`);
      if (b === undefined) continue;
      const p = pe.plugged(b, st);
      st = p.st;
      bindings.push(callExpr('eq', [{ type: 'var', value: name }, p.t]));
    }
    const exprs: Expr[] = [...pe.residualSince(st, EMPTY), ...bindings];
    const body = dedupe(exprs).map((e, index) => ({ ...e, index }));
    const key = keyOf(body);
    if (seen.has(key)) return;
    seen.add(key);
    queries.push(body);
    if (queries.length > MAX_QUERIES) throw new PartialError(`partial evaluation produced more than ${MAX_QUERIES} queries: simplify the policy or narrow the unknowns`);
  });
  return { queries, support: pe.support.modules(queries) };
}

function dedupe(exprs: Expr[]): Expr[] {
  const seen = new Set<string>();
  return exprs.filter((e) => {
    const k = keyOf({ t: e.terms, n: !!e.negated, w: e.with });
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
