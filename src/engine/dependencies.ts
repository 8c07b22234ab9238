// What a query depends on, as OPA's dependencies package (and `opa deps`) answers it: the
// base documents (input and data the policy reads but no rule defines) and the virtual
// documents (rules) it reaches, following rules transitively. Refs are cut at their first
// non-constant segment (data.a.b[x] -> data.a.b). A var bound to a ref (`x := data.a`)
// stands for that ref where it is used (`x.b` -> data.a.b), as OPA joins them.

import type { Body, Expr, Term } from '../lang/ast.js';
import { parseQuery, type RegoVersion } from '../lang/index.js';
import { forEachChildTerm } from '../lang/visit.js';
import type { CompiledPolicy, CompiledRule, RuleNode } from '../compiler/index.js';

/** A dependency: `input` or `data` followed by constant segments. */
export interface DependencyRef {
  head: 'data' | 'input';
  path: (string | number | boolean | null)[];
}

export interface Dependencies {
  base: DependencyRef[];
  virtual: DependencyRef[];
}

type Ref = Term[];

// ---- walking terms and bodies (refs in every nested term, body and `with`) --------------

/** Calls f on every term of the expression; `visit` decides whether terms inside them are too. */
function eachTermInExpr(e: Expr, f: (t: Term) => void, visit: (t: Term, f: (t: Term) => void) => void = eachTerm): void {
  const t = e.terms;
  if (Array.isArray(t)) t.forEach((x) => visit(x, f));
  else if ((t as { type: string }).type === 'somedecl') (t as { symbols: Term[] }).symbols.forEach((x) => visit(x, f));
  else if ((t as { type: string }).type === 'every') {
    const ev = t as { key: Term | null; value: Term; domain: Term; body: Body };
    if (ev.key) visit(ev.key, f);
    visit(ev.value, f);
    visit(ev.domain, f);
    ev.body.forEach((x) => eachTermInExpr(x, f, visit));
  } else visit(t as Term, f);
  for (const w of e.with ?? []) {
    visit(w.target, f);
    visit(w.value, f);
  }
}

/** The expression's own terms only (varsOf walks inside them itself). */
const topLevel = (t: Term, f: (t: Term) => void): void => f(t);

/** Calls f on t and every term inside it (ref segments, call operators, comprehension bodies). */
function eachTerm(t: Term, f: (t: Term) => void): void {
  f(t);
  forEachChildTerm(
    t,
    (x) => eachTerm(x, f),
    undefined,
    (body) => body.forEach((e) => eachTermInExpr(e, f)),
  );
}

/** Vars of a term; with skipRefHeads, not the var a ref starts with (OPA's SkipRefHead). */
function varsOf(t: Term, out: Set<string>, skipRefHeads = false): void {
  const heads = new Set<Term>();
  // Pre-order: a ref is visited before its head.
  eachTerm(t, (x) => {
    if (skipRefHeads && x.type === 'ref' && x.value[0]) heads.add(x.value[0]);
    if (x.type === 'var' && !heads.has(x)) out.add(x.value);
  });
}

const ROOTS = new Set(['data', 'input']);

function headVar(r: Ref): string | undefined {
  const h = r[0];
  return h?.type === 'var' ? h.value : undefined;
}

function isRoot(r: Ref): boolean {
  const h = headVar(r);
  return h !== undefined && ROOTS.has(h);
}

/** A key for a ref (equal refs, equal keys). */
function refKey(r: Ref): string {
  return JSON.stringify(r.map((t) => (t.type === 'var' ? ['v', t.value] : t.type === 'ref' ? ['r', refKey(t.value)] : [t.type, 'value' in t ? JSON.stringify(t.value) : null])));
}

// ---- one rule (or a query as a rule whose head holds all its vars): OPA's ruleDeps ------

const EQ_OPS = new Set(['eq', 'assign']);

function equality(e: Expr): [string, Ref] | undefined {
  if (e.negated || !Array.isArray(e.terms) || e.terms.length !== 3) return undefined;
  const [op, l, r] = e.terms as [Term, Term, Term];
  const opName = op.type === 'ref' && op.value.length === 1 && op.value[0]!.type === 'var' ? op.value[0]!.value : op.type === 'var' ? op.value : undefined;
  if (!opName || !EQ_OPS.has(opName)) return undefined;
  if (l.type === 'var' && r.type === 'ref') return [l.value, r.value];
  if (r.type === 'var' && l.type === 'ref') return [r.value, l.value];
  return undefined;
}

