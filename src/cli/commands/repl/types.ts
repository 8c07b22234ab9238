// The REPL's `types` toggle: after each query, one `# <var>: <type>` line per variable of
// the query, in OPA's type syntax (`number`, `array<number, string>`, `object<a: number>`,
// `set[string]`, `any<number, string>`). OPA prints the type checker's static types;
// Regolith's checker does not infer the types of a query's variables, so these are the
// types of the values the variables took (over every result: several are an `any<...>`).

import { isPlainObject, objectEntries, RObject, RSet, type RawResult, type Value } from '../../../engine/index.js';

/** OPA's order of types in a union (null, boolean, number, string, array, object, set). */
const ORDER = ['null', 'boolean', 'number', 'string', 'array', 'object', 'set'];

function rank(t: string): number {
  const i = ORDER.findIndex((p) => t === p || t.startsWith(p + '<') || t.startsWith(p + '['));
  return i < 0 ? ORDER.length : i;
}

function union(types: Iterable<string>): string {
  const all = [...new Set(types)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (all.length === 0) return 'any';
  return all.length === 1 ? all[0]! : `any<${all.join(', ')}>`;
}

/** A value's type as OPA prints the type of the literal written for it. */
export function valueType(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return v.length ? `array<${v.map(valueType).join(', ')}>` : 'array';
  if (v instanceof RSet) return `set[${union(v.values().map(valueType))}]`;
  if (isPlainObject(v) || v instanceof RObject) {
    const entries = objectEntries(v);
    if (entries.length === 0) return 'object';
    if (entries.every(([k]) => typeof k === 'string')) return `object<${entries.map(([k, x]) => `${String(k)}: ${valueType(x)}`).join(', ')}>`;
    return `object[${union(entries.map(([k]) => valueType(k)))}: ${union(entries.map(([, x]) => valueType(x)))}]`;
  }
  // a number too big for a double
  return 'number';
}

/** `# x: number` for each variable bound in the results, by name. */
export function typeLines(results: readonly RawResult[]): string[] {
  const byVar = new Map<string, Set<string>>();
  for (const r of results) {
    for (const [name, v] of r.bindings) {
      if (name.startsWith('$') || name.startsWith('_')) continue;
      let s = byVar.get(name);
      if (!s) byVar.set(name, (s = new Set()));
      s.add(valueType(v));
    }
  }
  return [...byVar.keys()].sort().map((name) => `# ${name}: ${union(byVar.get(name)!)}`);
}
