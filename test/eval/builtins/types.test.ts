import { describe, expect, test } from 'vitest';
import { RObject, RSet, type Value } from '../../../src/value/index.js';
import { call, n } from './builtin-calls.js';

describe('type predicates and type_name', () => {
  const values: Value[] = [null, true, 1, n('1e400'), 'x', [1], { a: 1 }, RSet.of(1)];
  test('each predicate is true for its type only', () => {
    const expected: Record<string, boolean[]> = {
      is_null: [true, false, false, false, false, false, false, false],
      is_boolean: [false, true, false, false, false, false, false, false],
      is_number: [false, false, true, true, false, false, false, false],
      is_string: [false, false, false, false, true, false, false, false],
      is_array: [false, false, false, false, false, true, false, false],
      is_object: [false, false, false, false, false, false, true, false],
      is_set: [false, false, false, false, false, false, false, true],
    };
    for (const [name, want] of Object.entries(expected)) expect(values.map((v) => call(name, v))).toEqual(want);
  });
  test('type_name', () => {
    expect(values.map((v) => call('type_name', v))).toEqual(['null', 'boolean', 'number', 'number', 'string', 'array', 'object', 'set']);
    const r = new RObject();
    r.set(1, 2);
    expect(call('type_name', r)).toBe('object');
    expect(call('is_object', r)).toBe(true);
  });
});