/** The data and input refs a rule body (with its head terms and head vars) reads. */
function bodyRefs(body: Body, headTerms: Term[], headVars: Set<string>): Ref[] {
  const bound = new Map<string, Ref[]>();
  const others: Expr[] = [];
  for (const e of body) {
    const eq = equality(e);
    if (eq) bound.set(eq[0], [...(bound.get(eq[0]) ?? []), eq[1]]);
    else others.push(e);
  }
  // Join vars to the root refs they stand for, to a fixed point (x := data.a; y := x.b).
  const joined = new Map<string, Map<string, Ref>>();
  for (const v of bound.keys()) joined.set(v, new Map());
  for (let changed = true; changed; ) {
    changed = false;
    for (const [v, refs] of bound) {
      for (const r of refs) {
        const targets = isRoot(r) ? [r] : [...(joined.get(headVar(r) ?? '')?.values() ?? [])].map((j) => [...j, ...r.slice(1)]);
        for (const t of targets) {
          const k = refKey(t);
          if (!joined.get(v)!.has(k)) {
            joined.get(v)!.set(k, t);
            changed = true;
          }
        }
      }
    }
  }
  const expand = (r: Ref): Ref[] => {
    if (isRoot(r)) return [r];
    const j = joined.get(headVar(r) ?? '');
    return j ? [...j.values()].map((x) => [...x, ...r.slice(1)]) : [];
  };

  const resolved: Ref[] = [];
  const used = new Set<string>();
  const visitRefs = (t: Term) =>
    eachTerm(t, (x) => {
      if (x.type === 'ref') resolved.push(...expand(x.value));
    });
  for (const e of others) eachTermInExpr(e, visitRefs);
  for (const t of headTerms) visitRefs(t);
  // Vars used outside ref heads: in the other expressions, and in ref segments anywhere.
  const usedIn = (t: Term) => varsOf(t, used, true);
  for (const e of others) eachTermInExpr(e, usedIn, topLevel);
  for (const e of body)
    eachTermInExpr(e, (t) => {
      if (t.type === 'ref') for (const s of t.value.slice(1)) if (s.type === 'var') used.add(s.value);
    });
  // A var bound to a ref counts that ref whole when the head or another expression uses the
  // var itself; the refs inside the bound ref count either way (OPA's resolveRemainingVars).
  for (const [v, refs] of joined) {
    const whole = headVars.has(v) || refs.size > 1 || used.has(v);
    for (const r of refs.values()) {
      if (whole) resolved.push(r);
      for (const s of r.slice(1)) visitRefs(s);
    }
  }
  return resolved;
}

function ruleRefs(rule: CompiledRule): Ref[] {
  const headTerms: Term[] = [...rule.suffix, ...(rule.args ?? [])];
  if (rule.key) headTerms.push(rule.key);
  if (rule.value) headTerms.push(rule.value);
  const headVars = new Set<string>();
  headTerms.forEach((t) => varsOf(t, headVars));
  return bodyRefs(rule.body, headTerms, headVars);
}

function queryRefs(body: Body): Ref[] {
  const vars = new Set<string>();
  body.forEach((e) => eachTermInExpr(e, (t) => t.type === 'var' && !t.value.startsWith('$') && vars.add(t.value)));
  return bodyRefs(body, [], vars);
}

// ---- refs as constant paths, and the rules they reach ------------------------------------

function scalar(t: Term): string | number | boolean | null | undefined {
  switch (t.type) {
    case 'string':
      return t.value;
    case 'number':
      return Number(t.value);
    case 'boolean':
      return t.value;
    case 'null':
      return null;
    default:
      return undefined;
  }
}

/** The ref's constant prefix (OPA's ConstantPrefix), as a dependency. */
function constantPrefix(r: Ref): DependencyRef {
  const path: DependencyRef['path'] = [];
  for (const t of r.slice(1)) {
    const s = scalar(t);
    if (s === undefined) break;
    path.push(s);
  }
  return { head: headVar(r) as 'data' | 'input', path };
}

const TYPE_ORDER = { boolean: 1, number: 2, string: 3 } as Record<string, number>;

function segCompare(a: DependencyRef['path'][number], b: DependencyRef['path'][number]): number {
  const ta = a === null ? 0 : TYPE_ORDER[typeof a]!;
  const tb = b === null ? 0 : TYPE_ORDER[typeof b]!;
  if (ta !== tb) return ta - tb;
  if (a === b) return 0;
  return (a as string | number | boolean) < (b as string | number | boolean) ? -1 : 1;
}

