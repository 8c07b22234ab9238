// Small helpers over AST terms used by every compiler pass.

import type { Body, Expr, Location, RefTerm, SomeDecl, Every, Term } from '../lang/ast.js';
import { ARGS_ONLY, everyChildTerm, forEachChildTerm, isCollectionTerm, mapChildTerms } from '../lang/visit.js';

export const v = (name: string, location?: Location): Term => ({ type: 'var', value: name, location });
export const s = (value: string, location?: Location): Term => ({ type: 'string', value, location });
export const ref = (terms: Term[], location?: Location): RefTerm => ({ type: 'ref', value: terms, location });

export function isVar(t: Term | undefined, name?: string): t is Term & { type: 'var'; value: string } {
  return !!t && t.type === 'var' && (name === undefined || t.value === name);
}

export function isWildcard(name: string): boolean {
  return name.startsWith('$');
}

/** Name of an operator ref made of a var and strings (`array.concat`), or undefined. */
export function refName(t: Term): string | undefined {
  if (t.type === 'var') return t.value;
  if (t.type !== 'ref') return undefined;
  const head = t.value[0];
  if (!head || head.type !== 'var') return undefined;
  let out = head.value;
  for (let i = 1; i < t.value.length; i++) {
    const e = t.value[i]!;
    if (e.type !== 'string') return undefined;
    out += '.' + e.value;
  }
  return out;
}

export function isSome(t: Expr['terms']): t is SomeDecl {
  return !Array.isArray(t) && (t as SomeDecl).type === 'somedecl';
}
export function isEvery(t: Expr['terms']): t is Every {
  return !Array.isArray(t) && (t as Every).type === 'every';
}
export function isCall(t: Expr['terms']): t is Term[] {
  return Array.isArray(t);
}

/** Whether a term contains no variables at all (a constant). Refs and calls are never constant. */
export function isConstant(t: Term): boolean {
  if (t.type === 'null' || t.type === 'boolean' || t.type === 'number' || t.type === 'string') return true;
  return isCollectionTerm(t) && everyChildTerm(t, isConstant);
}

/** Calls fn on every var term that is not inside a nested body (comprehension, every). */
export function forEachVarShallow(t: Term, fn: (name: string, t: Term) => void): void {
  if (t.type === 'var') fn(t.value, t);
  else forEachChildTerm(t, (x) => forEachVarShallow(x, fn), ARGS_ONLY);
}

/** Every var of a term, including those inside comprehension bodies. */
export function forEachVarDeep(t: Term, fn: (name: string) => void): void {
  if (t.type === 'var') fn(t.value);
  else
    forEachChildTerm(
      t,
      (x) => forEachVarDeep(x, fn),
      ARGS_ONLY,
      (b) => bodyVarsDeep(b, fn),
    );
}

export function exprTermsList(e: Expr): Term[] {
  const t = e.terms;
  if (Array.isArray(t)) return t.slice(1);
  if (isSome(t)) return t.symbols;
  if (isEvery(t)) return [...(t.key ? [t.key] : []), t.value, t.domain];
  return [t as Term];
}

export function bodyVarsDeep(body: Body, fn: (name: string) => void): void {
  for (const e of body) {
    for (const t of exprTermsList(e)) forEachVarDeep(t, fn);
    if (isEvery(e.terms)) bodyVarsDeep(e.terms.body, fn);
    for (const w of e.with ?? []) {
      forEachVarDeep(w.value, fn);
    }
  }
}

/** Maps a term's sub-terms bottom-up (a pure rewrite: returns a new term when anything changed). */
export function mapTerm(t: Term, fn: (t: Term) => Term): Term {
  return fn(mapChildTerms(t, (x) => mapTerm(x, fn)));
}

export function locOf(x: { location?: Location } | undefined): Location | undefined {
  return x?.location;
}

/**
 * Vars a pattern binds when unified with a value, as OPA counts the vars a `some ... in`
 * declares: vars themselves, in arrays element by element, in objects the values. A var
 * inside a ref (`x.a`), a call or a set is read, not declared.
 */
export function forEachPatternVar(t: Term, fn: (name: string) => void): void {
  if (t.type === 'var') fn(t.value);
  else if (t.type === 'array') for (const x of t.value) forEachPatternVar(x, fn);
  else if (t.type === 'object') for (const [, x] of t.value) forEachPatternVar(x, fn);
}
