// Iterating a partial set rule without building the set. In
//
//     some grant in user_grants          # user_grants contains grant if { ... }
//     grant.action == input.action
//
// the ordinary plan evaluates every rule of user_grants into a set (memoised for the
// query) and then loops over it. When the loop's body does not depend on the order of
// iteration (an order-free body, see order.ts, which also accepts a member seen twice) and
// the set's rules can never raise an error (so stopping at the first answer cannot skip one
// the full set would have met; see neverFails), the rules' solutions can go straight to the
// loop's body: no set, and the rules stop as soon as the body has its answer. The members
// arrive in the order the set would have held them. The first such loop of a query runs
// lazily; a second loop over the same set in the same query builds and memoises it as
// before, so a set read in a loop is still built only once. Not for traced plans, strict
// built-in errors (sorted order there), or when `with` replaces data or functions.

import type { Body, Expr, Term } from '../../lang/ast.js';
import type { CompiledRule, RuleNode } from '../../compiler/tree.js';
import { isEvery, isSome, refName } from '../../compiler/terms.js';
import type { Value } from '../../value/index.js';
import { Frame } from '../context.js';
import { candidates } from '../indexing.js';
import type { PlanCtx } from './ctx.js';
import { planDataPath } from './data-ref.js';
import { planRule, type RulePlan } from './rule-plan.js';
import type { Step } from './types.js';

/** Runs the loop's body for each member; undefined: take the ordinary path. */
export type LazyMembers = (fr: Frame) => boolean | undefined;

/** How many lazy iterations plans have built (read by tests). */
export const lazySets = { built: 0 };

/**
 * The lazy iteration of the set `coll` names, binding each member to slot `vs` and running
 * `after`, or undefined when it does not apply.
 */
export function lazySetMembers(coll: Term, pc: PlanCtx, vs: number, after: Step): LazyMembers | undefined {
  if (pc.traced || !pc.orderFree || coll.type !== 'ref' || coll.value[0]?.type !== 'var' || coll.value[0].value !== 'data') return undefined;
  const rest = coll.value.slice(1);
  const { node, consumed } = planDataPath(rest, pc.root);
  if (!node || consumed !== rest.length || !lazyNode(node)) return undefined;
  const root = pc.root;
  // a key object of this node's own in the query memo: "iterated lazily once already"
  const seen = (node.cache['lazy:seen'] ??= {}) as object;
  // per rule: its plan and the step its solutions go to, made once for this loop (the
  // rule's frame carries the loop's frame in its result field, so nothing is made per run)
  const steps = new Map<CompiledRule, { plan: RulePlan; out: Step }>();
  const stepsOf = (r: CompiledRule): { plan: RulePlan; out: Step } => {
    let x = steps.get(r);
    if (x === undefined) {
      const plan = planRule(r, root);
      steps.set(r, (x = { plan, out: memberStep(plan, vs, after) }));
    }
    return x;
  };
  lazySets.built++;
  return (fr) => {
    const ev = fr.ev;
    if (ev.overrides !== null || ev.mocks !== null || ev.q.strict || fr.slots[vs] !== undefined) return undefined;
    const memo = ev.memo;
    if (memo.has(node) || memo.has(seen)) return undefined;
    memo.set(seen, true);
    const q = ev.q;
    for (const r of candidates(node, 'sets', ev)) {
      const { plan, out } = stepsOf(r);
      const inner = new Frame(new Array(plan.nslots), ev, out);
      inner.result = fr as unknown as Value;
      q.enter();
      try {
        if (plan.body(inner)) return true;
      } finally {
        q.leave();
      }
    }
    return false;
  };
}

/** The step a set rule's solution goes to: bind the member in the loop's frame, run the loop's body. */
function memberStep(plan: RulePlan, vs: number, after: Step): Step {
  const key = plan.key!;
  const get = key.get;
  const each = (outer: Frame, v: Value): boolean => {
    outer.ev.q.tick();
    outer.slots[vs] = v;
    const res = after(outer);
    outer.slots[vs] = undefined;
    return res;
  };
  if (get)
    return (f) => {
      const v = get(f);
      return v === undefined ? false : each(f.result as unknown as Frame, v);
    };
  return (f) => key.gen(f, (v) => each(f.result as unknown as Frame, v));
}

/** A node defined by set rules only, each of which never fails (cached on the node). */
function lazyNode(node: RuleNode): boolean {
  let ok = node.cache['lazy:ok'] as boolean | undefined;
  if (ok === undefined) {
    ok = node.sets.length > 0 && node.complete.length === 0 && node.general.length === 0 && node.funcs.length === 0 && !node.default && node.children.size === 0;
    for (const r of node.sets) if (!r.key || !safeTerm(r.key, node) || !neverFails(r.body, node)) ok = false;
    node.cache['lazy:ok'] = ok;
  }
  return ok;
}

/** Comparisons and membership: defined on every pair of values, they never raise an error. */
const SAFE_CALLS = new Set(['eq', 'assign', 'equal', 'neq', 'lt', 'lte', 'gt', 'gte', 'internal.member_2', 'internal.member_3']);

/**
 * Whether evaluating the body can never raise an error: iteration, unification,
 * comparisons and `in` over constants, variables, input and base data. No built-in (strict
 * mode makes any of them an error), no function, no rule (a conflict), no comprehension, no
 * `with`. Conservative: anything else counts as able to fail.
 */
export function neverFails(body: Body, node: RuleNode): boolean {
  return body.every((e) => safeExpr(e, node));
}

function safeExpr(e: Expr, node: RuleNode): boolean {
  if (e.with && e.with.length) return false;
  const t = e.terms;
  if (isEvery(t)) return false;
  if (isSome(t)) return t.symbols.every((s) => s.type !== 'call' || safeCall(s.value, node));
  if (Array.isArray(t)) return safeCall(t, node);
  return safeTerm(t as Term, node);
}

function safeCall(t: Term[], node: RuleNode): boolean {
  const name = refName(t[0]!);
  return name !== undefined && SAFE_CALLS.has(name) && t.slice(1).every((a) => safeTerm(a, node));
}

function safeTerm(t: Term, node: RuleNode): boolean {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
    case 'var':
      return true;
    case 'array':
      return t.value.every((x) => safeTerm(x, node));
    case 'object': {
      // constant keys, each once: no two values can meet under one key
      const keys = new Set<string>();
      for (const [k, v] of t.value) {
        if (k.type !== 'string' || keys.has(k.value) || !safeTerm(v, node)) return false;
        keys.add(k.value);
      }
      return true;
    }
    case 'ref':
      return safeRef(t.value, node);
    default:
      return false;
  }
}

function safeRef(ts: Term[], node: RuleNode): boolean {
  const head = ts[0]!;
  if (head.type !== 'var') return false;
  if (!ts.slice(1).every((k) => safeTerm(k, node))) return false;
  if (head.value !== 'data') return true;
  // a ref into data must stay in base documents: no rule is evaluated for it
  let root = node;
  while (root.parent) root = root.parent;
  return planDataPath(ts.slice(1), root).node === null;
}
