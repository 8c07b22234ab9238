// The partial evaluator: walks the compiled (resolved, renamed, safety-ordered) rule bodies
// the compiler produced, with a set of unknown refs. What is known is computed — documents
// that do not depend on the unknowns are read through the evaluator itself (dataAt,
// callFunction), built-ins are called through the same registry and error rules — and
// what is not known is saved, with known parts plugged in, as residual expressions. Each
// branch of the search (one way to satisfy the query) becomes one residual query.
//
// Rules and functions that depend on the unknowns are inlined into the caller; those that
// cannot be (else chains, default values, disableInlining, documents read whole) become
// support rules (support.ts), and negation over residuals is expanded or saved as a support
// rule (negation.ts).

import type { Body, Every, Expr, Location, Term } from '../lang/ast.js';
import { forEachChildTerm, isCollectionTerm, mapChildTerms, missingKind } from '../lang/visit.js';
import type { CompiledPolicy } from '../compiler/index.js';
import type { CompiledRule, RuleNode } from '../compiler/tree.js';
import { isEvery, isSome, refName } from '../compiler/terms.js';
import { fits, typeOf } from '../compiler/const-types.js';
import { builtinIn, type BuiltinDef } from '../eval/builtins/index.js';
import { builtinCall } from '../eval/closures/calls.js';
import { IDENTIFIER } from '../lang/ref-text.js';
import { constValue } from '../eval/closures/terms.js';
import { EvalCtx, Frame, QueryState } from '../eval/context.js';
import { RegoEvalError } from '../eval/errors.js';
import { callFunction } from '../eval/rules.js';
import { dataAt } from '../eval/virtual-doc.js';
import { equal, parseNumber, RSet, makeObject, type Value } from '../value/index.js';
import { isCollection, iterate, lookup as collGet } from '../value/collections.js';
import { Dependence, rootPath } from './dependence.js';
import { bind, cons, itemsSince, lookup, save, type State } from './state.js';
import {
  callExpr,
  dataRef,
  extendRef,
  isKnown,
  keyOf,
  known,
  residualIndex,
  residualVar,
  termExpr,
  toAST,
  valueTerm,
  type PT,
} from './terms.js';
import type { Path, Unknowns } from './unknowns.js';
import { Support } from './support.js';
import { negate, negateAlternatives } from './negation.js';
import { plugWithExpr, withExpr } from './with.js';
import type { PartialTrace } from './trace.js';

export type K = (st: State) => void;

export interface Scope {
  input: Value | undefined;
  ev: EvalCtx;
  docs: Map<string, Value | undefined>;
  overrides: { path: string[]; value: Value }[];
  /** Nesting of `with` scopes; support rules cannot be made inside one. */
  depth: number;
}

export type KT = (p: PT, st: State) => void;

/**
 * The element of a symbolic array or object at a known key: 'missing' when it has none for
 * sure, 'unsure' when a key is computed or another element could be undefined (its
 * definedness would be lost by taking the element alone).
 */
function element(t: Term & { type: 'object' | 'array' }, key: Value): Term | 'missing' | 'unsure' {
  if (t.type === 'array') {
    if (t.value.some(mayBeUndefined)) return 'unsure';
    const n = typeof key === 'number' && Number.isInteger(key) ? key : -1;
    return t.value[n] ?? 'missing';
  }
  let found: Term | undefined;
  for (const [kt, vt] of t.value) {
    const kv = constValue(kt);
    if (kv === undefined) return 'unsure';
    if (equal(kv, key)) found = vt;
    else if (mayBeUndefined(vt)) return 'unsure';
  }
  return found ?? 'missing';
}

/** An array, object or set term holding a ref (outside comprehensions): undefined when the ref is. */
function mayBeUndefined(t: Term): boolean {
  switch (t.type) {
    case 'ref':
      return true;
    case 'var':
      return t.value === 'input' || t.value === 'data';
    default:
      return isCollectionTerm(t) && forEachChildTerm(t, mayBeUndefined);
  }
}

/** One activation: a query, a rule body or a function body (its variables are its own). */
export interface Frame0 {
  id: number;
}

export class PartialError extends Error {
  constructor(
    message: string,
    readonly location?: Location,
  ) {
    super(message);
  }
}

export interface EvaluatorOptions {
  input?: Value;
  data: Value;
  unknowns: Unknowns;
  disableInlining: Path[];
  evalNondeterministic: boolean;
  strictBuiltinErrors: boolean;
  deadline?: number;
  /** Explanation events, when asked for (trace.ts). */
  trace?: PartialTrace;
}

const MAX_STEPS_CHECK = 4096;

// What depends on which unknowns is a property of the compiled policy: computed once per
// policy and set of unknowns, not per request.
const dependences = new WeakMap<CompiledPolicy, Map<string, Dependence>>();

function dependenceOf(policy: CompiledPolicy, unknowns: Unknowns, nd: boolean): Dependence {
  let m = dependences.get(policy);
  if (!m) dependences.set(policy, (m = new Map()));
  const key = JSON.stringify([unknowns.paths, nd]);
  let d = m.get(key);
  if (!d) {
    if (m.size > 256) m.clear();
    m.set(key, (d = new Dependence(policy.root, unknowns, nd)));
  }
  return d;
}

export class PartialEvaluator {
  readonly dep: Dependence;
  /** The input, evaluator context and known documents in force (`with` replaces them). */
  scope: Scope;
  readonly support: Support;
  private readonly dummy: Frame;
  private frames = 0;
  /** Where the expression being evaluated is written (for the residual's locations). */
  private loc: Location | undefined;
  private vars = 0;
  private steps = 0;
  /** Propagated symbolic refs: the term a variable was bound to -> its id. */
  readonly propIds = new WeakMap<Term, number>();
  private props = 0;
  /** Residual names of a kept construct's local variables (see localName). */
  private readonly locals = new Map<string, Term>();
  private plugDepth = 0;
  private plugEpoch = 0;

  constructor(
    readonly policy: CompiledPolicy,
    readonly o: EvaluatorOptions,
  ) {
    this.dep = dependenceOf(policy, o.unknowns, o.evalNondeterministic);
    const q = new QueryState({ strict: o.strictBuiltinErrors, deadline: o.deadline });
    q.root = policy.root;
    const ev = new EvalCtx(q, o.input, o.data, null, null, null);
    this.scope = { input: o.input, ev, docs: new Map(), overrides: [], depth: 0 };
    this.dummy = new Frame([], ev, () => true);
    this.support = new Support(this);
  }

