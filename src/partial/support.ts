// Support rules: documents that depend on the unknowns but cannot be inlined into the
// residual query — rules with `else` or a default value, refs named in disableInlining,
// partial documents read whole, and negations of residuals too large to expand. Each is
// partially evaluated on its own (no caller bindings) and written as a rule of a module
// under package `partial...`, which the residual refers to as `data.partial...`.

import type { Body, Expr, Module, Rule, Term } from '../lang/ast.js';
import { walkBody, walkTerm, type BodyVisitor } from '../compiler/walk.js';
import { rootPath } from './dependence.js';
import type { CompiledRule, RuleNode } from '../compiler/tree.js';
import { PartialError, type PartialEvaluator } from './evaluator.js';
import { EMPTY, type State } from './state.js';
import { callExpr, dataRef, termExpr, valueTerm } from './terms.js';
import { RSet } from '../value/index.js';
import type { Path } from './unknowns.js';
import { IDENTIFIER } from '../lang/ref-text.js';

interface Item {
  body: Expr[];
  value?: Term;
  key?: Term;
  args?: Term[];
  suffix?: Term[];
  /** Which suffix terms the rule wrote as variables (kept variables in the support head). */
  dynamic?: boolean[];
}

const TRUE: Term = { type: 'boolean', value: true };

/** Rules are kept by [package below `partial`, rule name]. */
function splitKey(key: string): [string[], string] {
  return JSON.parse(key) as [string[], string];
}

const KEYWORDS = new Set(['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false', 'contains', 'every', 'if', 'in']);
const nameLike = (s: string) => IDENTIFIER.test(s) && !KEYWORDS.has(s);

/**
 * The package and rules as written: a path segment that is no Rego name (`p.q["a/b"]`)
 * cannot be a package or rule name, so the rule is named by the last name before it and the
 * rest of the path goes into its head ref (`package partial.p`, `q["a/b"][x] if ...`).
 */
function written(pkg: string[], name: string, rules: Rule[]): [string[], Rule[]] {
  const full = [...pkg, name];
  const bad = full.findIndex((x) => !nameLike(x));
  if (bad < 0) return [pkg, rules];
  if (bad === 0) throw new PartialError(`partial evaluation cannot name a support rule for data.${full.map((x) => JSON.stringify(x)).join('.')}`);
  const segs = full.slice(bad).map((x): Term => ({ type: 'string', value: x }));
  const rename = (r: Rule): Rule => {
    const head = { ...r.head, ref: [{ type: 'var', value: full[bad - 1]! } as Term, ...segs, ...r.head.ref.slice(1)] };
    delete head.name;
    return { ...r, head, else: r.else && rename(r.else) };
  };
  return [full.slice(0, bad - 1), rules.map(rename)];
}

export class Support {
  private readonly refs = new Map<RuleNode, Term>();
  private readonly rules = new Map<string, Rule[]>();
  private nots = 0;
  /** Rules made so far (to tell an empty document from one with rules). */
  private count = 0;

  constructor(private readonly pe: PartialEvaluator) {}

  /** Whether a data path (without `data`) is at or below a disableInlining ref. */
  disabled(path: readonly string[]): boolean {
    return this.pe.o.disableInlining.some((d: Path) => d.length <= path.length && d.every((s, i) => s === path[i]));
  }

  /** Whether the node's rules must be a support rule rather than inlined. */
  needed(node: RuleNode): boolean {
    if (this.disabled(node.path)) return true;
    // complete rules with else or a default are inlined with guards; functions with else are not
    return node.funcs.some((r) => r.else !== undefined);
  }

  ruleRef(node: RuleNode, path: string[]): Term {
    return this.generate(node, path);
  }

  functionRef(node: RuleNode): Term {
    return this.generate(node, node.path);
  }

  /** A rule `__notN__` (a function of `args` when given) true when one of `bodies` holds. */
  negation(bodies: Expr[][], args: Term[]): Term {
    this.outsideWith();
    const name = `__not${this.nots++}__`;
    for (const body of bodies) this.add(['partial'], name, { body, value: TRUE, args: args.length ? args : undefined });
    return dataRef(['partial', name]);
  }

