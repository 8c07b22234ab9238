// Which parts of `input` a policy can read, found from its refs, so that an input given as
// JSON text can be read partly (value/json-sparse.ts). A ref `input.a.b` needs a.b whole;
// a variable bound to part of the input (`rc := input.changes[_]`, `some rc in
// input.changes`, `every`) passes on what its own refs need (`rc.change.actions` needs
// changes[*].change.actions). Every other use of an input value (a call argument, a
// comparison, a rule's value, `input` itself) needs that value whole, and `with input`
// anywhere means the whole input: the answer is then undefined (read it all). The
// analysis over-approximates (variables are tracked by name per rule, every rule of the
// policy counts), never the other way round.

import type { Body, Expr, Term } from '../lang/ast.js';
import type { CompiledRule, RuleNode } from '../compiler/tree.js';
import { isEvery, isSome, refName } from '../compiler/terms.js';
import { forEachChildTerm, ARGS_ONLY } from '../lang/visit.js';
import { newNeeds, type Needs } from '../value/json-sparse.js';

/** A path into the input: member names, `null` for any member or element. */
type Path = (string | null)[];

/** What of `input` the rules below `root` and the query body can read; undefined: all of it. */
export function inputNeeds(root: RuleNode, query: Body): Needs | undefined {
  const a = new Analysis();
  const visit = (n: RuleNode) => {
    for (const r of n.allRules()) for (let x: CompiledRule | undefined = r; x; x = x.else) a.rule(x.body, [x.key, x.value, ...(x.args ?? []), ...x.suffix]);
    for (const c of n.children.values()) visit(c);
  };
  visit(root);
  a.rule(query, []);
  return a.whole || a.root.all ? undefined : a.root;
}

const MAX_PASSES = 8;

class Analysis {
  readonly root = newNeeds();
  whole = false;
  /** Per rule: the input paths each variable may hold. */
  private env = new Map<string, Path[]>();
  private changed = false;

  rule(body: Body, head: (Term | undefined)[]): void {
    this.env = new Map();
    // Passes until no variable gains a path: a use met before its binding (a rule head,
    // a reordered body) is then seen with the binding known.
    for (let i = 0; ; i++) {
      this.changed = false;
      this.body(body);
      for (const t of head) if (t) this.use(t);
      if (!this.changed) return;
      if (i === MAX_PASSES) {
        this.whole = true;
        return;
      }
    }
  }

  private body(b: Body): void {
    for (const e of b) this.expr(e);
  }

  private expr(e: Expr): void {
    for (const w of e.with ?? []) {
      const h = w.target.type === 'ref' ? w.target.value[0] : w.target;
      if (h?.type === 'var' && h.value === 'input') this.whole = true;
      this.use(w.value);
    }
    const t = e.terms;
    if (isSome(t)) {
      for (const s of t.symbols) {
        if (s.type !== 'call') continue;
        const args = s.value.slice(1);
        this.iteration(args.length === 3 ? args[0]! : null, args[args.length - 2]!, args[args.length - 1]!);
      }
      return;
    }
    if (isEvery(t)) {
      this.iteration(t.key, t.value, t.domain);
      this.body(t.body);
      return;
    }
    if (Array.isArray(t)) {
      const op = refName(t[0]!);
      const lhs = t[1];
      if (op === 'assign' && t.length === 3 && lhs?.type === 'var') {
        // `x := <input value>`: x holds that value; what x's own uses need is needed
        const ps = this.pathsOf(t[2]!);
        if (ps) this.bind(lhs.value, ps);
        else this.use(t[2]!);
        return;
      }
      for (let i = 1; i < t.length; i++) this.use(t[i]!);
      return;
    }
    this.use(t);
  }

  /** `some k, v in coll` / `every k, v in coll`: v holds each member of coll. */
  private iteration(key: Term | null, value: Term, coll: Term): void {
    const ps = this.pathsOf(coll);
    if (key && key.type !== 'var') this.use(key);
    if (!ps) {
      // a collection built from input values (`split(input.s, " ")`, `[input.a]`) uses them
      this.use(coll);
      this.use(value);
      return;
    }
    const each = ps.map((p) => [...p, null]);
    if (value.type === 'var') this.bind(value.value, each);
    else {
      // a pattern is matched against each member whole
      for (const p of each) this.node(p).all = true;
      this.use(value);
    }
  }

  private bind(name: string, ps: Path[]): void {
    let have = this.env.get(name);
    if (!have) this.env.set(name, (have = []));
    for (const p of ps) {
      // the value must exist even when nothing else reads it (the binding fails otherwise)
      this.node(p);
      const id = JSON.stringify(p);
      if (!have.some((q) => JSON.stringify(q) === id)) {
        have.push(p);
        this.changed = true;
      }
    }
  }

  /** A term's value is used whole. */
  private use(t: Term): void {
    const ps = this.pathsOf(t);
    if (ps) {
      for (const p of ps) this.node(p).all = true;
      return;
    }
    if (t.type === 'ref') {
      // a ref over something other than the input: its head and keys are values used
      for (const x of t.value) this.use(x);
      return;
    }
    forEachChildTerm(
      t,
      (x) => this.use(x),
      ARGS_ONLY,
      (b) => this.body(b),
    );
  }

  /**
   * The input paths a term denotes when it is `input`, a variable holding input values,
   * or a ref over one of them; undefined otherwise. Keys of a ref that are not constant
   * strings read any member (and are themselves used).
   */
  private pathsOf(t: Term): Path[] | undefined {
    if (t.type === 'var') return t.value === 'input' ? [[]] : this.env.get(t.value);
    if (t.type !== 'ref') return undefined;
    const head = t.value[0]!;
    const base = head.type === 'var' ? this.pathsOf(head) : undefined;
    if (!base) return undefined;
    const keys: (string | null)[] = [];
    for (const k of t.value.slice(1)) {
      if (k.type === 'string') keys.push(k.value);
      else {
        keys.push(null);
        this.use(k);
      }
    }
    return base.map((p) => [...p, ...keys]);
  }

  /** The needs node of a path (made on the way). */
  private node(p: Path): Needs {
    let n = this.root;
    for (const k of p) {
      if (k === null) n = n.any ??= newNeeds();
      else {
        let c = n.keys.get(k);
        if (!c) n.keys.set(k, (c = newNeeds()));
        n = c;
      }
    }
    if (p.length === 0 && n.all) this.whole = true;
    return n;
  }
}