  frame(): Frame0 {
    const id = this.frames++;
    this.o.trace?.opened(id);
    return { id };
  }

  /** A rule body about to be evaluated in frame `f` (for explanations). */
  enterRule(f: Frame0, r: CompiledRule): void {
    this.o.trace?.rule('Enter', f.id, r.rule, 'data.' + r.path.join('.'));
  }

  freshVar(): Term {
    return residualVar(this.vars++);
  }

  get varCount(): number {
    return this.vars;
  }

  private tick(): void {
    if (++this.steps % MAX_STEPS_CHECK === 0) this.scope.ev.q.checkLimits();
  }

  // ---- bodies and expressions ------------------------------------------------------------

  body(body: Body, i: number, fr: Frame0, st: State, k: K): void {
    if (i === body.length) return k(st);
    this.expr(body[i]!, fr, st, (st2) => this.body(body, i + 1, fr, st2, k));
  }

  /** Saves an expression for the residual, located where the policy wrote what produced it. */
  saveAt(st: State, e: Expr): State {
    if (!e.location && this.loc) e.location = this.loc;
    this.o.trace?.save(this.o.trace.current, e);
    return save(st, e);
  }

  expr(e: Expr, fr: Frame0, st: State, k: K): void {
    // what this expression saves is located where it is written, also after later
    // expressions (which move `loc`) backtrack into it for its next solution
    const loc = (this.loc = e.location ?? this.loc);
    const trace = this.o.trace;
    if (!trace) {
      return this.evalExpr(e, fr, st, (s) => {
        k(s);
        this.loc = loc;
      });
    }
    // Eval, then Fail when no branch got past the expression
    const outer = trace.current;
    trace.current = fr.id;
    trace.expr('Eval', fr.id, e);
    let passed = false;
    this.evalExpr(e, fr, st, (s) => {
      if (passed) trace.expr('Redo', fr.id, e);
      passed = true;
      k(s);
      this.loc = loc;
      trace.current = fr.id;
    });
    if (!passed) trace.expr('Fail', fr.id, e);
    trace.current = outer;
  }

  private evalExpr(e: Expr, fr: Frame0, st: State, k: K): void {
    this.tick();
    if (e.with?.length) return withExpr(this, e, fr, st, k);
    if (e.negated) return negate(this, e, fr, st, k);
    const t = e.terms;
    if (isSome(t)) {
      const calls = t.symbols.filter((s) => s.type === 'call');
      const run = (i: number, s: State): void => {
        if (i === calls.length) return k(s);
        const c = calls[i]!.value;
        this.callExpr(c, e, fr, s, (s2) => run(i + 1, s2));
      };
      return run(0, st);
    }
    if (isEvery(t)) return this.every(t, e, fr, st, k);
    if (Array.isArray(t)) return this.callExpr(t, e, fr, st, k);
    this.term(t as Term, fr, st, (p, st2) => this.truthy(p, st2, k));
  }

  /** An expression's value must be defined and not false. */
  truthy(p: PT, st: State, k: K): void {
    if (isKnown(p)) {
      if (p.v !== false) k(st);
      return;
    }
    k(this.saveAt(st, termExpr(p)));
  }

  private callExpr(t: Term[], e: Expr, fr: Frame0, st: State, k: K): void {
    const op = t[0]!;
    const args = t.slice(1);
    const name = refName(op) ?? '';
    if (name === 'eq' || name === 'assign') return this.unify(args[0]!, args[1]!, fr, st, k);
    if (name === 'internal.member_2' || name === 'internal.member_3') return this.member(name, args, fr, st, k);
    if (name.startsWith('data.')) {
      const node = this.functionNode(op);
      const n = node.arity ?? 0;
      return this.callFunction(node, name, args.slice(0, n), fr, st, (p, st2) => {
        if (args.length > n) this.unifyWith(args[n]!, p, fr, st2, k);
        else this.truthy(p, st2, k);
      });
    }
    const def = this.builtin(name, e.location);
    // a declaration without args takes none (time.now_ns(t): t is its output)
    const n = def.decl.args?.length ?? 0;
    if (args.length > n && !def.decl.variadic) {
      return this.callBuiltin(def, args.slice(0, n), fr, st, e.location, (p, st2) => this.unifyWith(args[n]!, p, fr, st2, k));
    }
    // A test (x > 1, startswith(...)): saved as written when an argument is not known.
    this.args(args, fr, st, (ps, st2) => {
      if (ps.every(isKnown) && !this.dep.isKeptBuiltin(name)) {
        const v = this.invoke(def, ps.map((p) => (p as { v: Value }).v), e.location);
        if (v === undefined) return;
        if (def.relation) {
          for (const x of v as Value[]) if (x !== false) return k(st2);
          return;
        }
        if (v !== false) k(st2);
        return;
      }
      if (this.neverFits(def, ps, e.location)) return;
      k(this.saveAt(st2, callExpr(op, ps.map(toAST))));
    });
  }

  /**
   * Whether a known argument can never fit the built-in's declaration (`minus("2", x)`): the
   * call fails whatever the unknowns are, and its text would not pass the type checker.
   */
  private neverFits(def: BuiltinDef, ps: PT[], loc?: Location): boolean {
    const want = def.decl.args;
    if (!want || def.decl.variadic) return false;
    const bad = ps.some((p, i) => {
      if (!isKnown(p) || !want[i]) return false;
      const have = typeOf(valueTerm(p.v));
      return have !== undefined && !fits(have, want[i]!);
    });
    if (bad && this.o.strictBuiltinErrors) throw new PartialError(`${def.name}: invalid argument(s)`, loc);
    return bad;
  }

  private builtin(name: string, loc?: Location): BuiltinDef {
    const def = builtinIn(this.policy.root, name);
    if (!def) throw new PartialError(`undefined function ${name}`, loc);
    return def;
  }

  private functionNode(op: Term): RuleNode {
    const path = rootPath(op)!.slice(1);
    const node = this.policy.root.find(path);
    if (!node || !node.funcs.length) throw new PartialError(`undefined function data.${path.join('.')}`);
    return node;
  }

  invoke(def: BuiltinDef, args: Value[], loc?: Location): Value | undefined {
    return builtinCall(def, this.dummy, args, loc);
  }

