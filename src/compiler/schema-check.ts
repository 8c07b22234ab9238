// The type checks a schema makes possible (OPA's v1/ast/check.go, restricted to what a
// schema types): refs into input and data (and into locals bound to them) are checked
// against the rule's TypeEnv (schema-env.ts), `=`/`:=` between two typed terms is OPA's
// "match error", and a built-in argument whose type is known but cannot unify with the
// declaration is "invalid argument(s)". A term whose type Regolith does not infer (a rule's
// value, a user function's result, a var bound by iteration) is unknown and never an error,
// so the check reports a subset of what OPA reports and never refuses what OPA accepts.

import type { Body, Expr, Location, RegoErrorDetail, Term } from '../lang/ast.js';
import { ARGS_ONLY, forEachChildTerm, isClosure } from '../lang/visit.js';
import { declarationIn } from './builtins/index.js';
import type { TypeDecl } from './builtins/types.js';
import { typeString, union } from './const-types.js';
import { compileError, typeError, withLines } from './errors.js';
import { checkLeaf } from './schema-refs.js';
import type { TypeEnv } from './schema-env.js';
import { isEvery, isSome, refName } from './terms.js';
import type { CompiledRule, RuleNode } from './tree.js';
import { unifies } from './unify.js';

const ANY: TypeDecl = { type: 'any' };

/** Checks a rule (body, then head terms) against its environment. */
export function checkRuleTypes(rule: CompiledRule, env: TypeEnv, root: RuleNode, errors: RegoErrorDetail[]): void {
  const c = new Checker(env, root, errors, (n) => rule.namer.original.get(n) ?? n, new Map());
  c.body(rule.body);
  for (const t of [...rule.suffix, rule.key, rule.value]) if (t) c.refs(t);
}

/** Checks a query body (only the global input type applies to queries, as in OPA). */
export function checkQueryTypes(body: Body, env: TypeEnv, root: RuleNode, errors: RegoErrorDetail[], original: Map<string, string>): void {
  new Checker(env, root, errors, (n) => original.get(n) ?? n, new Map()).body(body);
}

class Checker {
  constructor(
    private readonly env: TypeEnv,
    private readonly root: RuleNode,
    private readonly errors: RegoErrorDetail[],
    private readonly original: (name: string) => string,
    /** Types of local vars bound so far (unknown when absent). */
    private readonly vars: Map<string, TypeDecl>,
  ) {}

  body(body: Body): void {
    for (const e of body) this.expr(e);
  }

  private expr(e: Expr): void {
    const before = this.errors.length;
    const t = e.terms;
    if (isSome(t)) {
      for (const x of t.symbols) this.refs(x);
      return;
    }
    if (isEvery(t)) {
      this.refs(t.domain);
      new Checker(this.env, this.root, this.errors, this.original, new Map(this.vars)).body(t.body);
      return;
    }
    if (!Array.isArray(t)) {
      this.refs(t as Term);
      return;
    }
    for (const x of t.slice(1)) this.refs(x);
    for (const w of e.with ?? []) this.refs(w.value);
    // As OPA: an expression whose refs are already reported is not reported again.
    if (this.errors.length > before) return;
    const name = refName(t[0]!);
    if (name) this.call(name, t.slice(1), e.location ?? t[0]!.location);
  }

  /** Checks every ref and nested call of a term; closures get a scope of their own. */
  refs(t: Term): void {
    if (t.type === 'ref') this.ref(t.value);
    if (t.type === 'call') {
      const before = this.errors.length;
      for (const a of t.value.slice(1)) this.refs(a);
      const name = refName(t.value[0]!);
      if (name && this.errors.length === before) this.call(name, t.value.slice(1), t.location);
      return;
    }
    if (isClosure(t)) {
      // The body first: OPA moves a comprehension's head terms to the end of its body.
      const inner = new Checker(this.env, this.root, this.errors, this.original, new Map(this.vars));
      const heads: Term[] = [];
      forEachChildTerm(
        t,
        (x) => void heads.push(x),
        ARGS_ONLY,
        (b) => inner.body(b),
      );
      for (const h of heads) inner.refs(h);
      return;
    }
    forEachChildTerm(t, (x) => this.refs(x), ARGS_ONLY, (b) => this.body(b));
  }

  private ref(ref: Term[]): void {
    const start = this.start(ref);
    if (!start) return;
    const err = checkLeaf(start.type, ref, start.idx, this.original);
    if (err) this.errors.push(err);
  }

  /** Where a ref's type is known from: the env entry of its constant prefix, or a typed local. */
  private start(ref: Term[]): { type: TypeDecl; idx: number } | undefined {
    const head = ref[0];
    if (head?.type !== 'var') return undefined;
    if (head.value === 'input' || head.value === 'data') {
      const keys: (string | number | undefined)[] = [head.value];
      for (const t of ref.slice(1)) {
        if (t.type === 'string') keys.push(t.value);
        else if (t.type === 'number') keys.push(Number(t.value));
        else break;
      }
      const entry = this.env.lookup(keys);
      return entry && { type: entry.type, idx: entry.path.length };
    }
    const t = this.vars.get(head.value);
    return t && { type: t, idx: 1 };
  }

