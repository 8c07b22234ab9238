// Inlining small boolean functions at their call sites. A call statement `f(a, b)` to a
// user function whose rules all have the same truthy constant value (`f(x) if ...`), no
// else, no default and no `with`, holds exactly when one of its rule bodies holds for the
// arguments. Such a call is compiled into the caller's plan: the argument values go into
// hidden slots of the caller's frame, which the rules' argument variables read directly,
// and the rule bodies run in that same frame with slots of their own. Compared with a
// call (argument array, memo lookup, a frame per rule, depth accounting), this is a few
// closure calls. Not done for traced plans or policies that print (the memo decides how
// often a body runs, and a print would show it); a `with` mock of the function takes the
// ordinary call at run time.

import type { Body, Term } from '../../lang/ast.js';
import type { CompiledRule, RuleNode } from '../../compiler/tree.js';
import { forEachVarShallow, isEvery } from '../../compiler/terms.js';
import { walkBody } from '../../compiler/walk.js';
import type { Value } from '../../value/index.js';
import { PlanCtx } from './ctx.js';
import { compileBody } from './exprs.js';
import { quietPolicy, ruleOrderFree } from './order.js';
import { compileTerm } from './terms.js';
import { STOP, type Step, type TermC } from './types.js';

/** Expressions (nested bodies included) a function may have to be inlined. */
const MAX_EXPRS = 12;
/** Inlined calls inside inlined functions, at most this deep. */
const MAX_DEPTH = 3;

const depthOf = new WeakMap<PlanCtx, number>();

/** Whether calls to this function node may be inlined (cached on the node). */
function inlinable(node: RuleNode): boolean {
  let ok = node.cache['inline'] as boolean | undefined;
  if (ok !== undefined) return ok;
  ok = check(node);
  node.cache['inline'] = ok;
  return ok;
}

function check(node: RuleNode): boolean {
  const rules = node.funcs;
  if (rules.length === 0 || node.default) return false;
  const first = rules[0]!.value;
  if (!first || !truthyConstant(first)) return false;
  let size = 0;
  for (const r of rules) {
    if (r.else || !r.value || r.value.type !== first.type || (r.value as { value: unknown }).value !== (first as { value: unknown }).value) return false;
    if ((r.args ?? []).length !== node.arity) return false;
    const n = bodySize(r.body);
    if (n < 0) return false;
    size += n;
  }
  return size <= MAX_EXPRS;
}

function truthyConstant(t: Term): boolean {
  if (t.type === 'boolean') return t.value;
  return t.type === 'string' || t.type === 'number';
}

/** Number of expressions, or -1 when the body uses `with` (which the inlined plan would not scope). */
function bodySize(body: Body): number {
  let n = 0;
  let withs = false;
  const visitBody = (b: Body) => {
    for (const e of b) {
      n++;
      if (e.with && e.with.length) withs = true;
      if (isEvery(e.terms)) visitBody(e.terms.body);
    }
  };
  visitBody(body);
  // comprehension bodies count too
  walkBody(body, {
    term: (t) => {
      if (t.type === 'arraycomprehension' || t.type === 'setcomprehension' || t.type === 'objectcomprehension') visitBody(t.value.body);
    },
  });
  return withs ? -1 : n;
}

/**
 * The inlined call statement `node(args...)`, or undefined when it cannot be inlined here
 * (the caller then compiles an ordinary call). `generic` is that ordinary call, taken
 * when a `with` mock replaces the function.
 */
