// The compiler: many modules -> one CompiledPolicy (the package tree of checked, rewritten
// rules). Bodies are turned into closures by the evaluator (src/eval/closures), once per rule.

import type { Body, Module, RegoErrorDetail, Rule, Term } from '../lang/ast.js';
import { forEachChildTerm, isClosure } from '../lang/visit.js';
import { declarationIn, type BuiltinOverlay } from './builtins/index.js';
import { RegoCompileError } from './errors.js';
import { declareAll, LocalNamer, openScope, renameBody, renameTerm, type Scope } from './locals.js';
import { buildGlobals, packagePath, Resolver, ruleLocals } from './resolve.js';
import { checkHead, nestedTerm, reorderDeep } from './rewrite.js';
import type { SafetyCtx } from './safety.js';
import { forEachVarShallow, refName } from './terms.js';
import { addRule, RuleNode, type CompiledRule, type RuleKind } from './tree.js';
import { checkRecursion } from './recursion.js';
import { checkCalls } from './typecheck.js';
import { checkQueryTypes, checkRuleTypes } from './schema-check.js';
import { SchemaScopes, TypeEnv, type SchemaSet } from './schema-env.js';
import { checkLanguage, type LanguageCapabilities } from './capabilities.js';
import type { TypeDecl } from './builtins/types.js';
import { checkConflicts } from './conflicts.js';
import { checkDeclarations, checkQueryDeclarations } from './declared.js';
import {
  checkArgShadowing,
  checkDeprecatedBuiltins,
  checkDuplicateImports,
  checkRootOverrides,
  checkUnusedImports,
  isV1Compatible,
} from './module-checks.js';
import { checkConstantArgs, checkConstantArgsInBody } from './const-types.js';
import { rewriteMetadataCalls } from './metadata.js';
import { rewriteZeroArityBody, rewriteZeroArityRule } from './zero-arity.js';
import { futureNot, hoistNegatedBody, hoistNegatedTerm, MODULE_UNIFY, QUERY_UNIFY } from './negation.js';

export { RegoCompileError } from './errors.js';
export { RuleNode, type CompiledRule } from './tree.js';

export interface CompileOptions {
  /**
   * OPA's strict mode: unused imports, unused `:=` vars and unused function args are errors,
   * and the v1 checks (root document shadowing, duplicate imports, deprecated built-ins)
   * apply to v0 modules too.
   */
  strict?: boolean;
  /** Custom built-ins of this policy (src/engine/custom-builtins.ts). */
  builtins?: BuiltinOverlay;
  /**
   * OPA's capabilities: the only built-ins calls may name (`--capabilities`); a call to
   * any other is `undefined function` as in OPA. Unset: every built-in.
   */
  allowedBuiltins?: ReadonlySet<string>;
  /** The type of `input` (from a JSON Schema, `--schema`): refs into input are checked against it. */
  inputType?: TypeDecl;
  /**
   * Schemas `schemas:` annotations name (`schema.<path>`, from `--schema <dir>`). Unset, such
   * annotations are ignored (as OPA without --schema); inline schema definitions always apply.
   */
  schemas?: SchemaSet;
  /** A capabilities file's features, future keywords and allowed hosts (`--capabilities`). */
  capabilities?: LanguageCapabilities;
}

export type { LanguageCapabilities } from './capabilities.js';

export type { SchemaSet } from './schema-env.js';

export interface CompiledQuery {
  body: Body;
  /** Vars of the query as the user wrote them, in order of first appearance (not wildcards). */
  outputVars: string[];
  namer: LocalNamer;
}

export class CompiledPolicy {
  constructor(
    readonly root: RuleNode,
    readonly modules: Module[],
  ) {}

