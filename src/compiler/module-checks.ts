// Module-level checks OPA runs before rewriting: root documents (`input`, `data`) must not
// be shadowed by rules, args or variables; imports must not shadow each other; in strict
// mode every import must be used; deprecated built-ins are rejected in v1 modules (and
// everywhere in strict mode). Messages are OPA's, so users can search them.

import type { Body, Import, Module, RegoErrorDetail, Rule, Term } from '../lang/ast.js';
import { getDeclaration } from './builtins/index.js';
import { compileError } from './errors.js';
import { ruleLocals } from './resolve.js';
import { refName } from './terms.js';
import { refString } from './ref-string.js';
import { walkBody, walkTerm } from './walk.js';

const ROOTS = new Set(['input', 'data']);

/** A v1 module, or a v0 module that imports rego.v1 (OPA's regoV1Compatible). */
export function isV1Compatible(m: Module): boolean {
  return m.regoVersion === 'v1' || m.imports.some((i) => refName(i.path) === 'rego.v1');
}

/** `args must not shadow input` — OPA checks this for every module while resolving refs. */
export function checkArgShadowing(m: Module): RegoErrorDetail[] {
  const errors: RegoErrorDetail[] = [];
  for (const r of rulesOf(m)) {
    const bad = (r.head.args ?? []).find((a) => rootName(a) !== undefined);
    if (bad) errors.push(compileError('rego_compile_error', `args must not shadow ${rootName(bad)} (use a different variable name)`, r.location ?? r.head.location));
  }
  return errors;
}

/** Rules and `:=` targets named input/data (v1 modules and strict mode). */
export function checkRootOverrides(m: Module): RegoErrorDetail[] {
  const errors: RegoErrorDetail[] = [];
  for (const r of rulesOf(m)) {
    const head = r.head.ref[0];
    if (head?.type === 'var' && ROOTS.has(head.value))
      errors.push(compileError('rego_compile_error', `rules must not shadow ${head.value} (use a different rule name)`, r.location ?? r.head.location));
  }
  for (const r of rulesOf(m))
    forEachExpr(r.body, (e) => {
      const t = e.terms;
      if (!Array.isArray(t) || t.length !== 3 || refName(t[0]!) !== 'assign') return;
      const name = rootName(t[1]!);
      if (name) errors.push(compileError('rego_compile_error', `variables must not shadow ${name} (use a different variable name)`, e.location));
    });
  return errors;
}

/** Two imports binding the same name (v1 modules and strict mode). */
export function checkDuplicateImports(m: Module): RegoErrorDetail[] {
  const errors: RegoErrorDetail[] = [];
  const seen = new Map<string, Import>();
  for (const imp of m.imports) {
    const name = importName(imp);
    const prev = seen.get(name);
    if (prev) errors.push(compileError('rego_compile_error', `import must not shadow ${importString(prev)}`, imp.location));
    else seen.set(name, imp);
  }
  return errors;
}

/** Strict mode: an import no rule refers to. */
export function checkUnusedImports(m: Module): RegoErrorDetail[] {
  const errors: RegoErrorDetail[] = [];
  for (const imp of m.imports) {
    const head = imp.path.value[0];
    if (head?.type === 'var' && (head.value === 'future' || head.value === 'rego')) continue;
    const name = importName(imp);
    if (!rulesOf(m).some((r) => usesName(r, name))) errors.push(compileError('rego_compile_error', `${importString(imp)} unused`, imp.location));
  }
  return errors;
}

/** Calls to deprecated built-ins (any, all, cast_*, re_match, net.cidr_overlap, set_diff). */
export function checkDeprecatedBuiltins(m: Module): RegoErrorDetail[] {
  const errors: RegoErrorDetail[] = [];
  const visit = {
    call(op: Term, _args: Term[], at: { location?: Term['location'] }) {
      const name = refName(op);
      if (name && getDeclaration(name)?.deprecated)
        errors.push(compileError('rego_type_error', `deprecated built-in function calls in expression: ${name}`, 'type' in at ? op.location : at.location));
    },
  };
  for (const r of rulesOf(m)) {
    walkBody(r.body, visit);
    for (const t of headTerms(r)) walkTerm(t, visit);
  }
  return errors;
}

function rootName(t: Term): string | undefined {
  if (t.type === 'var' && ROOTS.has(t.value)) return t.value;
  if (t.type === 'ref' && t.value.length === 1 && t.value[0]!.type === 'var' && ROOTS.has(t.value[0]!.value)) return t.value[0]!.value;
  return undefined;
}

function rulesOf(m: Module): Rule[] {
  const out: Rule[] = [];
  for (const r of m.rules) for (let x: Rule | undefined = r; x; x = x.else) out.push(x);
  return out;
}

function headTerms(r: Rule): Term[] {
  return [...r.head.ref.slice(1), ...(r.head.args ?? []), ...(r.head.key ? [r.head.key] : []), ...(r.head.value ? [r.head.value] : [])];
}

function forEachExpr(body: Body, f: (e: Body[number]) => void): void {
  for (const e of body) {
    f(e);
    walkBody([{ ...e, with: undefined }], {
      term(t) {
        if (t.type === 'arraycomprehension' || t.type === 'setcomprehension' || t.type === 'objectcomprehension') forEachExpr(t.value.body, f);
      },
    });
    const t = e.terms;
    if (!Array.isArray(t) && (t as { type: string }).type === 'every') forEachExpr((t as { body: Body }).body, f);
  }
}

/** The name an import binds: its alias, or the last element of its path. */
export function importName(imp: Import): string {
  if (imp.alias) return imp.alias;
  const last = imp.path.value[imp.path.value.length - 1]!;
  return last.type === 'string' || last.type === 'var' ? last.value : '';
}

export function importString(imp: Import): string {
  return `import ${refString(imp.path.value)}${imp.alias ? ` as ${imp.alias}` : ''}`;
}

function usesName(r: Rule, name: string): boolean {
  if (ruleLocals(r).has(name)) return false;
  let found = false;
  const visit = {
    term(t: Term) {
      if (t.type === 'var' && t.value === name) found = true;
    },
    // A call's operator (`lib.f(1)`) is a use of the import too.
    call(op: Term) {
      walkTerm(op, visit);
    },
  };
  walkBody(r.body, visit);
  // So is a `with` target (`with lib.f as mock`), which the body walk does not visit.
  forEachExpr(r.body, (e) => {
    for (const w of e.with ?? []) walkTerm(w.target, visit);
  });
  for (const t of headTerms(r)) walkTerm(t, visit);
  return found;
}