  /** Support rules are partially evaluated without the replacements of a `with` in force. */
  private outsideWith(): void {
    if (this.pe.scope.depth > 0) throw new PartialError('partial evaluation cannot make a support rule under `with` over unknowns');
  }

  /** The modules of the support rules the queries reach (directly or through other support rules). */
  modules(queries: Body[]): Module[] {
    const reached = new Set<string>();
    const todo: Rule[] = [];
    const visit = (t: Term) => {
      const p = rootPath(t);
      if (!p || p[0] !== 'data' || p[1] !== 'partial') return;
      for (const [key, rules] of this.rules) {
        const [pkg, name] = splitKey(key);
        // a ref reaches the rules at, below (read whole) and above (a ref into a rule's value) it
        const rp = ['partial', ...pkg, name];
        if (reached.has(key) || !rp.slice(0, p.length - 1).every((x, i) => x === p[i + 1])) continue;
        reached.add(key);
        todo.push(...rules);
      }
    };
    const v: BodyVisitor = { term: visit, call: (op) => visit(op) };
    for (const q of queries) walkBody(q, v);
    while (todo.length) {
      for (let r: Rule | undefined = todo.pop(); r; r = r.else) {
        walkBody(r.body, v);
        for (const t of [...r.head.ref, ...(r.head.args ?? []), ...(r.head.key ? [r.head.key] : []), ...(r.head.value ? [r.head.value] : [])]) walkTerm(t, v);
      }
    }
    const byPkg = new Map<string, Rule[]>();
    for (const key of [...reached].sort()) {
      const [pkg, rules] = written(...splitKey(key), this.rules.get(key)!);
      const k = JSON.stringify(pkg);
      byPkg.set(k, [...(byPkg.get(k) ?? []), ...rules]);
    }
    return [...byPkg].map(([pkg, rules]) => ({
      package: { path: [{ type: 'var', value: 'data' }, ...['partial', ...(JSON.parse(pkg) as string[])].map((x) => ({ type: 'string', value: x }) as Term)] },
      imports: [],
      rules,
      annotations: [],
      comments: [],
      regoVersion: 'v1',
    }));
  }

  private generate(node: RuleNode, path: string[]): Term {
    this.outsideWith();
    const done = this.refs.get(node);
    if (done) return done;
    const ref = dataRef(['partial', ...path]);
    this.refs.set(node, ref);
    const before = this.count;
    this.rulesOf(node, path);
    // the rules below belong to the document too (`p.foo.r` under `p[x].q`)
    // (a child where no rule holds is an empty set or object there, as full evaluation reads it)
    if (!node.isFunction)
      for (const [name, child] of [...node.children].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const r = this.generate(child, [...path, name]);
        if (r.type !== 'ref') this.add(['partial', ...path], name, { body: [], value: r });
      }
    if (this.count > before || node.isFunction || node.complete.length || node.default) return ref;
    // no rule holds anywhere: a set is empty, an object (general rules, packages) too
    const empty = valueTerm(node.sets.length ? new RSet() : {});
    this.refs.set(node, empty);
    return empty;
  }

  private rulesOf(node: RuleNode, path: string[]): void {
    const pe = this.pe;
    const pkg = ['partial', ...path.slice(0, -1)];
    const name = path[path.length - 1]!;
    if (node.default) {
      const d = node.default;
      let value: Term | undefined;
      pe.term(d.value!, pe.frame(), EMPTY, (p, s) => (value = pe.plugged(p, s).t));
      // a default function keeps its arity: `default f(_) := v`
      const args = d.args?.map((): Term => ({ type: 'var', value: '_' }));
      this.add(pkg, name, { body: [], value, args }, true);
    }
    for (const r of [...node.complete, ...node.funcs]) this.chain(pkg, name, r);
    for (const r of node.sets) this.each(r, (f, s, done) => pe.term(r.key!, f, s, (p, s2) => done({ key: pe.plugged(p, s2).t }, pe.plugged(p, s2).st)), (it) => this.add(pkg, name, it));
    for (const r of node.general) {
      this.each(
        r,
        (f, s, done) => {
          const terms = r.setLeaf ? [...r.suffix, r.key!] : [...r.suffix, r.value!];
          pe.args(terms, f, s, (ps, s2) => {
            let st = s2;
            const asts = ps.map((p) => {
              const x = pe.plugged(p, st);
              st = x.st;
              return x.t;
            });
            const last = asts.pop()!;
            const dynamic = r.suffix.map((t) => !['string', 'number', 'boolean', 'null'].includes(t.type));
            done(r.setLeaf ? { suffix: asts, key: last, dynamic } : { suffix: asts, value: last, dynamic }, st);
          });
        },
        (it) => this.add(pkg, name, it),
      );
    }
  }

