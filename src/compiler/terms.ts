// Small helpers over AST terms used by every compiler pass.

import type { Body, Expr, Location, RefTerm, SomeDecl, Every, Term } from '../lang/ast.js';

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
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true;
    case 'array':
    case 'set':
      return t.value.every(isConstant);
    case 'object':
      return t.value.every(([k, x]) => isConstant(k) && isConstant(x));
    default:
      return false;
  }
}

/** Calls fn on every var term that is not inside a nested body (comprehension, every). */
export function forEachVarShallow(t: Term, fn: (name: string, t: Term) => void): void {
  switch (t.type) {
    case 'var':
      fn(t.value, t);
      return;
    case 'call':
      for (let i = 1; i < t.value.length; i++) forEachVarShallow(t.value[i]!, fn);
      return;
    case 'ref':
    case 'array':
    case 'set':
      for (const x of t.value) forEachVarShallow(x, fn);
      return;
    case 'object':
      for (const [k, x] of t.value) {
        forEachVarShallow(k, fn);
        forEachVarShallow(x, fn);
      }
      return;
    default:
      return;
  }
}

/** Every var of a term, including those inside comprehension bodies. */
export function forEachVarDeep(t: Term, fn: (name: string) => void): void {
  switch (t.type) {
    case 'var':
      fn(t.value);
      return;
    case 'call':
      for (let i = 1; i < t.value.length; i++) forEachVarDeep(t.value[i]!, fn);
      return;
    case 'ref':
    case 'array':
    case 'set':
      for (const x of t.value) forEachVarDeep(x, fn);
      return;
    case 'object':
      for (const [k, x] of t.value) {
        forEachVarDeep(k, fn);
        forEachVarDeep(x, fn);
      }
      return;
    case 'arraycomprehension':
    case 'setcomprehension':
      forEachVarDeep(t.value.term, fn);
      bodyVarsDeep(t.value.body, fn);
      return;
    case 'objectcomprehension':
      forEachVarDeep(t.value.key, fn);
      forEachVarDeep(t.value.value, fn);
      bodyVarsDeep(t.value.body, fn);
      return;
    default:
      return;
  }
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
  let out: Term;
  switch (t.type) {
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      out = { ...t, value: t.value.map((x) => mapTerm(x, fn)) } as Term;
      break;
    case 'object':
      out = { ...t, value: t.value.map(([k, x]) => [mapTerm(k, fn), mapTerm(x, fn)] as [Term, Term]) };
      break;
    default:
      out = t;
  }
  return fn(out);
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