  /** `some x in xs`, `some k, v in xs`, `x in xs`: iterates a known collection, else saved. */
  private member(name: string, args: Term[], fr: Frame0, st: State, k: K): void {
    const coll = args[args.length - 1]!;
    const setRule = name === 'internal.member_2' ? this.inlinableSet(coll) : undefined;
    // x in <partial set rule>: the member is looked up as data.p[x], so the rule is inlined
    if (setRule) return this.ref({ type: "ref", value: [...setRule.value, args[0]!] }, fr, st, (_p, s) => k(s));
    this.term(coll, fr, st, (c, st2) => {
      if (!isKnown(c)) {
        if (name === 'internal.member_2' && !this.hasUnbound(args[0]!, fr, st2)) {
          return this.term(args[0]!, fr, st2, (x, s) => k(this.saveAt(s, callExpr(name, [toAST(x), c]))));
        }
        // some x in <unknown>: iterate it as a ref, x = coll[_] (k, v: v = coll[k])
        const keyPat: Term = name === 'internal.member_3' ? args[0]! : { type: 'var', value: `$pe${this.varCount}` };
        const kr = this.plugPattern(keyPat, fr, st2);
        return this.unifyWith(args[args.length - 2]!, extendRef(c, [kr.t]), fr, kr.st, (s) => {
          // the element must exist even when the pattern is a plain variable (copy propagation)
          k(s);
        });
      }
      if (name === 'internal.member_2' && !this.hasUnbound(args[0]!, fr, st2)) {
        // x in <known collection>: one test, kept as `x in [...]` when x is unknown
        return this.term(args[0]!, fr, st2, (x, s) => {
          if (!isKnown(x)) return k(this.saveAt(s, callExpr(name, [x, toAST(c)])));
          if (iterate(c.v, (_key, val) => equal(val, x.v))) k(s);
        });
      }
      iterate(c.v, (key, val) => {
        if (name === 'internal.member_2') this.unifyWith(args[0]!, known(val), fr, st2, k);
        else this.unifyWith(args[0]!, known(key), fr, st2, (s) => this.unifyWith(args[1]!, known(val), fr, s, k));
        return false;
      });
    });
  }

  /** A constant data ref to a partial set rule that depends on the unknowns and can be inlined. */
  private inlinableSet(t: Term): (Term & { type: 'ref' }) | undefined {
    if (t.type !== 'ref') return undefined;
    const p = rootPath(t);
    if (!p || p[0] !== 'data' || p.length !== t.value.length) return undefined;
    const node = this.policy.root.find(p.slice(1));
    if (!node || !node.sets.length || node.complete.length || node.general.length || !this.dep.touches(node) || this.support.needed(node)) return undefined;
    return t;
  }

  // ---- unification ---------------------------------------------------------------------

  unify(a: Term, b: Term, fr: Frame0, st: State, k: K): void {
    if (!this.hasUnbound(b, fr, st)) return this.term(b, fr, st, (p, s) => this.unifyWith(a, p, fr, s, k));
    if (!this.hasUnbound(a, fr, st)) return this.term(a, fr, st, (p, s) => this.unifyWith(b, p, fr, s, k));
    if (a.type === 'array' && b.type === 'array' && a.value.length === b.value.length) {
      const run = (i: number, s: State): void => (i === a.value.length ? k(s) : this.unify(a.value[i]!, b.value[i]!, fr, s, (s2) => run(i + 1, s2)));
      return run(0, st);
    }
    const pa = this.plugPattern(a, fr, st);
    const pb = this.plugPattern(b, fr, pa.st);
    k(this.saveAt(pb.st, callExpr('eq', [pa.t, pb.t])));
  }

  /** Unifies a pattern term (which may hold unbound variables) with an evaluated term. */
  unifyWith(pat: Term, p: PT, fr: Frame0, st: State, k: K): void {
    if (pat.type === 'var') {
      const key = `${fr.id}:${pat.value}`;
      const b = lookup(st, key);
      if (b !== undefined) return this.unifyValues(b, p, st, k);
      if (!isKnown(p) && p.type === 'ref' && p.value.some((x) => residualIndex(x) !== undefined)) {
        // an iteration (input.xs[__p1__]) is kept as a generator, so its variable stays bound
        // wherever the copy would have gone (heads, negations)
        const v = this.freshVar();
        return k(bind(this.saveAt(st, callExpr('eq', [v, p])), key, v));
      }
      if (!isKnown(p) && (p.type === 'ref' || (p.type === 'var' && (p.value === 'input' || p.value === 'data')) || mayBeUndefined(p))) {
        // a whole unknown document is undefined when missing: its definedness counts too, and
        // so does that of a composite built from one (`x := [input.y, 1]`)
        const id = this.props++;
        this.propIds.set(p, id);
        return k({ ...bind(st, key, p), props: cons({ term: p, id }, st.props) });
      }
      return k(bind(st, key, p));
    }
    if (isKnown(p) && (pat.type === 'array' || pat.type === 'object') && this.hasUnbound(pat, fr, st)) {
      if (pat.type === 'array') {
        const v = p.v;
        if (!Array.isArray(v) || v.length !== pat.value.length) return;
        const run = (i: number, s: State): void => (i === v.length ? k(s) : this.unifyWith(pat.value[i]!, known(v[i]!), fr, s, (s2) => run(i + 1, s2)));
        return run(0, st);
      }
      const v = p.v;
      const entries = pat.value;
      let size = 0;
      if (!iterate(v, () => (size++, false)) && (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof RSet)) return;
      if (size !== entries.length) return;
      const run = (i: number, s: State): void => {
        if (i === entries.length) return k(s);
        const [kt, vt] = entries[i]!;
        this.term(kt, fr, s, (kp, s2) => {
          if (!isKnown(kp)) return;
          const child = collGet(v, kp.v);
          if (child === undefined) return;
          this.unifyWith(vt, known(child), fr, s2, (s3) => run(i + 1, s3));
        });
      };
      return run(0, st);
    }
    if (this.hasUnbound(pat, fr, st)) {
      const r = this.plugPattern(pat, fr, st);
      return k(this.saveAt(r.st, callExpr('eq', [r.t, toAST(p)])));
    }
    this.term(pat, fr, st, (q, s) => this.unifyValues(q, p, s, k));
  }

  unifyValues(a: PT, b: PT, st: State, k: K): void {
    if (isKnown(a) && isKnown(b)) {
      if (equal(a.v, b.v)) k(st);
      return;
    }
    const pa = this.plugged(a, st);
    const pb = this.plugged(b, pa.st);
    k(this.saveAt(pb.st, callExpr('eq', [pa.t, pb.t])));
  }

