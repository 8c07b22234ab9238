// Residual queries -> one condition tree in negation normal form, the common ground of the
// SQL and UCAST targets. Only what a WHERE clause can say exactly is accepted: comparisons
// of a column (`input.<table>.<column>`) with a literal or (for = and !=) another column,
// `in` over a literal collection, startswith/endswith/contains with a literal, a bare column
// (true unless false), and `not` over any of these. Everything else is a pe_fragment_error
// naming the construct and its place — never a WHERE clause that means something else.

import type { Body, Expr, Location, Term } from '../../lang/ast.js';
import { refName } from '../../compiler/terms.js';

export interface Field {
  table: string;
  column: string;
}

export type Lit = { type: 'null' } | { type: 'boolean'; value: boolean } | { type: 'number'; value: string } | { type: 'string'; value: string };

export type Cmp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

export type Leaf =
  | { kind: 'cmp'; op: Cmp; field: Field; value: Lit }
  | { kind: 'cols'; op: 'eq' | 'ne'; a: Field; b: Field; location?: Location }
  | { kind: 'in'; negated: boolean; field: Field; values: Lit[] }
  | { kind: 'like'; fn: 'startswith' | 'endswith' | 'contains'; negated: boolean; field: Field; value: string; location?: Location };

export type Cond = Leaf | { kind: 'and' | 'or'; args: Cond[] } | { kind: 'true' } | { kind: 'false' };

export interface FragmentError {
  code: 'pe_fragment_error';
  message: string;
  location?: { file: string; row: number; col: number };
}