  /** A rule with its else chain, in order: every solution of a branch comes before the next branch. */
  private chain(pkg: string[], name: string, r: CompiledRule): void {
    const pe = this.pe;
    const items: Item[] = [];
    // the else branches of a function read the first branch's arguments: one set of names
    let args: Term[] | undefined;
    for (let x: CompiledRule | undefined = r; x; x = x.else) {
      const branch = x;
      args = this.each(branch, (f, s, done) => pe.term(branch.value!, f, s, (p, s2) => {
        const v = pe.plugged(p, s2);
        done({ value: v.t }, v.st);
      }), (it) => items.push(it), args);
    }
    if (!items.length) return;
    // without else, each solution is a definition of its own (the values are the rule's)
    if (!r.else) return items.forEach((it) => this.add(pkg, name, it));
    const rules = items.map((it) => this.rule(name, it));
    for (let i = rules.length - 1; i > 0; i--) rules[i - 1]!.else = rules[i];
    this.push(pkg, rules[0]!);
  }

  /**
   * Runs one rule body in a fresh frame (function parameters bound to residual variables, or
   * to `given` ones: an else branch reads its chain's arguments). Answers the arguments.
   */
  private each(
    r: CompiledRule,
    head: (f: ReturnType<PartialEvaluator['frame']>, s: State, done: (it: Omit<Item, 'body'>, s: State) => void) => void,
    emit: (it: Item) => void,
    given?: Term[],
  ): Term[] | undefined {
    const pe = this.pe;
    const f = pe.frame();
    let st = EMPTY;
    let args: Term[] | undefined;
    if (r.args && !given) {
      args = r.args.map((a) => {
        const x = pe.plugPattern(a, f, st);
        st = x.st;
        return x.t;
      });
    }
    const start = st;
    const run = (s0: State) => pe.body(r.body, 0, f, s0, (s) => head(f, s, (it, s2) => emit({ ...it, args: given ?? args, body: pe.residualSince(s2, start) })));
    if (!r.args || !given) {
      run(st);
      return args;
    }
    const params = r.args;
    const bindArgs = (i: number, s: State): void => (i === params.length ? run(s) : pe.unifyWith(params[i]!, given[i]!, f, s, (s2) => bindArgs(i + 1, s2)));
    bindArgs(0, st);
    return given;
  }

  private rule(name: string, it: Item): Rule {
    // a head ref takes variables and scalars only: anything else is bound in the body
    const body = [...it.body];
    // a key the rule computes stays a variable: a constant key would be a node of the rule
    // tree, an empty object wherever the rule does not hold
    const suffix = it.suffix?.map((t, i) => {
      if (t.type === 'var' || (!it.dynamic?.[i] && (t.type === 'string' || t.type === 'number' || t.type === 'boolean' || t.type === 'null'))) return t;
      const v = this.pe.freshVar();
      body.push(callExpr('eq', [v, t]));
      return v;
    });
    it = { ...it, body, suffix };
    const ref: Term[] = [{ type: 'var', value: name }, ...(it.suffix ?? [])];
    const head: Rule['head'] = { ref, assign: it.value !== undefined };
    if (!it.suffix) head.name = name;
    if (it.args) head.args = it.args;
    if (it.key) head.key = it.key;
    if (it.value) head.value = it.value;
    return { head, body: it.body.length ? it.body : [termExpr(TRUE)] };
  }

  private add(pkg: string[], name: string, it: Item, isDefault = false): void {
    const r = this.rule(name, it);
    if (isDefault) r.default = true;
    this.push(pkg, r);
  }

  private push(pkg: string[], r: Rule): void {
    this.count++;
    const key = JSON.stringify([pkg.slice(1), r.head.ref[0]!.type === 'var' ? r.head.ref[0]!.value : '']);
    let list = this.rules.get(key);
    if (!list) this.rules.set(key, (list = []));
    list.push(r);
  }
}