  /** Whether a pattern position (a var, or an element of an array/object/set) is unbound. */
  hasUnbound(t: Term, fr: Frame0, st: State): boolean {
    switch (t.type) {
      case 'var':
        return t.value !== 'input' && t.value !== 'data' && lookup(st, `${fr.id}:${t.value}`) === undefined;
      default:
        return isCollectionTerm(t) && forEachChildTerm(t, (x) => this.hasUnbound(x, fr, st));
    }
  }

  /** A pattern with its unbound variables bound to fresh residual variables, as AST. */
  plugPattern(t: Term, fr: Frame0, st: State): { t: Term; st: State } {
    let s = st;
    const walk = (x: Term): Term => {
      switch (x.type) {
        case 'var': {
          if (x.value === 'input' || x.value === 'data') return x;
          const key = `${fr.id}:${x.value}`;
          let b = lookup(s, key);
          if (b === undefined) {
            b = this.freshVar();
            s = bind(s, key, b);
          }
          const r = this.plugged(b, s);
          s = r.st;
          return r.t;
        }
        case 'array':
        case 'set':
          return { type: x.type, value: x.value.map(walk) } as Term;
        case 'object':
          return { type: 'object', value: x.value.map(([a, b]) => [walk(a), walk(b)] as [Term, Term]) };
        default:
          return this.plugDeep(x, fr, s, (ns) => (s = ns));
      }
    };
    const out = walk(t);
    return { t: out, st: s };
  }

  /** The AST of an evaluated term; reading a propagated ref is recorded in the branch. */
  plugged(p: PT, st: State): { t: Term; st: State } {
    if (isKnown(p)) return { t: valueTerm(p.v), st };
    const id = this.propIds.get(p);
    return { t: p, st: id === undefined ? st : { ...st, reads: cons(id, st.reads) } };
  }

  // ---- terms ---------------------------------------------------------------------------

  args(args: Term[], fr: Frame0, st: State, k: (ps: PT[], st: State) => void): void {
    const out: PT[] = [];
    const run = (i: number, s: State): void => {
      if (i === args.length) return k(out.slice(), s);
      this.term(args[i]!, fr, s, (p, s2) => {
        out[i] = p;
        run(i + 1, s2);
      });
    };
    run(0, st);
  }

  term(t: Term, fr: Frame0, st: State, k: KT): void {
    switch (t.type) {
      case 'null':
        return k(known(null), st);
      case 'boolean':
      case 'string':
        return k(known(t.value), st);
      case 'number':
        return k(known(parseNumber(t.value)!), st);
      case 'var': {
        if (t.value === 'input' || t.value === 'data') return this.ref({ type: 'ref', value: [t] }, fr, st, k);
        const b = lookup(st, `${fr.id}:${t.value}`);
        if (b === undefined) throw new PartialError(`var ${t.value} is unbound`, t.location);
        const r = this.plugged(b, st);
        return k(isKnown(b) ? b : r.t, isKnown(b) ? st : r.st);
      }
      case 'ref':
        return this.ref(t, fr, st, k);
      case 'array':
      case 'set':
        return this.args(t.value, fr, st, (ps, s) => {
          if (ps.every(isKnown)) {
            const vs = ps.map((p) => (p as { v: Value }).v);
            return k(known(t.type === 'array' ? vs : RSet.from(vs)), s);
          }
          k({ type: t.type, value: ps.map(toAST) } as Term, s);
        });
      case 'object': {
        const flat = t.value.flatMap(([a, b]) => [a, b]);
        return this.args(flat, fr, st, (ps, s) => {
          if (ps.every(isKnown)) {
            const es: [Value, Value][] = [];
            for (let i = 0; i < ps.length; i += 2) es.push([(ps[i] as { v: Value }).v, (ps[i + 1] as { v: Value }).v]);
            return k(known(makeObject(es)), s);
          }
          const es: [Term, Term][] = [];
          for (let i = 0; i < ps.length; i += 2) es.push([toAST(ps[i]!), toAST(ps[i + 1]!)]);
          k({ type: 'object', value: es }, s);
        });
      }
      case 'call':
        return this.callTerm(t.value, fr, st, t.location, k);
      case 'arraycomprehension':
      case 'setcomprehension':
      case 'objectcomprehension':
        return this.comprehension(t, fr, st, k);
      default:
        return missingKind(t, undefined);
    }
  }

  private callTerm(c: Term[], fr: Frame0, st: State, loc: Location | undefined, k: KT): void {
    const op = c[0]!;
    const name = refName(op) ?? '';
    if (name.startsWith('data.')) return this.callFunction(this.functionNode(op), name, c.slice(1), fr, st, k);
    this.callBuiltin(this.builtin(name, loc), c.slice(1), fr, st, loc, k);
  }

  /** A built-in with an output: computed when every argument is known, else saved with a fresh output var. */
  private callBuiltin(def: BuiltinDef, args: Term[], fr: Frame0, st: State, loc: Location | undefined, k: KT): void {
    this.args(args, fr, st, (ps, s) => {
      if (ps.every(isKnown) && !this.dep.isKeptBuiltin(def.name)) {
        const v = this.invoke(def, ps.map((p) => (p as { v: Value }).v), loc);
        if (v === undefined) return;
        if (def.relation) {
          for (const x of v as Value[]) k(known(x), s);
          return;
        }
        return k(known(v), s);
      }
      if (this.neverFits(def, ps, loc)) return;
      const out = this.freshVar();
      k(out, this.saveAt(s, callExpr(def.name, [...ps.map(toAST), out])));
    });
  }

  /** A user function: evaluated when known, else inlined, else a support function. */
  callFunction(node: RuleNode, name: string, args: Term[], fr: Frame0, st: State, k: KT): void {
    this.args(args, fr, st, (ps, s) => {
      if (ps.every(isKnown) && !this.dep.touches(node)) {
        const v = callFunction(node, ps.map((p) => (p as { v: Value }).v), this.scope.ev);
        if (v !== undefined) k(known(v), s);
        return;
      }
      if (this.support.needed(node)) {
        const op = this.support.functionRef(node);
        const out = this.freshVar();
        return k(out, this.saveAt(s, callExpr(op, [...ps.map(toAST), out])));
      }
      const each = (r: CompiledRule, then: KT): void => {
        const f = this.frame();
        this.enterRule(f, r);
        const params = r.args ?? [];
        const run = (i: number, s2: State): void => {
          if (i === params.length) return this.body(r.body, 0, f, s2, (s3) => this.term(r.value!, f, s3, then));
          this.unifyWith(params[i]!, ps[i]!, f, s2, (s3) => run(i + 1, s3));
        };
        run(0, s);
      };
      for (const r of node.funcs) each(r, k);
      const d = node.default;
      if (!d) return;
      // the default value holds when no definition does (as for complete rules)
      const start = this.varCount;
      const all: Expr[][] = [];
      for (const r of node.funcs) each(r, (p, s2) => void all.push(this.definedValue(p, this.residualSince(s2, s))));
      if (all.some((a) => !a.length)) return;
      // a call with an undefined argument is undefined, default or not
      let sd = s;
      for (const p of ps) if (!isKnown(p) && residualIndex(p) === undefined) sd = this.saveAt(sd, callExpr('eq', [this.freshVar(), p]));
      negateAlternatives(this, all, start, sd, (sg) => this.term(d.value!, this.frame(), sg, k));
      void name;
    });
  }

