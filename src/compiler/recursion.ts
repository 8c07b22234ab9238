// Recursion check (rego_recursion_error): a rule may not depend on itself through refs
// into data. A ref that stops at, or iterates over, a node depends on every rule below it.

import type { RegoErrorDetail, Term } from '../lang/ast.js';
import { compileError } from './errors.js';
import type { CompiledRule, RuleNode } from './tree.js';
import { walkBody, walkTerm } from './walk.js';

function refTargets(root: RuleNode, t: Term, out: Set<RuleNode>): void {
  if (t.type !== 'ref' || t.value[0]?.type !== 'var' || t.value[0].value !== 'data') return;
  let node: RuleNode = root;
  let i = 1;
  for (; i < t.value.length; i++) {
    if (node.isLeaf || node.general.length) break;
    const k = t.value[i]!;
    const seg = k.type === 'string' ? k.value : k.type === 'number' && /^\d+$/.test(k.value) ? k.value : undefined;
    if (seg === undefined) break;
    const c = node.children.get(seg);
    if (!c) return;
    node = c;
  }
  collect(node, out);
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
