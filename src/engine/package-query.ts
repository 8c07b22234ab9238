// A query read inside a package, as OPA's query compiler reads it with a package and imports
// in its context (the REPL's current module): a name the package's rules define (`allow`)
// stands for data.<package>.allow, an import's name for what it imports; names the query
// declares itself (`x := ...`, `some x`) stay its own.

import type { Body, Import, Term } from '../lang/ast.js';
import type { CompiledPolicy, CompiledRule, RuleNode } from '../compiler/index.js';
import { buildGlobals, Resolver } from '../compiler/resolve.js';
import { QueryPlan } from '../eval/query.js';
import type { RegoVersion } from '../lang/index.js';
import { planQuery } from './queries.js';

export interface PackageContext {
  /** The package path under data (["repl"] for `package repl`). */
  path: string[];
  imports: Import[];
}

function* rulesBelow(node: RuleNode): Generator<CompiledRule> {
  yield* node.allRules();
  for (const c of node.children.values()) yield* rulesBelow(c);
}

/** Names of the rules modules of this very package define (sub-packages excluded). */
export function packageRuleNames(policy: CompiledPolicy, path: string[]): Set<string> {
  const names = new Set<string>();
  const node = policy.root.find(path);
  if (!node) return names;
  for (const r of rulesBelow(node)) {
    const pkg = r.module.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
    if (pkg.length === path.length && pkg.every((s, i) => s === path[i]) && r.path.length > path.length) names.add(r.path[path.length]!);
  }
  return names;
}

/** Vars the query declares at its top level (`x := ...`, `some x`, `some x in xs`). */
function declaredVars(body: Body): Set<string> {
  const out = new Set<string>();
  const addVars = (t: Term): void => {
    if (t.type === 'var') out.add(t.value);
    else if (t.type === 'array' || t.type === 'set') t.value.forEach(addVars);
    else if (t.type === 'object') t.value.forEach(([, v]) => addVars(v));
  };
  for (const e of body) {
    const t = e.terms;
    if (Array.isArray(t)) {
      const op = t[0];
      const isAssign = op?.type === 'ref' && op.value.length === 1 && op.value[0]!.type === 'var' && op.value[0]!.value === 'assign';
      if (isAssign && t[1]) addVars(t[1]);
    } else if ((t as { type: string }).type === 'somedecl') {
      for (const s of (t as { symbols: Term[] }).symbols) {
        if (s.type === 'var') out.add(s.value);
        else if (s.type === 'call') s.value.slice(1, -1).forEach(addVars);
      }
    }
  }
  return out;
}

/** The query with package names and imports resolved to the refs they stand for. */
export function resolveInPackage(policy: CompiledPolicy, body: Body, ctx: PackageContext): Body {
  const pkg = { path: [{ type: 'var' as const, value: 'data' }, ...ctx.path.map((value) => ({ type: 'string' as const, value }))] };
  const module = { package: pkg, imports: ctx.imports, rules: [], annotations: [], comments: [], regoVersion: 'v1' as const };
  const globals = buildGlobals(module, packageRuleNames(policy, ctx.path));
  return new Resolver(globals, declaredVars(body)).body(body);
}

/** planQuery for a query read inside a package (see resolveInPackage). */
export function planQueryInPackage(policy: CompiledPolicy, body: Body, ctx: PackageContext, regoVersion: RegoVersion, metrics?: Record<string, number>): QueryPlan {
  return planQuery(policy, resolveInPackage(policy, body, ctx), regoVersion, metrics);
}