/** OPA's RefCompare: segment by segment, a prefix first. */
export function compareDependencyRefs(a: DependencyRef, b: DependencyRef): number {
  if (a.head !== b.head) return a.head < b.head ? -1 : 1;
  for (let i = 0; i < Math.min(a.path.length, b.path.length); i++) {
    const c = segCompare(a.path[i]!, b.path[i]!);
    if (c) return c;
  }
  return a.path.length - b.path.length;
}

function hasPrefix(r: DependencyRef, p: DependencyRef): boolean {
  return r.head === p.head && p.path.length <= r.path.length && p.path.every((s, i) => segCompare(s, r.path[i]!) === 0);
}

function sortDedup(refs: DependencyRef[]): DependencyRef[] {
  const sorted = [...refs].sort(compareDependencyRefs);
  return sorted.filter((r, i) => i === 0 || compareDependencyRefs(sorted[i - 1]!, r) !== 0);
}

/**
 * OPA's Minimal over raw refs: sorted, and a ref under another one left out. Refs are compared
 * by their constant prefix here (OPA compares whole refs first; both cut them the same way after).
 */
function minimal(refs: Ref[]): DependencyRef[] {
  const sorted = sortDedup(refs.filter(isRoot).map(constantPrefix));
  const out: DependencyRef[] = [];
  for (const r of sorted) if (!out.length || !hasPrefix(r, out[out.length - 1]!)) out.push(r);
  return out;
}

function* rulesBelow(node: RuleNode): Generator<CompiledRule> {
  yield* node.allRules();
  for (const c of node.children.values()) yield* rulesBelow(c);
}

/** OPA's GetRules: the rules defining the document the ref points into, and every rule under it. */
function rulesFor(policy: CompiledPolicy, r: DependencyRef): CompiledRule[] {
  if (r.head !== 'data') return [];
  const found = new Set<CompiledRule>();
  let node: RuleNode | undefined = policy.root;
  for (const s of r.path) {
    node = node.children.get(String(s));
    if (!node) break;
    const here = [...node.allRules()];
    if (here.length) {
      here.forEach((x) => found.add(x));
      break;
    }
  }
  if (node) for (const x of rulesBelow(node)) found.add(x);
  return [...found];
}

/** Parses the query and answers its base and virtual dependencies against the compiled policy. */
export function queryDependencies(policy: CompiledPolicy, query: string | Body, regoVersion: RegoVersion = 'v1'): Dependencies {
  const body = typeof query === 'string' ? parseQuery(query, { regoVersion }) : query;
  const start = minimal(queryRefs(body));

  const base: DependencyRef[] = [];
  const seenBase = new Set<CompiledRule>();
  const walkBase = (refs: DependencyRef[]): void => {
    for (const r of refs) {
      const rules = rulesFor(policy, r);
      if (!rules.length) base.push(r);
      for (const rule of rules) {
        if (seenBase.has(rule)) continue;
        seenBase.add(rule);
        walkBase(minimal(ruleRefs(rule)));
      }
    }
  };
  walkBase(start);

  const virtual: DependencyRef[] = [];
  const seenVirtual = new Set<CompiledRule>();
  const walkVirtual = (refs: DependencyRef[]): void => {
    for (const r of refs) {
      for (const rule of rulesFor(policy, r)) {
        if (seenVirtual.has(rule)) continue;
        seenVirtual.add(rule);
        walkVirtual(minimal(ruleRefs(rule)));
        virtual.push({ head: 'data', path: rule.path });
      }
    }
  };
  walkVirtual(start);

  return { base: sortDedup(base), virtual: sortDedup(virtual) };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A dependency as OPA prints a ref: data.a["b-c"][0]. */
export function dependencyText(r: DependencyRef): string {
  let out: string = r.head;
  for (const s of r.path) out += typeof s === 'string' && IDENT.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`;
  return out;
}

/** A dependency in OPA's JSON form of a ref: a list of terms, the head a var. */
export function dependencyJSON(r: DependencyRef): unknown[] {
  const term = (s: DependencyRef['path'][number]) =>
    s === null ? { type: 'null' } : { type: typeof s === 'string' ? 'string' : typeof s === 'number' ? 'number' : 'boolean', value: s };
  return [{ type: 'var', value: r.head }, ...r.path.map(term)];
}