export class FilterError extends Error {
  constructor(readonly errors: FragmentError[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}

const CMP: Record<string, Cmp> = { equal: 'eq', eq: 'eq', neq: 'ne', lt: 'lt', lte: 'lte', gt: 'gt', gte: 'gte' };
const FLIP: Record<Cmp, Cmp> = { eq: 'eq', ne: 'ne', lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte' };
/** In Rego's total order of values, not (a < b) is exactly a >= b. */
const NEGATE: Record<Cmp, Cmp> = { eq: 'ne', ne: 'eq', lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' };

export function fragment(message: string, loc?: Location): FragmentError {
  const e: FragmentError = { code: 'pe_fragment_error', message };
  if (loc) e.location = { file: loc.file, row: loc.row, col: loc.col };
  return e;
}

function field(t: Term): Field | undefined | 'deep' {
  if (t.type !== 'ref') return undefined;
  const [head, table, column, ...rest] = t.value;
  if (head?.type !== 'var' || head.value !== 'input') return undefined;
  if (table?.type !== 'string' || column?.type !== 'string') return 'deep';
  if (rest.length) return 'deep';
  return { table: table.value, column: column.value };
}

function literal(t: Term): Lit | undefined {
  switch (t.type) {
    case 'null':
      return { type: 'null' };
    case 'boolean':
      return { type: 'boolean', value: t.value };
    case 'number':
      return { type: 'number', value: t.value };
    case 'string':
      return { type: 'string', value: t.value };
    default:
      return undefined;
  }
}

function describe(t: Term): string {
  if (t.type === 'ref') {
    const h = t.value[0];
    if (h?.type === 'var' && h.value === 'data') return 'a reference to data (support rules and data are not available to the target)';
    if (h?.type === 'var' && h.value === 'input') return 'a reference deeper than <table>.<column>';
    return 'a reference to a variable';
  }
  if (t.type === 'var') return 'a variable';
  if (t.type === 'call') return 'a nested call';
  if (t.type.endsWith('comprehension')) return 'a comprehension';
  return `a ${t.type}`;
}

/** One residual expression as a condition (negated ones pushed down to their leaves). */
function expression(e: Expr, errors: FragmentError[]): Cond | undefined {
  const loc = e.location;
  if (e.with?.length) return void errors.push(fragment('`with` is not supported by data filtering', loc));
  const t = e.terms;
  if (!Array.isArray(t)) {
    const x = t as Term | { type: string };
    if (x.type === 'every') return void errors.push(fragment('`every` is not supported by data filtering', loc));
    if (x.type === 'somedecl') return void errors.push(fragment('`some` is not supported by data filtering', loc));
    const f = field(x as Term);
    if (f === undefined || f === 'deep') return void errors.push(fragment(`${describe(x as Term)} is not supported by data filtering`, loc));
    // a bare column holds unless it is false (null is truthy in Rego)
    return { kind: 'cmp', op: e.negated ? 'eq' : 'ne', field: f, value: { type: 'boolean', value: false } };
  }
  const name = refName(t[0]!) ?? '';
  const args = t.slice(1);
  const bad = (a: Term) => errors.push(fragment(`${describe(a)} is not supported by data filtering (in ${name})`, a.location ?? loc));
  if (CMP[name] && args.length === 2) {
    const [a, b] = args as [Term, Term];
    const fa = field(a);
    const fb = field(b);
    if (fa === 'deep') return void bad(a);
    if (fb === 'deep') return void bad(b);
    if (fa && fb) {
      const op = e.negated ? NEGATE[CMP[name]!] : CMP[name]!;
      if (op !== 'eq' && op !== 'ne') return void errors.push(fragment(`comparing two columns with ${name} is not supported by data filtering`, loc));
      return { kind: 'cols', op, a: fa, b: fb, location: loc };
    }
    const f = fa ?? fb;
    const lit = literal(fa ? b : a);
    if (!f) return void errors.push(fragment(`${name} without a column is not supported by data filtering`, loc));
    if (!lit) return void bad(fa ? b : a);
    let op = fa ? CMP[name]! : FLIP[CMP[name]!];
    if (e.negated) op = NEGATE[op];
    return { kind: 'cmp', op, field: f, value: lit };
  }
  if (name === 'internal.member_2' && args.length === 2) {
    const [a, coll] = args as [Term, Term];
    const f = field(a);
    if (f === undefined || f === 'deep') return void bad(a);
    if (coll.type !== 'array' && coll.type !== 'set') return void bad(coll);
    const values: Lit[] = [];
    for (const x of coll.value) {
      const l = literal(x);
      if (!l) return void bad(x);
      values.push(l);
    }
    return { kind: 'in', negated: !!e.negated, field: f, values };
  }
  if ((name === 'startswith' || name === 'endswith' || name === 'contains') && args.length === 2) {
    const [a, s] = args as [Term, Term];
    const f = field(a);
    if (f === undefined || f === 'deep') return void bad(a);
    if (s.type !== 'string') return void bad(s);
    return { kind: 'like', fn: name, negated: !!e.negated, field: f, value: s.value, location: loc };
  }
  if (name.startsWith('data.')) return void errors.push(fragment(`a call of ${name} (a support rule or function) is not supported by data filtering`, loc));
  return void errors.push(fragment(`built-in ${name}${args.length ? `/${args.length}` : ''} is not supported by data filtering`, loc));
}

/**
 * `__p0__ = input.<table>.<column>` with the var used nowhere else: the residual keeps that
 * the column is defined (a ref the compiler moved out of a `not`); a row's column always is
 * (NULL is Rego's null), so it says nothing to the target.
 */
function columnDefined(e: Expr, q: Body): boolean {
  const t = e.terms;
  if (e.negated || e.with?.length || !Array.isArray(t) || t.length !== 3 || refName(t[0]!) !== 'eq') return false;
  const [a, b] = [t[1]!, t[2]!];
  const v = a.type === 'var' ? a : b.type === 'var' ? b : undefined;
  const f = v === a ? field(b) : field(a);
  if (!v || !f || f === 'deep') return false;
  let uses = 0;
  const count = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(count);
    else if (x && typeof x === 'object') {
      const o = x as { type?: string; value?: unknown };
      if (o.type === 'var' && o.value === (v as { value: string }).value) uses++;
      else for (const [k, y] of Object.entries(o)) if (k !== 'location') count(y);
    }
  };
  count(q);
  return uses === 1;
}

/**
 * The residual as one condition: an alternative of conjunctions. Support modules cannot be
 * expressed; each is an error.
 */
export function toCondition(queries: Body[], supportCount: number): Cond {
  const errors: FragmentError[] = [];
  if (supportCount) errors.push(fragment(`support rules (${supportCount} module${supportCount === 1 ? '' : 's'}) are not supported by data filtering: avoid else, default-less helpers read whole, and disableInlining in filter rules`));
  const alts: Cond[] = [];
  for (const q of queries) {
    const conj: Cond[] = [];
    for (const e of q) {
      if (columnDefined(e, q)) continue;
      const c = expression(e, errors);
      if (c) conj.push(c);
    }
    alts.push(conj.length === 0 ? { kind: 'true' } : conj.length === 1 ? conj[0]! : { kind: 'and', args: conj });
  }
  if (errors.length) throw new FilterError(errors);
  if (!alts.length) return { kind: 'false' };
  if (alts.some((a) => a.kind === 'true')) return { kind: 'true' };
  return alts.length === 1 ? alts[0]! : { kind: 'or', args: alts };
}
