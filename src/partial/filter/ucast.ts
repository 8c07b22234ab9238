// Conditions -> UCAST (the condition tree ucast/Prisma adapters read): field nodes
// {type: "field", operator, field: "table.column", value} and compound and/or nodes.
// UCAST has no column-to-column comparison and (outside "all") no `not`: those are
// pe_fragment_errors. Rego's null semantics are kept by adding `field = null` where a SQL
// comparison would drop NULL rows (ne, lt, lte, not in).

import { fragment, FilterError, type Cond, type FragmentError, type Leaf, type Lit } from './conditions.js';
import type { UCASTVariant } from './targets.js';
import type { Value } from '../../value/index.js';

function litValue(v: Lit): Value {
  if (v.type === 'null') return null;
  if (v.type === 'number') return Number(v.value);
  return v.value;
}

const field = (name: string, operator: string, value: Value): Value => ({ type: 'field', operator, field: name, value });
const compound = (operator: string, value: Value[]): Value => (value.length === 1 ? value[0]! : { type: 'compound', operator, value });

function leaf(l: Leaf, variant: UCASTVariant, errors: FragmentError[]): Value | undefined {
  if (l.kind === 'cols') return void errors.push(fragment('comparing two columns is not supported by UCAST', l.location));
  const name = `${l.field.table}.${l.field.column}`;
  const isNull = field(name, 'eq', null);
  if (l.kind === 'cmp') {
    const v = litValue(l.value);
    if (l.value.type === 'null') {
      const ops = { eq: isNull, ne: field(name, 'ne', null), gt: field(name, 'ne', null), lte: isNull } as Record<string, Value>;
      const out = ops[l.op];
      if (!out) return void errors.push(fragment(`comparing with null by ${l.op} is not supported by UCAST`));
      return out;
    }
    const test = field(name, l.op, v);
    return l.op === 'ne' || l.op === 'lt' || l.op === 'lte' ? compound('or', [test, isNull]) : test;
  }
  if (l.kind === 'in') {
    const vals = l.values.filter((v) => v.type !== 'null').map(litValue);
    const hasNull = vals.length !== l.values.length;
    if (!l.negated) return hasNull ? compound('or', [field(name, 'in', vals), isNull]) : field(name, 'in', vals);
    const nin = field(name, variant === 'prisma' ? 'notIn' : 'nin', vals);
    return hasNull ? compound('and', [nin, field(name, 'ne', null)]) : compound('or', [nin, isNull]);
  }
  const test = field(name, l.fn, l.value);
  if (!l.negated) return test;
  if (variant !== 'all') return void errors.push(fragment(`not ${l.fn}(...) is not supported by UCAST ${variant} (it has no not)`, l.location));
  return compound('or', [isNull, { type: 'compound', operator: 'not', value: [test] }]);
}

function cond(c: Cond, variant: UCASTVariant, errors: FragmentError[]): Value | undefined {
  if (c.kind === 'and' || c.kind === 'or') {
    const args = c.args.map((a) => cond(a, variant, errors)).filter((x): x is Value => x !== undefined);
    return compound(c.kind, args);
  }
  if (c.kind === 'true' || c.kind === 'false') return undefined;
  return leaf(c as Leaf, variant, errors);
}

/** The UCAST tree; {} when every row passes; undefined when none does. */
export function toUCAST(c: Cond, variant: UCASTVariant): Value | undefined {
  if (c.kind === 'true') return {};
  if (c.kind === 'false') return undefined;
  const errors: FragmentError[] = [];
  const out = cond(c, variant, errors);
  if (errors.length) throw new FilterError(errors);
  return out;
}