  /** Rewrites and checks a query body against this policy. Throws RegoCompileError. */
  compileQuery(body: Body): CompiledQuery {
    const declared = checkQueryDeclarations(body, false);
    if (declared.length) throw new RegoCompileError(declared);
    const errors: RegoErrorDetail[] = [];
    const namer = new LocalNamer();
    const resolver = new Resolver(new Map(), new Set());
    const resolved = rewriteZeroArityBody(resolver.body(body), this.root);
    const scope = openScope(namer, new Map(), resolved, []);
    const renamed = renameBody(resolved, scope, namer);
    declareAll(scope);
    const ctx: SafetyCtx = { arityOf: (op) => arityOf(this.root, op), errors, original: namer.original };
    const { body: reordered } = reorderDeep(renamed, new Set(), new Set(), ctx);
    const ordered = hoistNegatedBody(reordered, { namer, unify: QUERY_UNIFY });
    checkCalls(ordered, this.root, errors);
    checkConstantArgsInBody(ordered, errors, this.root.builtins);
    if (this.root.inputType) checkQueryTypes(ordered, inputEnv(this.root.inputType), this.root, errors, namer.original);
    if (errors.length) throw new RegoCompileError(errors);
    const outputVars: string[] = [];
    for (const e of body) {
      const visit = (t: Term) =>
        forEachVarShallow(t, (n) => {
          if (!n.startsWith('$') && n !== 'input' && n !== 'data' && !outputVars.includes(n)) outputVars.push(n);
        });
      const t = e.terms;
      if (Array.isArray(t)) t.slice(1).forEach(visit);
      else if ((t as { type: string }).type === 'somedecl') {
        for (const sym of (t as { symbols: Term[] }).symbols) {
          if (sym.type === 'var') visit(sym);
          else if (sym.type === 'call') sym.value.slice(1).forEach(visit);
        }
      } else if ((t as { type: string }).type !== 'every') visit(t as Term);
    }
    return { body: ordered, outputVars: outputVars.filter((n) => scope.has(n)), namer };
  }
}

/** Inputs taken by a call's operator (so an extra argument is its output). */
export function arityOf(root: RuleNode, op: Term): number | undefined {
  if (op.type === 'ref' && op.value[0]?.type === 'var' && op.value[0].value === 'data') {
    const path: string[] = [];
    for (const t of op.value.slice(1)) {
      if (t.type !== 'string') return undefined;
      path.push(t.value);
    }
    const node = root.find(path);
    return node?.isFunction ? node.arity : undefined;
  }
  const name = refName(op);
  if (!name) return undefined;
  const b = declarationIn(root.builtins, name);
  if (!b || b.decl.variadic) return undefined;
  return b.decl.args?.length ?? 0;
}

let nextRuleId = 0;

function classify(r: Rule, pkg: string[]): { kind: RuleKind; path: string[]; suffix: Term[]; key?: Term; setLeaf: boolean } {
  const h = r.head;
  let ref = h.ref.slice();
  if (h.args?.length) return { kind: 'function', path: [...pkg, ...groundPrefix(ref).path], suffix: [], setLeaf: false };
  let setLeaf = false;
  let key: Term | undefined;
  if (h.value === undefined) {
    // partial set: `p contains x`, v0 `p[x] { }`
    setLeaf = true;
    key = h.key;
    const last = ref[ref.length - 1];
    if (key && ref.length > 1 && last && sameTerm(last, key)) ref = ref.slice(0, -1);
  } else if (h.key !== undefined) {
    const last = ref[ref.length - 1];
    if (!(ref.length > 1 && last && sameTerm(last, h.key))) ref = [...ref, h.key];
  }
  const g = groundPrefix(ref);
  const path = [...pkg, ...g.path];
  if (g.rest.length === 0) return { kind: setLeaf ? 'set' : 'complete', path, suffix: [], key, setLeaf };
  return { kind: 'general', path, suffix: g.rest, key, setLeaf };
}

function sameTerm(a: Term, b: Term): boolean {
  return a.type === b.type && JSON.stringify((a as { value?: unknown }).value) === JSON.stringify((b as { value?: unknown }).value);
}

function groundPrefix(ref: Term[]): { path: string[]; rest: Term[] } {
  const path: string[] = [];
  let i = 0;
  for (; i < ref.length; i++) {
    const t = ref[i]!;
    if (i === 0 && t.type === 'var') path.push(t.value);
    else if (t.type === 'string') path.push(t.value);
    else break;
  }
  return { path, rest: ref.slice(i) };
}

/** OPA stops after the first compiler stage that reports errors; so do we. */
function stage(errors: RegoErrorDetail[]): void {
  if (errors.length) throw new RegoCompileError(dedupe(errors));
}