export function inlineCall(node: RuleNode, key: string, args: TermC[], pc: PlanCtx, next: Step, generic: Step): Step | undefined {
  const depth = inlineDepth(node, pc);
  if (depth === undefined) return undefined;
  const gets: ((fr: Parameters<Step>[0]) => Value | undefined)[] = [];
  for (const a of args) {
    if (!a.get) return undefined;
    gets.push(a.get);
  }
  const n = gets.length;
  // an argument that is a plain variable of the caller is read by the rules from the
  // caller's own slot (nothing copied; a function body cannot rebind its arguments), any
  // other is computed into a hidden slot
  const slots = args.map((a) => a.slot ?? pc.hidden());
  const computed = args.map((a) => a.slot === undefined);
  const rules = node.funcs.map((r) => inlineRule(r, slots, pc, depth + 1));
  const nr = rules.length;
  const holds = (fr: Parameters<Step>[0]): boolean => {
    for (let i = 0; i < nr; i++) if (rules[i]!(fr)) return true;
    return false;
  };
  const clear = (fr: Parameters<Step>[0]) => {
    for (let i = 0; i < n; i++) if (computed[i]) fr.slots[slots[i]!] = undefined;
  };
  if (n === 2) {
    const [s0, s1] = slots as [number, number];
    const [g0, g1] = gets as [(fr: Parameters<Step>[0]) => Value | undefined, (fr: Parameters<Step>[0]) => Value | undefined];
    const [c0, c1] = computed as [boolean, boolean];
    return (fr) => {
      const mocks = fr.ev.mocks;
      if (mocks !== null && mocks.has(key)) return generic(fr);
      const sl = fr.slots;
      const a = c0 ? g0(fr) : sl[s0];
      if (a === undefined) return false;
      const b = c1 ? g1(fr) : sl[s1];
      if (b === undefined) return false;
      if (c0) sl[s0] = a;
      if (c1) sl[s1] = b;
      const ok = holds(fr);
      if (c0) sl[s0] = undefined;
      if (c1) sl[s1] = undefined;
      return ok ? next(fr) : false;
    };
  }
  return (fr) => {
    const mocks = fr.ev.mocks;
    if (mocks !== null && mocks.has(key)) return generic(fr);
    for (let i = 0; i < n; i++) {
      const v = computed[i] ? gets[i]!(fr) : fr.slots[slots[i]!];
      if (v === undefined) {
        clear(fr);
        return false;
      }
      if (computed[i]) fr.slots[slots[i]!] = v;
    }
    const ok = holds(fr);
    clear(fr);
    return ok ? next(fr) : false;
  };
}

/** How deep in inlined calls `pc` is, when a call to `node` may be inlined there; else undefined. */
export function inlineDepth(node: RuleNode, pc: PlanCtx): number | undefined {
  if (pc.traced || !quietPolicy(pc.root) || !inlinable(node)) return undefined;
  const depth = depthOf.get(pc) ?? 0;
  return depth >= MAX_DEPTH ? undefined : depth;
}

/**
 * The planner state for an inlined rule's body: its slots come after the caller's (the
 * caller's continue after them: set `caller.nslots = pc.nslots` when the body is planned).
 */
export function inlineRuleCtx(r: CompiledRule, caller: PlanCtx, depth: number): PlanCtx {
  const pc = new PlanCtx(caller.root, r.module.package.location?.file ?? '');
  pc.nslots = caller.nslots;
  depthOf.set(pc, depth);
  pc.orderFree = ruleOrderFree(r, pc);
  return pc;
}

/**
 * One rule's body, planned in the caller's frame: a plain argument variable reads its
 * argument slot; any other argument term (a constant, a pattern, a repeated variable) is
 * matched against it first. Returns true when the body holds.
 */
function inlineRule(r: CompiledRule, argSlots: number[], caller: PlanCtx, depth: number): Step {
  const pc = inlineRuleCtx(r, caller, depth);
  const matches: [TermC, number][] = [];
  const args = r.args ?? [];
  args.forEach((a, i) => {
    if (a.type === 'var' && !pc.slots.has(a.value)) {
      pc.slots.set(a.value, argSlots[i]!);
      pc.bound.add(a.value);
    } else matches.push([compileTerm(a, pc), argSlots[i]!]);
  });
  for (const a of args) forEachVarShallow(a, (v) => pc.bound.add(v));
  let step = compileBody(r.body, pc, STOP).step;
  for (let i = matches.length - 1; i >= 0; i--) {
    const [m, s] = matches[i]!;
    const k = step;
    step = (fr) => m.match(fr, fr.slots[s]!, k);
  }
  caller.nslots = pc.nslots;
  return step;
}
