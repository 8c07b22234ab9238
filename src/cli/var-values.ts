// `opa test --var-values`: the expression a failing test failed on, with its variables'
// values drawn under it (OPA's PrettyEvent with PrettyVars):
//
//     x == y + z
//     |    |   |
//     |    |   3
//     |    2
//     1
//
// The failing expression is the last Fail event of the test's own queries (not the query
// that called the test), skipping `every` (its failing body expression comes first). A
// variable the expression mentions but that had no value when it failed is `undefined`
// (unless the expression is negated: there it may just not have been reached).

import { toRegoString, type Expr, type Term, type TraceEvent, type Value } from '../engine/index.js';

/** OPA cuts each value at 64 characters. */
const MAX_VALUE_WIDTH = 64;

/** The line `row` of `file` as loaded (to copy its tabs), when the source is known. */
export type SourceLines = (file: string, row: number) => string | undefined;

/** The last Fail event of an expression in the test's rule bodies (query id above 0). */
export function failingEvent(events: readonly TraceEvent[]): TraceEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.op !== 'Fail' || !e.location || e.queryId === 0 || e.node?.type !== 'expr') continue;
    const t = e.node.expr.terms;
    if (!Array.isArray(t) && t.type === 'every') continue;
    return e;
  }
  return undefined;
}

interface VarInfo {
  name: string;
  value: string;
  row: number;
  col: number;
}

function truncate(s: string): string {
  return s.length <= MAX_VALUE_WIDTH ? s : s.slice(0, MAX_VALUE_WIDTH - 3) + '...';
}

/** A var as the user wrote it (the compiler's renamed `x#2` back to `x`), or undefined for generated ones. */
function userName(name: string): string | undefined {
  if (name.startsWith('$') || name.startsWith('_')) return undefined;
  const n = name.replace(/#\d+$/, '');
  return n === 'data' || n === 'input' ? undefined : n;
}

/** The terms OPA looks into: a call's arguments (not its operator), never a comprehension's inside. */
function walkTerm(t: Term, fn: (v: Term & { type: 'var' }) => void): void {
  switch (t.type) {
    case 'var':
      fn(t);
      return;
    case 'call':
      t.value.slice(1).forEach((x) => walkTerm(x, fn));
      return;
    case 'ref':
    case 'array':
    case 'set':
      t.value.forEach((x) => walkTerm(x, fn));
      return;
    case 'object':
      t.value.forEach(([k, x]) => (walkTerm(k, fn), walkTerm(x, fn)));
      return;
    default:
      // scalars have no vars; comprehensions were evaluated whole, their locals are gone
      return;
  }
}

function walkExpr(e: Expr, fn: (v: Term & { type: 'var' }) => void): void {
  const t = e.terms;
  if (Array.isArray(t)) t.slice(1).forEach((x) => walkTerm(x, fn));
  else if (t.type === 'somedecl') t.symbols.forEach((x) => walkTerm(x, fn));
  else if (t.type !== 'every') walkTerm(t, fn);
  for (const w of e.with ?? []) walkTerm(w.value, fn);
}

function varsOf(e: TraceEvent, expr: Expr): Map<string, VarInfo> {
  const locals = new Map<string, Value>();
  for (const [k, v] of e.locals ?? []) locals.set(k, v);
  const out = new Map<string, VarInfo>();
  walkExpr(expr, (v) => {
    const name = userName(v.value);
    if (!name || !v.location) return;
    const value = locals.get(name);
    if (value === undefined && expr.negated) return;
    const prev = out.get(name);
    if (prev && prev.value !== 'undefined') return;
    out.set(name, { name, value: value === undefined ? 'undefined' : truncate(toRegoString(value)), row: v.location.row, col: v.location.col });
  });
  return out;
}

/** `count` spaces, as tabs where the source line has tabs (so arrows line up under tabs). */
function pad(line: string | undefined, from: number, count: number): string {
  let s = '';
  for (let j = 0; j < count; j++) s += line?.[from + j] === '\t' ? '\t' : ' ';
  return s;
}

/** One row of arrows: `|` under every var up to `valueAt`, whose value is written instead. */
function arrows(vars: VarInfo[], valueAt: number, line: (v: VarInfo) => string | undefined): string {
  const slice = valueAt >= 0 ? vars.slice(0, valueAt + 1) : vars;
  let s = '';
  let prevCol = 0;
  slice.forEach((v, i) => {
    const isLast = i === slice.length - 1;
    // vars sharing a column: only the last of them draws it
    if (!isLast && v.col === vars[i + 1]!.col) return;
    s += pad(line(v), prevCol, v.col - prevCol - 1);
    if (isLast && valueAt >= 0) {
      const shared = (i > 0 && v.col === vars[i - 1]!.col) || (i < vars.length - 1 && v.col === vars[i + 1]!.col);
      s += shared ? `${v.name}: ${v.value}` : v.value;
    } else s += '|';
    prevCol = v.col;
  });
  return s;
}

/**
 * The failing expression as written (its first line padded to its column, tabs kept) and,
 * under it, one row per variable with its value. Lines, without the report's indentation.
 */
export function prettyVarValues(e: TraceEvent, source: SourceLines): string[] {
  if (e.node?.type !== 'expr') return [];
  const expr = e.node.expr;
  const loc = expr.location;
  if (!loc) return [];
  const text = loc.text;
  const first = source(loc.file, loc.row);
  const lines = text.split('\n');
  lines[0] = pad(first, 0, loc.col - 1) + lines[0];
  const vars = [...varsOf(e, expr).values()];
  if (vars.length === 0) return lines;
  const lineOf = (v: VarInfo) => source(loc.file, v.row);
  const rows = new Set(vars.map((v) => v.row));
  const tabs = vars.some((v) => lineOf(v)?.slice(0, v.col - 1).includes('\t'));
  if (tabs && rows.size > 1) {
    // columns on different rows with tabs cannot be lined up: OPA lists them by name
    vars.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...lines, '', 'Where:', '', ...vars.map((v) => `${v.name}: ${v.value}`)];
  }
  // by column; on one column, the later row first (the order they appear in the expression)
  vars.sort((a, b) => (a.col !== b.col ? a.col - b.col : a.row !== b.row ? b.row - a.row : a.name < b.name ? -1 : 1));
  const out = [...lines, arrows(vars, -1, lineOf)];
  for (let i = vars.length - 1; i >= 0; i--) out.push(arrows(vars, i, lineOf));
  return out;
}

/** OPA cuts each value in a verbose trace's variables column at 32 characters. */
const MAX_TRACE_VALUE_WIDTH = 32;

/**
 * `-v --var-values`: each pretty trace line gets a last column with the values of the
 * variables its expression mentions (`{x: 1, y: 2}`, sorted by name), lined up as OPA's
 * trace table (the columns before it padded to the widest plus four).
 */
export function withExprVars(lines: readonly string[], events: readonly TraceEvent[]): string[] {
  const width = Math.max(0, ...lines.map((l) => l.length)) + 4;
  return lines.map((l, i) => {
    const locals = [...(events[i]?.locals ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const vars = locals.map(([k, v]) => {
      const s = toRegoString(v);
      return `${k}: ${s.length <= MAX_TRACE_VALUE_WIDTH ? s : s.slice(0, MAX_TRACE_VALUE_WIDTH - 3) + '...'}`;
    });
    return `${l.padEnd(width)} {${vars.join(', ')}}`;
  });
}