  // ---- references ----------------------------------------------------------------------

  ref(t: Term & { type: 'ref' }, fr: Frame0, st: State, k: KT): void {
    const segs = t.value;
    const head = segs[0]!;
    if (head.type === 'var' && head.value === 'input') return this.inputRef(segs, fr, st, k);
    if (head.type === 'var' && head.value === 'data') return this.dataRef(this.policy.root, [], segs, 1, fr, st, k);
    this.term(head, fr, st, (p, s) => this.walk(p, segs, 1, fr, s, k));
  }

  /** Continues a ref from an evaluated value. */
  walk(p: PT, segs: Term[], i: number, fr: Frame0, st: State, k: KT): void {
    if (i === segs.length) return k(p, st);
    if (isKnown(p)) return this.walkValue(p.v, segs, i, fr, st, k);
    if ((p.type === 'object' || p.type === 'array') && !this.hasUnbound(segs[i]!, fr, st)) {
      // a composite built from unknowns indexed by a known key: the element itself
      // ({"o": input.x}.o is input.x), so residuals say what is undefined in plain refs
      return this.term(segs[i]!, fr, st, (kp, s) => {
        const el = isKnown(kp) ? element(p, kp.v) : 'unsure';
        if (el === 'missing') return;
        if (el === 'unsure') {
          const r = this.plugSegments(segs, i + 1, fr, s);
          return k(extendRef(p, [toAST(kp), ...r.segs]), r.st);
        }
        const v = constValue(el);
        this.walk(v === undefined ? el : known(v), segs, i + 1, fr, s, k);
      });
    }
    const r = this.plugSegments(segs, i, fr, st);
    k(extendRef(p, r.segs), r.st);
  }

  /** Segments after `i` as AST: bound variables plugged, unbound ones made residual variables. */
  private plugSegments(segs: Term[], i: number, fr: Frame0, st: State): { segs: Term[]; st: State } {
    let s = st;
    const out: Term[] = [];
    for (const seg of segs.slice(i)) {
      const r = this.plugPattern(seg, fr, s);
      out.push(r.t);
      s = r.st;
    }
    return { segs: out, st: s };
  }

  private walkValue(v: Value, segs: Term[], i: number, fr: Frame0, st: State, k: KT): void {
    if (i === segs.length) return k(known(v), st);
    const seg = segs[i]!;
    if (seg.type === 'var' && lookup(st, `${fr.id}:${seg.value}`) === undefined) {
      iterate(v, (key, child) => {
        this.unifyWith(seg, known(key), fr, st, (s) => this.walkValue(child, segs, i + 1, fr, s, k));
        return false;
      });
      return;
    }
    this.term(seg, fr, st, (kp, s) => {
      if (isKnown(kp)) {
        const child = collGet(v, kp.v);
        if (child !== undefined) this.walkValue(child, segs, i + 1, fr, s, k);
        return;
      }
      // a known collection indexed by an unknown key: one branch per member
      iterate(v, (key, child) => {
        this.unifyValues(kp, known(key), s, (s2) => this.walkValue(child, segs, i + 1, fr, s2, k));
        return false;
      });
    });
  }

  private inputRef(segs: Term[], fr: Frame0, st: State, k: KT): void {
    this.baseRef(['input'], this.scope.input, this.scope.overrides, segs, 1, fr, st, k);
  }

  /**
   * A base document (the input, or data with no rules there) read along `segs[i..]` from
   * `start`, with value `v0` where known: symbolic from the first unknown part on. A part
   * with unknowns below it read whole (`object.get(input.row, ...)` with `input.row.owner`
   * unknown) is symbolic too: its known parts alone are not its value.
   */
  private baseRef(start: string[], v0: Value | undefined, overrides: Scope['overrides'], segs: Term[], i0: number, fr: Frame0, st: State, k: KT): void {
    const u = this.o.unknowns;
    const path = [...start];
    const root = path[0]!;
    let v = v0;
    let i = i0;
    const symbolic = (s: State): void => {
      const r = this.plugSegments(segs, i, fr, s);
      const head: Term = root === 'input' ? { type: 'var', value: 'input' } : dataRef([]);
      k(extendRef(head, [...path.slice(1).map((x) => ({ type: 'string', value: x }) as Term), ...r.segs]), r.st);
    };
    for (;;) {
      // a part the query replaced with `with` is known, whatever the unknowns say
      if (overrides.some((o) => o.path.length === path.length - 1 && o.path.every((x, j) => x === path[j + 1]))) break;
      const replacedBelow = overrides.some((o) => o.path.length >= path.length && path.every((x, j) => j === 0 || x === o.path[j - 1]));
      if (replacedBelow && i === segs.length && (u.covers(path) || u.below(path)))
        throw new PartialError(`partial evaluation cannot read ${path.join('.')} whole: part of it is unknown and part replaced by with`);
      if (replacedBelow && i < segs.length && segs[i]!.type !== 'string')
        throw new PartialError(`partial evaluation cannot iterate ${path.join('.')}: part of it is unknown and part replaced by with`);
      if (u.covers(path) && !replacedBelow) return symbolic(st);
      if (!u.below(path) && !u.covers(path) && !replacedBelow) break;
      // read whole while part of it is unknown
      if (i === segs.length) return symbolic(st);
      const seg = segs[i]!;
      const key = seg.type === 'string' ? seg.value : seg.type === 'var' ? lookup(st, `${fr.id}:${seg.value}`) : undefined;
      const name = typeof key === 'string' ? key : key && isKnown(key) && typeof key.v === 'string' ? key.v : undefined;
      // iterating over, or indexing by an unknown key into, a document with unknown parts
      if (name === undefined) return symbolic(st);
      path.push(name);
      v = v === undefined ? undefined : collGet(v, name);
      i++;
    }
    if (v === undefined) return;
    this.walkValue(v, segs, i, fr, st, k);
  }