  private call(name: string, args: Term[], loc: Location | undefined): void {
    if (name === 'eq' || name === 'assign') {
      if (args.length === 2) this.unify(args[0]!, args[1]!, loc);
      return;
    }
    if (name.startsWith('data.')) return;
    const decl = declarationIn(this.root.builtins, name)?.decl;
    if (!decl?.args || decl.variadic) return;
    const want = decl.args;
    const have = args.slice(0, want.length).map((a) => this.typeOf(a));
    if (have.some((h, i) => h !== undefined && !unifies(h, want[i]!))) {
      this.errors.push(typeError(`${name}: invalid argument(s)`, have.map((h) => typeString(h ?? ANY)), `(${want.map(typeString).join(', ')})`, loc));
      return;
    }
    const out = args[want.length];
    if (out && decl.result && this.typeOf(out) === undefined) this.bind(out, decl.result);
  }

  /** OPA's unify2: two typed sides must unify; a side of unknown type takes the other's. */
  private unify(a: Term, b: Term, loc: Location | undefined): void {
    const ta = this.typeOf(a);
    const tb = this.typeOf(b);
    let ok = true;
    if (ta && tb) ok = unifies(ta, tb);
    else if (ta) ok = this.bind(b, ta);
    else if (tb) ok = this.bind(a, tb);
    else if (a.type === 'array' && b.type === 'array' && a.value.length === b.value.length) a.value.forEach((x, i) => this.unify(x, b.value[i]!, loc));
    if (!ok) {
      const d = compileError('rego_type_error', 'match error', loc);
      d.details = withLines({ a: ta ?? null, b: tb ?? null }, [`left  : ${ta ? typeString(ta) : '???'}`, `right : ${tb ? typeString(tb) : '???'}`]);
      this.errors.push(d);
    }
  }

  /** OPA's unify1 for a term of unknown type: vars take the type; false when the shapes cannot match. */
  private bind(t: Term, tpe: TypeDecl): boolean {
    switch (t.type) {
      case 'var':
        if (!this.vars.has(t.value)) this.vars.set(t.value, tpe);
        return true;
      case 'array':
        if (tpe.type === 'array') {
          if (t.value.length !== (tpe.static?.length ?? 0) && !tpe.dynamic) return false;
          return t.value.every((x, i) => this.bind(x, tpe.static?.[i] ?? tpe.dynamic ?? ANY));
        }
        return tpe.type === 'any';
      case 'object':
        if (tpe.type === 'object') {
          if (t.value.length !== (tpe.static?.length ?? 0) && !tpe.dynamic) return false;
          return t.value.every(([k, x]) => {
            if (k.type !== 'string') return true;
            const child = tpe.static?.find((p) => p.key === k.value)?.value ?? tpe.dynamic?.value;
            return child !== undefined && this.bind(x, child);
          });
        }
        return tpe.type === 'any';
      default:
        // refs, calls and composites holding them: whatever Regolith cannot type is accepted.
        return true;
    }
  }

  /** The static type of a term, undefined when Regolith does not know it (OPA's nil or beyond our inference). */
  typeOf(t: Term): TypeDecl | undefined {
    switch (t.type) {
      case 'null':
      case 'boolean':
      case 'number':
      case 'string':
        return { type: t.type };
      case 'var':
        return this.vars.get(t.value);
      case 'array': {
        const items = t.value.map((x) => this.typeOf(x));
        return items.every((x) => x !== undefined) ? (items.length ? { type: 'array', static: items as TypeDecl[] } : { type: 'array', dynamic: ANY }) : undefined;
      }
      case 'set': {
        const items = t.value.map((x) => this.typeOf(x));
        if (!items.every((x) => x !== undefined)) return undefined;
        return { type: 'set', of: items.length ? union(items as TypeDecl[]) : ANY };
      }
      case 'object': {
        const statics: { key: string; value: TypeDecl }[] = [];
        for (const [k, x] of t.value) {
          const v = this.typeOf(x);
          if (k.type !== 'string' || !v) return undefined;
          statics.push({ key: k.value, value: v });
        }
        statics.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
        return statics.length ? { type: 'object', static: statics } : { type: 'object', dynamic: { key: ANY, value: ANY } };
      }
      case 'ref':
        return this.refType(t.value);
      case 'call': {
        const name = refName(t.value[0]!);
        if (!name || name.startsWith('data.')) return undefined;
        return declarationIn(this.root.builtins, name)?.decl.result;
      }
      default:
        return undefined;
    }
  }

  private refType(ref: Term[]): TypeDecl | undefined {
    const start = this.start(ref);
    if (!start) return undefined;
    let t: TypeDecl | undefined = start.type;
    for (const seg of ref.slice(start.idx)) {
      if (!t) return undefined;
      if (t.type === 'any') return ANY;
      t = select(t, seg);
    }
    return t;
  }
}

/** The type under one key of a collection type (undefined: no such key, or not a collection). */
function select(t: TypeDecl, key: Term): TypeDecl | undefined {
  const constant = key.type === 'string' || key.type === 'number' || key.type === 'boolean' || key.type === 'null';
  if (t.type === 'object') {
    if (!constant) return union([...(t.static ?? []).map((p) => p.value), ...(t.dynamic ? [t.dynamic.value] : [])]);
    return (key.type === 'string' ? t.static?.find((p) => p.key === key.value)?.value : undefined) ?? t.dynamic?.value;
  }
  if (t.type === 'array') {
    if (!constant) return union([...(t.static ?? []), ...(t.dynamic ? [t.dynamic] : [])]);
    if (key.type !== 'number') return undefined;
    const i = Number(key.value);
    return (Number.isInteger(i) ? t.static?.[i] : undefined) ?? t.dynamic;
  }
  if (t.type === 'set') return t.of;
  return undefined;
}

