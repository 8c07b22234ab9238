// Rule conflicts, as OPA's checkRuleConflicts reports them (rego_type_error):
// - a rule whose whole ref is ground may have no other rules inside its extent
//   ("rule data.a.b conflicts with [data.a.b.c]"),
// - rules of one path must agree on kind (single vs multi value), arity, and not mix a
//   complete rule with partial/ref-head rules ("conflicting rules data.a.p found"),
// - at most one default rule per path ("multiple default rules data.a.p found at ..."),
// - a package may not live inside a rule ("package a.b conflicts with rule b defined at ...").

import type { Location, Module, RegoErrorDetail, Term } from '../lang/ast.js';
import { compileError } from './errors.js';
import { refString } from './ref-string.js';
import { packagePath } from './resolve.js';
import type { CompiledRule, RuleNode } from './tree.js';

const s = (value: string): Term => ({ type: 'string', value });
const dataRef = (path: string[]): string => refString([{ type: 'var', value: 'data' }, ...path.map(s)]);

/** The rule's full ref with its variables under the names the user wrote. */
function ruleRef(r: CompiledRule): string {
  const orig = (n: string) => r.namer.original.get(n) ?? n.replace(/#\d+$/, '');
  return refString([{ type: 'var', value: 'data' }, ...r.path.map(s), ...r.suffix], orig);
}

const isGround = (r: CompiledRule) => r.kind !== 'general';

function rulesAt(node: RuleNode, defaults: Map<RuleNode, CompiledRule[]>): CompiledRule[] {
  const all = [...node.complete, ...node.sets, ...node.general, ...node.funcs, ...(defaults.get(node) ?? [])];
  return all.sort((a, b) => a.id - b.id);
}

function locString(l: Location | undefined): string {
  if (!l) return '';
  return l.file ? `${l.file}:${l.row}` : `${l.row}:${l.col}`;
}

export function checkConflicts(root: RuleNode, allRules: CompiledRule[], modules: Module[], errors: RegoErrorDetail[]): void {
  // RuleNode keeps one default per path; OPA reports every extra one.
  const defaults = new Map<RuleNode, CompiledRule[]>();
  for (const r of allRules) {
    if (!r.isDefault) continue;
    const node = root.find(r.path);
    if (!node) continue;
    defaults.set(node, [...(defaults.get(node) ?? []), r]);
  }
  visit(root, defaults, errors);
  checkPackages(root, modules, errors);
}

function visit(node: RuleNode, defaults: Map<RuleNode, CompiledRule[]>, errors: RegoErrorDetail[]): void {
  const rules = rulesAt(node, defaults);
  if (rules.length > 0) {
    const name = ruleRef(rules[rules.length - 1]!);
    const kinds = new Set(rules.map((r) => (r.kind === 'set' || (r.kind === 'general' && r.setLeaf) ? 'multi' : 'single')));
    const arities = new Set(rules.map((r) => r.args?.length ?? 0));
    const complete = rules.filter((r) => isGround(r) && r.kind !== 'set').length;
    const partial = rules.length - complete;
    const inner = rules.some(isGround) ? descendants(node) : [];
    if (inner.length > 0) {
      errors.push(compileError('rego_type_error', `rule ${name} conflicts with [${inner.join(' ')}]`, rules[0]!.location));
      return;
    }
    if (kinds.size > 1 || arities.size > 1 || (complete >= 1 && partial >= 1)) {
      errors.push(compileError('rego_type_error', `conflicting rules ${name} found`, rules[0]!.location));
    } else {
      const ds = defaults.get(node) ?? [];
      if (ds.length > 1)
        errors.push(
          compileError('rego_type_error', `multiple default rules ${dataRef(node.path)} found at ${ds.map((d) => locString(d.location)).join(', ')}`, ds[0]!.module.package.location),
        );
    }
    // OPA does not look below a node holding rules with variables in their refs.
    if (rules.some((r) => !isGround(r))) return;
  }
  for (const c of node.children.values()) visit(c, defaults, errors);
}

/** Refs of the rules below a node, keeping only the shortest prefixes, sorted. */
function descendants(node: RuleNode): string[] {
  const out: { path: string[]; text: string }[] = [];
  const walk = (n: RuleNode) => {
    const rs = [...n.complete, ...n.sets, ...n.general, ...n.funcs, ...(n.default ? [n.default] : [])];
    for (const r of rs) out.push({ path: [...r.path, ...r.suffix.map((t) => JSON.stringify(t))], text: ruleRef(r) });
    for (const c of n.children.values()) walk(c);
  };
  for (const c of node.children.values()) walk(c);
  const kept = out.filter((a) => !out.some((b) => b !== a && b.path.length < a.path.length && b.path.every((p, i) => a.path[i] === p)));
  return [...new Set(kept.map((k) => k.text))].sort();
}

/** A rule at the path of another module's package. */
function checkPackages(root: RuleNode, modules: Module[], errors: RegoErrorDetail[]): void {
  const pkgs = new Map<string, Module[]>();
  for (const m of modules) {
    const k = packagePath(m).join('\u0000');
    pkgs.set(k, [...(pkgs.get(k) ?? []), m]);
  }
  for (const m of modules) {
    const pkg = packagePath(m);
    for (const r of m.rules) {
      const rel: string[] = [];
      let ground = true;
      for (const [i, t] of r.head.ref.entries()) {
        if (i === 0 && t.type === 'var') rel.push(t.value);
        else if (t.type === 'string') rel.push(t.value);
        else ground = false;
      }
      if (!ground || (r.head.key !== undefined && r.head.value !== undefined)) continue;
      for (const other of pkgs.get([...pkg, ...rel].join('\u0000')) ?? []) {
        if (other === m) continue;
        const pkgText = `package ${packagePath(other).join('.')}`;
        errors.push(compileError('rego_type_error', `${pkgText} conflicts with rule ${refString(r.head.ref)} defined at ${locString(r.location)}`, m.package.location));
      }
    }
  }
  void root;
}