  private dataRef(node: RuleNode | undefined, path: string[], segs: Term[], i: number, fr: Frame0, st: State, k: KT): void {
    const full = ['data', ...path];
    if (this.o.unknowns.covers(full)) {
      const r = this.plugSegments(segs, i, fr, st);
      return k(extendRef(dataRef(path), r.segs), r.st);
    }
    // base data with unknowns below: read as the input is
    if (!node && this.o.unknowns.below(full)) return this.baseRef(full, this.baseAt(path), [], segs, i, fr, st, k);
    const hasRules = !!node && (node.complete.length > 0 || node.sets.length > 0 || node.general.length > 0 || node.funcs.length > 0 || !!node.default);
    if (!node || (!this.dep.subtreeTouches(node) && !this.o.unknowns.below(full) && !this.support.disabled(path))) {
      const v = this.document(path);
      if (v !== undefined) this.walkValue(v, segs, i, fr, st, k);
      return;
    }
    if (hasRules) return this.inlineRules(node, path, segs, i, fr, st, k);
    if (i === segs.length) {
      // a tree of rules read whole is a support document, unless base data lies there too
      if (this.baseAt(path) === undefined && path.length && !this.o.unknowns.below(full)) return k(this.support.ruleRef(node, path), st);
      throw new PartialError(`partial evaluation cannot read data.${path.join('.')} whole: it depends on the unknowns`);
    }
    this.below(node, path, segs, i, fr, st, k);
  }

  /**
   * The documents below a rule node along `segs[i]`: its child nodes and the base data there.
   * An unbound variable iterates them; a key that depends on the unknowns is one branch per
   * document, each saving `name = key` (as OPA does).
   */
  private below(node: RuleNode, path: string[], segs: Term[], i: number, fr: Frame0, st: State, k: KT): void {
    const seg = segs[i]!;
    const names = (): string[] => {
      const out = new Set<string>(node.children.keys());
      const base = this.baseAt(path);
      if (base !== undefined) iterate(base, (key) => (typeof key === 'string' && out.add(key), false));
      return [...out].sort();
    };
    if (seg.type === 'var' && lookup(st, `${fr.id}:${seg.value}`) === undefined) {
      for (const name of names()) this.unifyWith(seg, known(name), fr, st, (s2) => this.dataRef(node.children.get(name), [...path, name], segs, i + 1, fr, s2, k));
      return;
    }
    this.term(seg, fr, st, (kp, s) => {
      if (!isKnown(kp)) {
        for (const name of names()) this.unifyValues(known(name), kp, s, (s2) => this.dataRef(node.children.get(name), [...path, name], segs, i + 1, fr, s2, k));
        return;
      }
      if (typeof kp.v !== 'string') return;
      this.dataRef(node.children.get(kp.v), [...path, kp.v], segs, i + 1, fr, s, k);
    });
  }

  private baseAt(path: string[]): Value | undefined {
    let v: Value | undefined = this.o.data;
    for (const s of path) {
      if (v === undefined) return undefined;
      v = collGet(v, s);
    }
    return v;
  }

  /** A known document, read (once per partial evaluation) through the evaluator. */
  document(path: string[]): Value | undefined {
    const docs = this.scope.docs;
    const key = path.join('\u0000');
    if (docs.has(key)) return docs.get(key);
    const v = dataAt(this.scope.ev, path);
    docs.set(key, v);
    return v;
  }

  /** Rules that depend on the unknowns, read at `path` with `segs[i..]` still to apply. */
  private inlineRules(node: RuleNode, path: string[], segs: Term[], i: number, fr: Frame0, st: State, k: KT): void {
    if (node.funcs.length) return;
    const whole = i === segs.length;
    // read whole, or a general rule read above its leaf (data.p[x] of p[x][y] := ...)
    const short = node.general.some((r) => segs.length - i < r.suffix.length + (r.setLeaf ? 1 : 0));
    if (this.support.needed(node) || ((node.sets.length || node.general.length) && whole) || short) {
      return this.walk(this.support.ruleRef(node, path), segs, i, fr, st, k);
    }
    if (node.complete.length || node.default) this.inlineComplete(node, segs, i, fr, st, k);
    for (const r of node.sets) {
      const seg = segs[i]!;
      const f = this.frame();
      this.enterRule(f, r);
      this.ruleKeys(r, f, seg, fr, st, (p, s) => this.walk(p, segs, i + 1, fr, s, k));
    }
    for (const r of node.general) this.generalRule(r, segs, i, fr, st, k);
    // rules below a node with general rules (cfg.c.d := 1 beside cfg[k].e := 2)
    if (node.children.size && node.general.length) this.below(node, path, segs, i, fr, st, k);
  }

  /**
   * Complete rules, with their else branches and default value, inlined: a branch holds when
   * its body does and no earlier branch of its chain does; the default holds when no branch
   * of any definition does. "Does not hold" is a negation of residuals (negation.ts).
   */
  private inlineComplete(node: RuleNode, segs: Term[], i: number, fr: Frame0, st: State, k: KT): void {
    const start = this.varCount;
    const all: Expr[][] = [];
    let someAlways = false;
    for (const r of node.complete) {
      const earlier: Expr[][] = [];
      for (let x: CompiledRule | undefined = r; x; x = x.else) {
        const branch = x;
        negateAlternatives(this, [...earlier], start, st, (sg) => {
          const f = this.frame();
          this.enterRule(f, branch);
          this.body(branch.body, 0, f, sg, (s) => this.term(branch.value!, f, s, (p, s2) => this.walk(p, segs, i, fr, s2, k)));
        });
        if (!x.else && !node.default) break;
        const mine = this.alternatives(branch, st);
        earlier.push(...mine);
        if (mine.some((a) => !a.length)) {
          someAlways = true;
          break;
        }
      }
      all.push(...earlier);
    }
    const d = node.default;
    if (!d || someAlways) return;
    negateAlternatives(this, all, start, st, (sg) => this.term(d.value!, this.frame(), sg, (p, s) => this.walk(p, segs, i, fr, s, k)));
  }

  /** The residuals under which a rule branch holds (one per solution). */
  private alternatives(r: CompiledRule, st: State): Expr[][] {
    const out: Expr[][] = [];
    const f = this.frame();
    this.body(r.body, 0, f, st, (s) => this.term(r.value!, f, s, (p, s2) => void out.push(this.definedValue(p, this.residualSince(s2, st)))));
    return out;
  }