export function compile(modules: Module[], opts: CompileOptions = {}): CompiledPolicy {
  const strict = !!opts.strict;
  const v1 = (m: Module) => strict || isV1Compatible(m);
  const caps = opts.capabilities;
  if (caps) stage(modules.flatMap((m) => checkLanguage(m, caps)));
  stage(modules.flatMap((m) => [...checkArgShadowing(m), ...(strict ? checkUnusedImports(m) : [])]));
  stage(modules.flatMap((m) => (v1(m) ? checkRootOverrides(m) : [])));
  stage(modules.flatMap((m) => (v1(m) ? checkDuplicateImports(m) : [])));
  stage(modules.flatMap((m) => m.rules.flatMap((r) => checkDeclarations(r, strict))));
  const errors: RegoErrorDetail[] = [];
  const root = new RuleNode([], undefined);
  root.builtins = opts.builtins;
  root.allowedBuiltins = opts.allowedBuiltins;
  root.inputType = opts.inputType;
  root.allowNet = opts.capabilities?.allowNet;
  // rule names per package, across modules
  const names = new Map<string, Set<string>>();
  for (const m of modules) {
    const key = packagePath(m).join('.');
    let set = names.get(key);
    if (!set) names.set(key, (set = new Set()));
    for (const r of m.rules) {
      const h = r.head.ref[0];
      if (h && h.type === 'var') set.add(h.value);
    }
  }
  const pending: { cr: CompiledRule; resolver: Resolver }[] = [];
  for (const m of modules) {
    const pkg = packagePath(m);
    // a package exists (as an empty object) even without rules
    let pn = root;
    for (const p of pkg) pn = pn.child(p);
    pn.markHasRules();
    const globals = buildGlobals(m, names.get(pkg.join('.'))!);
    for (const r of m.rules) {
      const resolver = new Resolver(globals, ruleLocals(r));
      const cr = toCompiled(r, m, pkg, resolver);
      addRule(root, cr);
      pending.push({ cr, resolver });
    }
  }
  checkConflicts(root, pending.map((p) => p.cr), modules, errors);
  stage(errors);
  rewriteMetadataCalls(pending.map((p) => p.cr), modules);
  for (const { cr } of pending) rewriteZeroArityRule(cr, root);
  for (const { cr } of pending) rewriteRule(cr, root, errors);
  if (errors.length === 0) {
    for (const { cr } of pending) for (let x: CompiledRule | undefined = cr; x; x = x.else) checkCalls(x.body, root, errors, x);
    const rules = pending.map((p) => p.cr);
    const scopes = new SchemaScopes(inputEnv(root.inputType), opts.schemas, modules, rules);
    if (scopes.active) for (const cr of rules) for (let x: CompiledRule | undefined = cr; x; x = x.else) checkRuleTypes(x, scopes.envFor(x, x !== cr, errors), root, errors);
    checkRecursion(root, errors);
  }
  stage(errors);
  for (const { cr } of pending) for (let x: CompiledRule | undefined = cr; x; x = x.else) checkConstantArgs(x, errors, root.builtins);
  stage(errors);
  stage(modules.flatMap((m) => (v1(m) ? checkDeprecatedBuiltins(m) : [])));
  return new CompiledPolicy(root, modules);
}

/** The global environment: `input`'s type from --schema <file>, if any. */
function inputEnv(type: TypeDecl | undefined): TypeEnv {
  return new TypeEnv(type ? [{ path: ['input'], type }] : []);
}

