// Planner state for one rule or query: where each variable lives (its slot) and which
// variables are statically bound at the point being compiled (used to pick fast paths;
// correctness never depends on it, since generated code checks slots at run time).

import type { RuleNode } from '../../compiler/tree.js';
import type { Location } from '../../lang/ast.js';

export class PlanCtx {
  readonly slots = new Map<string, number>();
  bound = new Set<string>();
  nslots = 0;
  /** Build the traced variant (a query run with a tracer): expressions report events. */
  traced = false;
  /** Iteration order is unobservable in what is being compiled now (see order.ts). */
  orderFree = false;
  constructor(
    readonly root: RuleNode,
    readonly file: string,
  ) {}

  slotOf(name: string): number {
    let s = this.slots.get(name);
    if (s === undefined) {
      s = this.nslots++;
      this.slots.set(name, s);
    }
    return s;
  }

  /** A slot no variable uses (comprehension accumulators, expression values). */
  hidden(): number {
    return this.nslots++;
  }

  isBound(name: string): boolean {
    return name === 'input' || name === 'data' || this.bound.has(name);
  }

  withBound<T>(extra: Iterable<string> | null, fn: () => T): T {
    const saved = this.bound;
    if (extra) {
      this.bound = new Set(saved);
      for (const n of extra) this.bound.add(n);
    }
    try {
      return fn();
    } finally {
      this.bound = saved;
    }
  }
}

export function locText(l: Location | undefined): string {
  return l ? `${l.file}:${l.row}` : '';
}