  /**
   * A branch holds only when its value is defined too (`p := input.x if ...`): a symbolic
   * value nothing saved already reads is checked as `__pN__ = value`.
   */
  definedValue(p: PT, saved: Expr[]): Expr[] {
    if (isKnown(p) || residualIndex(p) !== undefined) return saved;
    const key = keyOf(p);
    const reads = (e: Expr) => !e.negated && !e.with?.length && Array.isArray(e.terms) && e.terms.some((t) => keyOf(t) === key);
    if (saved.some(reads)) return saved;
    return [...saved, callExpr('eq', [this.freshVar(), p])];
  }

  /** A partial set rule's members unified with the caller's key segment. */
  private ruleKeys(r: CompiledRule, f: Frame0, seg: Term, fr: Frame0, st: State, k: KT): void {
    const key = r.key!;
    if (key.type === 'var' && !this.hasUnbound(seg, fr, st)) {
      // the caller's key is known or symbolic: bind the rule's key var to it first
      return this.term(seg, fr, st, (sp, s) => this.unifyWith(key, sp, f, s, (s2) => this.body(r.body, 0, f, s2, (s3) => this.term(seg, fr, s3, k))));
    }
    this.body(r.body, 0, f, st, (s) => this.term(key, f, s, (kp, s2) => this.unifyWith(seg, kp, fr, s2, (s3) => this.term(seg, fr, s3, k))));
  }

  private generalRule(r: CompiledRule, segs: Term[], i: number, fr: Frame0, st: State, k: KT): void {
    const need = r.suffix.length + (r.setLeaf ? 1 : 0);
    if (segs.length - i < need) throw new PartialError(`partial evaluation cannot read data.${r.path.join('.')} whole: it depends on the unknowns`);
    const f = this.frame();
    this.enterRule(f, r);
    this.body(r.body, 0, f, st, (s) => {
      const keys = r.setLeaf ? [...r.suffix, r.key!] : r.suffix;
      const run = (j: number, s2: State): void => {
        if (j === keys.length) {
          // a set's member is its own value (p[x][m] is m)
          if (r.setLeaf) return this.term(r.key!, f, s2, (p, s3) => this.walk(p, segs, i + need, fr, s3, k));
          return this.term(r.value!, f, s2, (p, s3) => this.walk(p, segs, i + need, fr, s3, k));
        }
        this.term(keys[j]!, f, s2, (kp, s3) => this.unifyWith(segs[i + j]!, kp, fr, s3, (s4) => run(j + 1, s4)));
      };
      run(0, s);
    });
  }

  // ---- comprehensions, every, with -----------------------------------------------------

  /** Runs a nested body; each solution is reported with the expressions it saved. */
  sub(body: Body, fr: Frame0, st: State, each: (s: State, saved: Expr[]) => void): void {
    this.body(body, 0, fr, st, (s) => each(s, this.residualSince(s, st)));
  }

  /** Expressions a branch saved since `from`, with propagated refs nothing read kept as definedness checks. */
  residualSince(s: State, from: State): Expr[] {
    const out = itemsSince(s.saved, from.saved);
    const reads = new Set<number>();
    for (let x = s.reads; x; x = x.tail) reads.add(x.head);
    for (const p of itemsSince(s.props, from.props)) if (!reads.has(p.id)) out.push(callExpr('eq', [this.freshVar(), p.term]));
    return out;
  }

  private comprehension(t: Term, fr: Frame0, st: State, k: KT): void {
    const c = t as Term & { type: 'arraycomprehension' | 'setcomprehension' | 'objectcomprehension' };
    const items: Value[] = [];
    const entries: [Value, Value][] = [];
    let residual = false;
    this.sub(c.value.body, fr, st, (s, saved) => {
      if (residual) return;
      if (saved.length) return void (residual = true);
      if (c.type === 'objectcomprehension') {
        this.term(c.value.key, fr, s, (kp, s2) =>
          this.term(c.value.value, fr, s2, (vp) => {
            if (isKnown(kp) && isKnown(vp)) entries.push([kp.v, vp.v]);
            else residual = true;
          }),
        );
      } else {
        this.term(c.value.term, fr, s, (p) => {
          if (isKnown(p)) items.push(p.v);
          else residual = true;
        });
      }
    });
    if (residual) {
      let ns = st;
      const whole = this.plugDeep(t, fr, st, (x) => (ns = x));
      return k(whole, ns);
    }
    if (c.type === 'arraycomprehension') return k(known(items), st);
    if (c.type === 'setcomprehension') return k(known(RSet.from(items)), st);
    for (let a = 0; a < entries.length; a++)
      for (let b = a + 1; b < entries.length; b++)
        if (equal(entries[a]![0], entries[b]![0]) && !equal(entries[a]![1], entries[b]![1]))
          throw new RegoEvalError('eval_conflict_error', 'object keys must be unique', c.location);
    k(known(makeObject(entries)), st);
  }

  private every(t: Every, e: Expr, fr: Frame0, st: State, k: K): void {
    this.term(t.domain, fr, st, (d, s) => {
      let keep = !isKnown(d);
      // every over a known value that is no collection is false, as in full evaluation
      if (isKnown(d) && !isCollection(d.v)) return;
      if (isKnown(d)) {
        let failed = false;
        iterate(d.v, (key, val) => {
          let ok = false;
          let residual = false;
          const bindKV = (s0: State, then: K) =>
            t.key ? this.unifyWith(t.key, known(key), fr, s0, (s1) => this.unifyWith(t.value, known(val), fr, s1, then)) : this.unifyWith(t.value, known(val), fr, s0, then);
          bindKV(s, (s1) =>
            this.sub(t.body, fr, s1, (_s2, saved) => {
              if (saved.length) residual = true;
              else ok = true;
            }),
          );
          if (!ok && !residual) failed = true;
          if (!ok && residual) keep = true;
          return failed;
        });
        if (failed) return;
      }
      if (!keep) return k(s);
      let ns = s;
      const whole = this.plugExpr({ ...e, terms: { ...t, domain: { type: 'null' } } }, fr, s, (x) => (ns = x));
      const dom = this.plugged(d, ns);
      (whole.terms as Every).domain = dom.t;
      k(this.saveAt(dom.st, whole));
    });
  }

  // ---- plugging whole constructs ---------------------------------------------------------

  /** An expression kept whole: see plugDeep. */
  plugExpr(e: Expr, fr: Frame0, st: State, set: (s: State) => void): Expr {
    return this.plugScope(() => this.plugExprIn(e, fr, st, set));
  }

