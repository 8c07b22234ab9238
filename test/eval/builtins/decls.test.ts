// Each of these built-ins must declare exactly what OPA's capabilities list says.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { getBuiltin } from '../../../src/eval/builtins/index.js';

interface CapEntry {
  name: string;
  decl: unknown;
  infix?: string;
  relation?: boolean;
  deprecated?: boolean;
  nondeterministic?: boolean;
}

const caps = JSON.parse(readFileSync(new URL('../../../../shared/opa-capabilities-v1.20.2.json', import.meta.url), 'utf8')) as {
  builtins: CapEntry[];
};
const byName = new Map(caps.builtins.map((b) => [b.name, b]));

const MINE = [
  'eq', 'equal', 'neq', 'lt', 'lte', 'gt', 'gte',
  'plus', 'minus', 'mul', 'div', 'rem', 'abs', 'round', 'ceil', 'floor', 'numbers.range', 'numbers.range_step', 'rand.intn',
  'bits.and', 'bits.or', 'bits.xor', 'bits.negate', 'bits.lsh', 'bits.rsh',
  'count', 'sum', 'product', 'max', 'min', 'sort', 'all', 'any',
  'array.concat', 'array.slice', 'array.reverse', 'array.flatten',
  'and', 'or', 'intersection', 'union',
  'object.get', 'object.keys', 'object.remove', 'object.filter', 'object.union', 'object.union_n', 'object.subset',
  'is_number', 'is_string', 'is_boolean', 'is_array', 'is_set', 'is_object', 'is_null', 'type_name',
  'to_number', 'cast_array', 'cast_set', 'cast_string', 'cast_boolean', 'cast_null', 'cast_object',
  'units.parse', 'units.parse_bytes',
  'semver.is_valid', 'semver.compare',
  'uuid.rfc4122', 'uuid.parse',
  'walk', 'graph.reachable', 'graph.reachable_paths',
];

describe('built-in declarations match OPA v1.20 capabilities', () => {
  test.each(MINE)('%s', (name) => {
    const cap = byName.get(name);
    expect(cap, `${name} is in the capabilities file`).toBeDefined();
    const def = getBuiltin(name);
    expect(def, `${name} is registered`).toBeDefined();
    expect(def!.decl).toEqual(cap!.decl);
    expect(def!.infix).toBe(cap!.infix);
    expect(!!def!.relation).toBe(!!cap!.relation);
    expect(!!def!.deprecated).toBe(!!cap!.deprecated);
    expect(!!def!.nondeterministic).toBe(!!cap!.nondeterministic);
  });
});
