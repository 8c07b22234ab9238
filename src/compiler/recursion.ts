// Recursion check (rego_recursion_error): a rule may not depend on itself through refs
// into data. A ref that stops at, or iterates over, a node depends on every rule below it.

import type { RegoErrorDetail, Term } from '../lang/ast.js';
import { compileError } from './errors.js';
import type { CompiledRule, RuleNode } from './tree.js';
import { walkBody, walkTerm } from './walk.js';
import { isConstant } from './terms.js';

function refTargets(root: RuleNode, t: Term, out: Set<RuleNode>): void {
  if (t.type !== 'ref' || t.value[0]?.type !== 'var' || t.value[0].value !== 'data') return;
  // As OPA's dynamic rule lookup: a constant segment follows its child only, a dynamic one
  // (a var, a ref, a call) every child; a rule met on the way counts (the ref reads into
  // its value), and where the ref ends, every rule below.
  const walk = (node: RuleNode, i: number): void => {
    if (i >= t.value.length) {
      collect(node, out);
      return;
    }
    const k = t.value[i]!;
    const next = isConstant(k) ? (k.type === 'string' ? [node.children.get(k.value)] : []) : [...node.children.values()];
    for (const c of next) {
      if (!c) continue;
      if (c.hasRules && (c.isLeaf || c.general.length)) out.add(c);
      walk(c, i + 1);
    }
  };
  walk(root, 1);
}

function collect(node: RuleNode, out: Set<RuleNode>): void {
  if (!node.hasRules) return;
  if (node.isLeaf || node.general.length) out.add(node);
  for (const c of node.children.values()) collect(c, out);
}

function deps(root: RuleNode, r: CompiledRule): Set<RuleNode> {
  const out = new Set<RuleNode>();
  const v = { term: (t: Term) => refTargets(root, t, out), call: (op: Term) => refTargets(root, op, out) };
  for (let x: CompiledRule | undefined = r; x; x = x.else) {
    walkBody(x.body, v);
    for (const t of [x.key, x.value, ...x.suffix, ...(x.args ?? [])]) if (t) walkTerm(t, v);
  }
  return out;
}

export function checkRecursion(root: RuleNode, errors: RegoErrorDetail[]): void {
  const graph = new Map<RuleNode, Set<RuleNode>>();
  const nodes: RuleNode[] = [];
  const gather = (n: RuleNode) => {
    if (n.isLeaf || n.general.length) nodes.push(n);
    for (const c of n.children.values()) gather(c);
  };
  gather(root);
  for (const n of nodes) {
    const d = new Set<RuleNode>();
    for (const r of n.allRules()) for (const x of deps(root, r)) d.add(x);
    graph.set(n, d);
  }
  const state = new Map<RuleNode, number>(); // 1 = on stack, 2 = done
  const stack: RuleNode[] = [];
  const reported = new Set<RuleNode>();
  const name = (n: RuleNode) => 'data.' + n.path.join('.');
  const visit = (n: RuleNode) => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      const st = state.get(m);
      if (st === 1) {
        if (!reported.has(m)) {
          reported.add(m);
          const cycle = stack.slice(stack.indexOf(m)).concat([m]);
          const r = [...m.allRules()][0];
          errors.push(compileError('rego_recursion_error', `rule ${name(m)} is recursive: ${cycle.map(name).join(' -> ')}`, r?.location));
        }
      } else if (st === undefined) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of nodes) if (!state.has(n)) visit(n);
}