  private plugExprIn(e: Expr, fr: Frame0, st: State, set: (s: State) => void): Expr {
    // a `with` expression reads the policy's own documents and functions (with.ts)
    if (e.with?.length) return plugWithExpr(this, e, fr, st, set, (x) => this.localName(x, fr));
    let s = st;
    const up = (x: State) => (s = x);
    const t = e.terms;
    const out: Expr = { ...e, index: 0 };
    if (isEvery(t)) {
      const domain = this.plugDeep(t.domain, fr, s, up);
      // an empty domain holds whatever the body reads: reading a copy there keeps no definedness
      const reads = s.reads;
      const kv = (x: Term): Term => (x.type === 'var' ? this.localName(x, fr) : x);
      out.terms = { ...t, domain, key: t.key && kv(t.key), value: kv(t.value), body: t.body.map((b) => this.plugExpr(b, fr, s, up)) };
      s = { ...s, reads };
    }
    else if (isSome(t)) out.terms = { ...t, symbols: t.symbols.map((x) => this.plugDeep(x, fr, s, up)) };
    else if (Array.isArray(t)) out.terms = t.map((x, i) => (i === 0 ? this.plugOperator(x) : this.plugDeep(x, fr, s, up)));
    else out.terms = this.plugDeep(t as Term, fr, s, up);
    if (e.with) out.with = e.with.map((w) => ({ ...w, value: this.plugDeep(w.value, fr, s, up) }));
    set(s);
    return out;
  }

  private plugOperator(op: Term): Term {
    const p = rootPath(op);
    if (p?.[0] !== 'data') return op;
    const node = this.policy.root.find(p.slice(1));
    return node?.funcs.length ? this.support.functionRef(node) : op;
  }

  /**
   * A term kept whole (a comprehension or `every` over unknowns, a `with` expression):
   * bound variables plugged in, variables local to it left as they are, known documents
   * replaced by their values, documents depending on the unknowns by support rules.
   */
  plugDeep(t: Term, fr: Frame0, st: State, set: (s: State) => void): Term {
    return this.plugScope(() => this.plugDeepIn(t, fr, st, set));
  }

  /** One top-level plugging: the local names it gives (localName) are its own. */
  private plugScope<T>(f: () => T): T {
    if (this.plugDepth++ === 0) this.plugEpoch++;
    try {
      return f();
    } finally {
      this.plugDepth--;
    }
  }

  private plugDeepIn(t: Term, fr: Frame0, st: State, set: (s: State) => void): Term {
    let s = st;
    const walk = (x: Term): Term => {
      switch (x.type) {
        case 'var': {
          if (x.value === 'input' || x.value === 'data') return this.plugRootRef({ type: 'ref', value: [x] });
          const b = lookup(s, `${fr.id}:${x.value}`);
          if (b === undefined) return this.localName(x, fr);
          const r = this.plugged(b, s);
          s = r.st;
          return r.t;
        }
        case 'ref': {
          const head = x.value[0]!;
          if (head.type === 'var' && (head.value === 'input' || head.value === 'data')) {
            const segs = x.value.map((y, i) => (i === 0 ? y : walk(y)));
            return this.plugRootRef({ type: 'ref', value: segs });
          }
          return extendRef(walk(head), x.value.slice(1).map(walk));
        }
        case 'call':
          return { ...x, value: x.value.map((y, i) => (i === 0 ? this.plugOperator(y) : walk(y))) };
        // a comprehension is always defined: reading a copy inside it keeps no definedness
        case 'arraycomprehension':
        case 'setcomprehension': {
          const reads = s.reads;
          const out = { ...x, value: { term: walk(x.value.term), body: x.value.body.map((e) => this.plugExpr(e, fr, s, (ns) => (s = ns))) } } as Term;
          s = { ...s, reads };
          return out;
        }
        case 'objectcomprehension': {
          const reads = s.reads;
          const out: Term = { ...x, value: { key: walk(x.value.key), value: walk(x.value.value), body: x.value.body.map((e) => this.plugExpr(e, fr, s, (ns) => (s = ns))) } };
          s = { ...s, reads };
          return out;
        }
        default:
          return mapChildTerms(x, walk);
      }
    };
    const out = walk(t);
    set(s);
    return out;
  }

  /**
   * A variable local to a construct kept whole, as residual text can write it: the compiler's
   * unique names (`t#1` for a second `t` in one rule) become fresh residual variables, one per
   * top-level plugging, frame and name, so the text is Rego and names nothing of the policy's
   * (and a name made under a negation is newer than the negation's start: never an outer var).
   */
  private localName(x: Term & { type: 'var' }, fr: Frame0): Term {
    if (x.value.startsWith('$') || IDENTIFIER.test(x.value)) return x;
    const key = `${this.plugEpoch}:${fr.id}:${x.value}`;
    let v = this.locals.get(key);
    if (!v) this.locals.set(key, (v = this.freshVar()));
    return v;
  }

  /** input/data refs inside a construct kept whole. */
  private plugRootRef(r: Term & { type: 'ref' }): Term {
    const path = rootPath(r)!;
    if (path[0] === 'input') {
      if (this.o.unknowns.overlaps(path) || this.scope.input === undefined) return r;
      let v: Value | undefined = this.scope.input;
      for (const seg of path.slice(1)) v = v === undefined ? undefined : collGet(v, seg);
      // undefined stays a ref, so the residual is undefined where the query was
      return v === undefined ? r : extendRef(valueTerm(v), r.value.slice(path.length));
    }
    const dpath = path.slice(1);
    if (this.o.unknowns.covers(path)) return r;
    // the deepest rule node on the path decides
    let node: RuleNode | undefined = this.policy.root;
    let depth = 0;
    for (const seg of dpath) {
      const c: RuleNode | undefined = node.children.get(seg);
      if (!c) break;
      node = c;
      depth++;
    }
    // below the last rule node the document is base data: known unless an unknown overlaps it
    const base = depth < dpath.length && !(node.complete.length || node.sets.length || node.general.length || node.default);
    const touches = this.o.unknowns.below(path) || (!base && (this.dep.subtreeTouches(node) || this.support.disabled(dpath.slice(0, depth))));
    if (!touches) {
      const v = this.document(dpath);
      return v === undefined ? r : extendRef(valueTerm(v), r.value.slice(path.length));
    }
    if (node.complete.length || node.sets.length || node.general.length || node.default)
      return extendRef(this.support.ruleRef(node, dpath.slice(0, depth)), r.value.slice(depth + 1));
    throw new PartialError(`partial evaluation cannot keep a reference to data.${dpath.join('.')} inside a construct over unknowns`);
  }

  keyOf = keyOf;
}
