// Which documents partial evaluation must look into: a rule "depends on the unknowns" when
// it reads an unknown ref, calls a non-deterministic built-in that is kept unevaluated, or
// uses a rule that does. Every other document is known and is read with the evaluator
// itself, so known parts of a residual are exactly what full evaluation computes.

import type { Term } from '../lang/ast.js';
import type { CompiledRule, RuleNode } from '../compiler/tree.js';
import { walkBody, walkTerm, type BodyVisitor } from '../compiler/walk.js';
import { refName } from '../compiler/terms.js';
import { declarationIn } from '../compiler/builtins/index.js';
import type { Unknowns } from './unknowns.js';

/** The constant string prefix of a ref from its root var (`input`, `data`), or undefined. */
export function rootPath(t: Term): string[] | undefined {
  if (t.type === 'var' && (t.value === 'input' || t.value === 'data')) return [t.value];
  if (t.type !== 'ref') return undefined;
  const head = t.value[0];
  if (head?.type !== 'var' || (head.value !== 'input' && head.value !== 'data')) return undefined;
  const path = [head.value];
  for (const s of t.value.slice(1)) {
    if (s.type !== 'string') break;
    path.push(s.value);
  }
  return path;
}

/** Rule nodes a data path reads: the deepest node on it, with its subtree, and ancestors with rules. */
function nodesRead(root: RuleNode, path: readonly string[]): RuleNode[] {
  const out: RuleNode[] = [];
  let n: RuleNode | undefined = root;
  for (const s of path) {
    if (n.general.length || n.complete.length || n.sets.length || n.funcs.length) out.push(n);
    const c: RuleNode | undefined = n.children.get(s);
    if (!c) return out;
    n = c;
  }
  const stack = [n];
  while (stack.length) {
    const x = stack.pop()!;
    out.push(x);
    for (const c of x.children.values()) stack.push(c);
  }
  return out;
}

function rulesOf(n: RuleNode): CompiledRule[] {
  const out: CompiledRule[] = [...n.complete, ...n.sets, ...n.general, ...n.funcs];
  if (n.default) out.push(n.default);
  return out;
}

export class Dependence {
  private readonly touched = new Set<RuleNode>();

  constructor(
    readonly root: RuleNode,
    readonly unknowns: Unknowns,
    /** Whether non-deterministic built-ins are evaluated (else kept in the residual). */
    readonly evalNondeterministic: boolean,
  ) {
    const deps = new Map<RuleNode, Set<RuleNode>>();
    const all: RuleNode[] = [];
    const stack = [root];
    while (stack.length) {
      const n = stack.pop()!;
      all.push(n);
      for (const c of n.children.values()) stack.push(c);
    }
    for (const n of all) {
      const ds = new Set<RuleNode>();
      let direct = false;
      for (const r of rulesOf(n)) {
        for (let x: CompiledRule | undefined = r; x; x = x.else) {
          const v = this.visitor((d) => ds.add(d), () => (direct = true));
          walkBody(x.body, v);
          for (const t of [...x.suffix, ...(x.args ?? []), ...(x.key ? [x.key] : []), ...(x.value ? [x.value] : [])]) walkTerm(t, v);
        }
      }
      if (direct) this.touched.add(n);
      deps.set(n, ds);
    }
    // Fixpoint: a node touches the unknowns when any node it reads does.
    for (let changed = true; changed; ) {
      changed = false;
      for (const n of all) {
        if (this.touched.has(n)) continue;
        for (const d of deps.get(n)!)
          if (this.touched.has(d)) {
            this.touched.add(n);
            changed = true;
            break;
          }
      }
    }
  }

  /** Visits terms: reports nodes read and whether an unknown is read directly. */
  visitor(dep: (n: RuleNode) => void, direct: () => void): BodyVisitor {
    return {
      term: (t) => {
        // refs only: the head var of `input.x` is visited on its own after the ref
        const p = t.type === 'ref' ? rootPath(t) : undefined;
        if (!p) return;
        if (this.unknowns.overlaps(p)) direct();
        if (p[0] === 'data') for (const d of nodesRead(this.root, p.slice(1))) dep(d);
      },
      call: (op) => {
        const p = rootPath(op);
        if (p?.[0] === 'data') for (const d of nodesRead(this.root, p.slice(1))) dep(d);
        const name = refName(op);
        if (name && !name.startsWith('data.') && this.isKeptBuiltin(name)) direct();
      },
    };
  }

  isKeptBuiltin(name: string): boolean {
    return !this.evalNondeterministic && !!declarationIn(this.root.builtins, name)?.nondeterministic;
  }

  /** Whether the node itself, or a rule it reads, depends on the unknowns. */
  touches(n: RuleNode): boolean {
    return this.touched.has(n);
  }

  /** Whether anything at or below the node depends on the unknowns. */
  subtreeTouches(n: RuleNode): boolean {
    if (this.touched.has(n)) return true;
    for (const c of n.children.values()) if (this.subtreeTouches(c)) return true;
    return false;
  }
}
