// Conditions -> a WHERE clause, per dialect. SQL's NULL is three-valued while a row's
// value null in Rego is an ordinary value (equal to null, smaller than every other value,
// and "true" as a bare expression), so each leaf is written to hold exactly when the Rego
// expression holds for that row: `!=`, `<`, `<=`, `not in` and negated string tests also
// hold on NULL. Columns are compared case-sensitively as Rego compares strings (MySQL: BINARY;
// SQLite: substr/instr rather than its case-insensitive LIKE).

import type { Cond, Field, Leaf, Lit } from './conditions.js';
import type { SQLDialect } from './targets.js';

/** Per table: `$self` renames the table, other keys rename its columns. */
export type TableMappings = Record<string, Record<string, string>>;

const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

function ident(name: string, d: SQLDialect): string {
  if (PLAIN.test(name)) return name;
  if (d === 'mysql') return '`' + name.replace(/`/g, '``') + '`';
  if (d === 'sqlserver') return '[' + name.replace(/]/g, ']]') + ']';
  return '"' + name.replace(/"/g, '""') + '"';
}

function column(f: Field, d: SQLDialect, m: TableMappings | undefined): string {
  const t = m?.[f.table];
  return `${ident(t?.['$self'] ?? f.table, d)}.${ident(t?.[f.column] ?? f.column, d)}`;
}

function str(s: string, d: SQLDialect): string {
  let body = s.replace(/'/g, "''");
  if (d === 'mysql') body = body.replace(/\\/g, '\\\\');
  return (d === 'sqlserver' ? "N'" : "'") + body + "'";
}

function lit(v: Lit, d: SQLDialect): string {
  switch (v.type) {
    case 'null':
      return 'NULL';
    case 'boolean':
      return d === 'postgresql' || d === 'mysql' ? (v.value ? 'TRUE' : 'FALSE') : v.value ? '1' : '0';
    case 'number':
      return v.value;
    case 'string':
      return str(v.value, d);
  }
}

/** MySQL compares strings by collation (often case-insensitive): BINARY makes it exact. */
function lhs(col: string, v: Lit | undefined, d: SQLDialect): string {
  return d === 'mysql' && v?.type === 'string' ? `BINARY ${col}` : col;
}

const SQL_OP = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
const FALSE = '1 = 0';
const TRUE = '1 = 1';

/** A LIKE pattern matching the literal `s` where the test needs it: wildcards escaped. */
function likePattern(s: string, fn: 'startswith' | 'endswith' | 'contains', d: SQLDialect): string {
  // SQL Server escapes with brackets ([%], [_], [[]); the others with ESCAPE '!'
  const esc = d === 'sqlserver' ? s.replace(/[%_[]/g, (c) => `[${c}]`) : s.replace(/[!%_]/g, (c) => '!' + c);
  const pat = fn === 'startswith' ? `${esc}%` : fn === 'endswith' ? `%${esc}` : `%${esc}%`;
  return d === 'sqlserver' ? str(pat, d) : `${str(pat, d)} ESCAPE '!'`;
}

function leaf(l: Leaf, d: SQLDialect, m: TableMappings | undefined): string {
  switch (l.kind) {
    case 'cmp': {
      const c = column(l.field, d, m);
      const v = l.value;
      if (v.type === 'null') {
        // null is below every other value: nothing is < null, everything is >= null
        return { eq: `${c} IS NULL`, ne: `${c} IS NOT NULL`, lt: FALSE, lte: `${c} IS NULL`, gt: `${c} IS NOT NULL`, gte: TRUE }[l.op];
      }
      const test = `${lhs(c, v, d)} ${SQL_OP[l.op]} ${lit(v, d)}`;
      return l.op === 'ne' || l.op === 'lt' || l.op === 'lte' ? `(${test} OR ${c} IS NULL)` : test;
    }
    case 'cols': {
      const a = column(l.a, d, m);
      const b = column(l.b, d, m);
      // MySQL: BINARY keeps the comparison exact (case-sensitive) whatever the collation
      const a2 = d === 'mysql' ? `BINARY ${a}` : a;
      return l.op === 'eq'
        ? `(${a2} = ${b} OR (${a} IS NULL AND ${b} IS NULL))`
        : `(${a2} <> ${b} OR (${a} IS NULL AND ${b} IS NOT NULL) OR (${a} IS NOT NULL AND ${b} IS NULL))`;
    }
    case 'in': {
      const c = column(l.field, d, m);
      const hasNull = l.values.some((v) => v.type === 'null');
      const vals = l.values.filter((v) => v.type !== 'null');
      const anyString = vals.some((v) => v.type === 'string');
      const list = vals.length ? `${lhs(c, anyString ? { type: 'string', value: '' } : undefined, d)} ${l.negated ? 'NOT IN' : 'IN'} (${vals.map((v) => lit(v, d)).join(', ')})` : undefined;
      if (!l.negated) {
        if (!list) return hasNull ? `${c} IS NULL` : FALSE;
        return hasNull ? `(${list} OR ${c} IS NULL)` : list;
      }
      if (!list) return hasNull ? `${c} IS NOT NULL` : TRUE;
      return hasNull ? `(${list} AND ${c} IS NOT NULL)` : `(${list} OR ${c} IS NULL)`;
    }
    case 'like': {
      const c = column(l.field, d, m);
      let test: string;
      if (d === 'sqlite') {
        const n = [...l.value].length;
        const s = str(l.value, d);
        if (n === 0) test = `${c} IS NOT NULL`;
        else if (l.fn === 'startswith') test = `substr(${c}, 1, ${n}) = ${s}`;
        else if (l.fn === 'endswith') test = `substr(${c}, -${n}) = ${s}`;
        else test = `instr(${c}, ${s}) > 0`;
      } else test = `${d === 'mysql' ? `BINARY ${c}` : c} LIKE ${likePattern(l.value, l.fn, d)}`;
      // a string test on null is undefined in Rego, so its negation holds
      return l.negated ? `(${c} IS NULL OR NOT (${test}))` : test;
    }
  }
}

function cond(c: Cond, d: SQLDialect, m: TableMappings | undefined, top: boolean): string {
  switch (c.kind) {
    case 'true':
      return TRUE;
    case 'false':
      return FALSE;
    case 'and':
    case 'or': {
      const s = c.args.map((a) => cond(a, d, m, false)).join(c.kind === 'and' ? ' AND ' : ' OR ');
      return top ? s : `(${s})`;
    }
    default:
      return leaf(c, d, m);
  }
}

/** `WHERE ...`; "" when every row passes; `WHERE 1 = 0` when none does. */
export function toSQL(c: Cond, d: SQLDialect, mappings?: TableMappings): string {
  if (c.kind === 'true') return '';
  return `WHERE ${cond(c, d, mappings, true)}`;
}