function dedupe(errors: RegoErrorDetail[]): RegoErrorDetail[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const k = `${e.code}|${e.message}|${e.location?.file}|${e.location?.row}|${e.location?.col}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function toCompiled(r: Rule, m: Module, pkg: string[], res: Resolver, parent?: CompiledRule): CompiledRule {
  const c = parent ? { kind: parent.kind, path: parent.path, suffix: parent.suffix, key: parent.key, setLeaf: parent.setLeaf } : classify(r, pkg);
  const h = r.head;
  const cr: CompiledRule = {
    id: nextRuleId++,
    kind: c.kind,
    path: c.path,
    suffix: c.suffix.map((t) => res.term(t)),
    key: c.key ? res.term(c.key) : undefined,
    value: h.value ? res.term(h.value) : undefined,
    setLeaf: c.setLeaf,
    args: parent ? parent.args : h.args?.length ? h.args.map((t) => res.term(t)) : undefined,
    body: res.body(r.body),
    isDefault: !!r.default,
    module: m,
    rule: r,
    location: r.location ?? h.location,
    namer: new LocalNamer(),
  };
  if (r.else) cr.else = toCompiled(r.else, m, pkg, res, cr);
  return cr;
}

function rewriteRule(cr: CompiledRule, root: RuleNode, errors: RegoErrorDetail[]): void {
  for (let x: CompiledRule | undefined = cr; x; x = x.else) {
    const namer = new LocalNamer();
    x.namer = namer;
    const argVars: string[] = [];
    for (const a of x.args ?? []) forEachVarShallow(a, (n) => argVars.push(n));
    const headTerms = [...x.suffix, ...(x.key ? [x.key] : []), ...(x.value ? [x.value] : [])];
    const scope: Scope = openScope(namer, new Map(), x.body, [...(x.args ?? []), ...headTerms], []);
    x.args = x.args?.map((t) => renameTerm(t, scope, namer));
    const body = renameBody(x.body, scope, namer);
    declareAll(scope);
    x.suffix = x.suffix.map((t) => renameTerm(t, scope, namer));
    if (x.key) x.key = renameTerm(x.key, scope, namer);
    if (x.value) x.value = renameTerm(x.value, scope, namer);
    const bound = new Set<string>();
    for (const a of x.args ?? []) forEachVarShallow(a, (n) => bound.add(n));
    const names = new Set<string>(scope.values());
    let done = orderRule(body, { suffix: x.suffix, key: x.key, value: x.value }, bound, names, root, namer, x.rule.head);
    if (done.headErrors && !done.bodyErrors) {
      // OPA moves head terms that need evaluation into the body (`v = input.a[f]`) before
      // its safety check, so a ref there may bind what the head needs (`agg[f] := input.a[f]`).
      // Done only when the head is unsafe otherwise: for a safe head it changes nothing.
      const moved: Body = [];
      const move = (t: Term): Term => {
        if (!needsEval(t)) return t;
        const v: Term = { type: 'var', value: namer.fresh('__local'), location: t.location };
        names.add(v.value);
        moved.push({ index: 0, generated: true, terms: [{ type: 'ref', value: [{ type: 'var', value: 'eq' }] }, v, t], location: t.location });
        return v;
      };
      const h2: Head = { suffix: x.suffix.map(move), key: x.key && move(x.key), value: x.value && move(x.value) };
      if (moved.length) {
        const again = orderRule([...body, ...moved], h2, bound, names, root, namer, x.rule.head);
        if (!again.errors.length) done = again;
      }
    }
    errors.push(...done.errors);
    x.body = done.body;
    x.suffix = done.head.suffix;
    x.key = done.head.key;
    x.value = done.head.value;
    if (!futureNot(x.module)) {
      // after the safety check, as OPA: what moves out of a `not` was checked inside it
      const nc = { namer, unify: MODULE_UNIFY };
      x.body = hoistNegatedBody(x.body, nc);
      x.suffix = x.suffix.map((t) => hoistNegatedTerm(t, nc));
      if (x.key) x.key = hoistNegatedTerm(x.key, nc);
      if (x.value) x.value = hoistNegatedTerm(x.value, nc);
    }
  }
}

interface Head {
  suffix: Term[];
  key?: Term;
  value?: Term;
}

/** Orders a rule body for safety and checks its head; errors are returned, not reported. */
function orderRule(body: Body, head: Head, bound: Set<string>, names: Set<string>, root: RuleNode, namer: LocalNamer, at: Rule['head']) {
  const errors: RegoErrorDetail[] = [];
  const ctx: SafetyCtx = { arityOf: (op) => arityOf(root, op), errors, original: namer.original };
  const r = reorderDeep(body, bound, names, ctx);
  // head terms may hold comprehensions (at any depth): their bodies are reordered too,
  // and the reordered terms are what the evaluator plans
  const headNames = new Set([...names, ...r.bound]);
  const nested = (t: Term) => nestedTerm(t, headNames, ctx);
  const out: Head = { suffix: head.suffix.map(nested), key: head.key && nested(head.key), value: head.value && nested(head.value) };
  const bodyErrors = errors.length;
  checkHead([...out.suffix, ...(out.key ? [out.key] : []), ...(out.value ? [out.value] : [])], r.bound, ctx, at);
  return { body: r.body, head: out, errors, bodyErrors, headErrors: errors.length - bodyErrors };
}

/** OPA's requiresEval: the term holds a ref or a comprehension. */
function needsEval(t: Term): boolean {
  if (t.type === 'ref' || t.type === 'call' || isClosure(t)) return true;
  return forEachChildTerm(t, needsEval);
}
