// Data filtering: the residual of a filter rule (partial evaluation with the table rows
// unknown) translated into what a database or ORM applies — a SQL WHERE clause per
// dialect, or a UCAST condition tree — as /v1/compile/{path} answers for each Accept type.
//
//   translateFilter({queries, supportCount}, target, {targetDialects, targetSQLTableMappings, masks})
//     -> the `result` member: {query, masks?} for one target; {ucast: {...}, postgresql: {...}, ...}
//        for multitarget. Throws FilterError (pe_fragment_error entries) when the residual
//        holds something the target cannot say exactly.

import type { Body } from '../../lang/ast.js';
import type { Value } from '../../value/index.js';
import { toCondition } from './conditions.js';
import { toSQL, type TableMappings } from './sql.js';
import { parseDialect, DIALECTS, type Target } from './targets.js';
import { toUCAST } from './ucast.js';

export { FilterError, type FragmentError } from './conditions.js';
export { parseTarget, type Target } from './targets.js';

export interface FilterOptions {
  targetDialects?: string[];
  /** Per dialect (`postgresql`, ...): per table `{$self?: newName, <column>: newName}`. */
  targetSQLTableMappings?: Value;
  masks?: Value;
}

export interface Residual {
  queries: Body[];
  supportCount: number;
}

function one(c: ReturnType<typeof toCondition>, t: Exclude<Target, { kind: 'multi' }>, o: FilterOptions): Record<string, Value> {
  const out: Record<string, Value> = {};
  if (t.kind === 'sql') {
    const all = (o.targetSQLTableMappings ?? {}) as Record<string, TableMappings>;
    out['query'] = toSQL(c, t.dialect, all[t.dialect]);
  } else {
    const q = toUCAST(c, t.variant);
    if (q !== undefined) out['query'] = q;
  }
  if (o.masks !== undefined) out['masks'] = o.masks;
  return out;
}

export function translateFilter(r: Residual, target: Target, o: FilterOptions = {}): Value {
  const c = toCondition(r.queries, r.supportCount);
  if (target.kind !== 'multi') return one(c, target, o);
  const names = o.targetDialects?.length ? o.targetDialects : ['ucast+all', ...DIALECTS.map((d) => `sql+${d}`)];
  const out: Record<string, Value> = {};
  for (const n of names) {
    const t = parseDialect(n);
    if (!t || t.kind === 'multi') continue;
    out[t.kind === 'sql' ? t.dialect : 'ucast'] = one(c, t, o);
  }
  return out;
}
