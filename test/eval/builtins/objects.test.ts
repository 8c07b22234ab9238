import { describe, expect, test } from 'vitest';
import { RObject, RSet, equal, isPlainObject, type Value } from '../../../src/value/index.js';
import { call, expectError } from './builtin-calls.js';

const robj = (...entries: [Value, Value][]) => {
  const r = new RObject();
  for (const [k, v] of entries) r.set(k, v);
  return r;
};

describe('object.get', () => {
  test('single keys and paths', () => {
    expect(call('object.get', { a: 'b' }, 'a', 'c')).toBe('b');
    expect(call('object.get', { a: 'b' }, 'x', 'c')).toBe('c');
    expect(call('object.get', robj([1, 2]), 1, 3)).toBe(2);
    expect(call('object.get', { a: 1 }, [], 2)).toEqual({ a: 1 });
    expect(call('object.get', { a: { b: [{ c: 1 }] } }, ['a', 'b', 0, 'c'], 2)).toBe(1);
    expect(call('object.get', { a: { b: [1, 2, 3] } }, ['a', 'b', 'a'], 2)).toBe(2);
    expect(call('object.get', { a: { b: [1] } }, ['a', 'b', 5], 2)).toBe(2);
    expect(call('object.get', { a: RSet.of('x') }, ['a', 'x'], 2)).toBe('x');
    expect(call('object.get', robj([1, { b: robj([[1, 2, 3], 1]) }]), [1, 'b', [1, 2, 3]], 2)).toBe(1);
  });
  test('a key that is literally "__proto__" is just a key', () => {
    expect(call('object.get', JSON.parse('{"__proto__": 1}'), '__proto__', 0)).toBe(1);
    expect(call('object.get', {}, '__proto__', 0)).toBe(0);
  });
  test('errors', () => {
    expectError(() => call('object.get', 'x', ['a'], 2), 'eval_type_error', 'operand 1 must be object but got string');
  });
});

describe('object.keys / remove / filter', () => {
  test('keys', () => {
    expect((call('object.keys', { b: 1, a: 2 }) as RSet).values()).toEqual(['a', 'b']);
    expect((call('object.keys', robj([1, 'x'], ['a', 'y'])) as RSet).values()).toEqual([1, 'a']);
    expectError(() => call('object.keys', 'x'), 'eval_type_error', 'operand 1 must be object but got string');
  });
  test('remove and filter take keys as array, set or object', () => {
    const o = { a: 1, b: 2, c: 3 };
    expect(call('object.remove', o, ['a'])).toEqual({ b: 2, c: 3 });
    expect(call('object.remove', o, RSet.of('a', 'b'))).toEqual({ c: 3 });
    expect(call('object.remove', o, { c: 0 })).toEqual({ a: 1, b: 2 });
    expect(call('object.filter', o, ['a', 'z'])).toEqual({ a: 1 });
    expect(call('object.filter', o, RSet.of('b'))).toEqual({ b: 2 });
    const r = call('object.remove', robj([1, 'x'], ['a', 'y']), [1]);
    expect(r).toEqual({ a: 'y' });
    // once every key is a string the result is a plain object again (the value invariant)
    expect(isPlainObject(r)).toBe(true);
  });
  test('errors', () => {
    expectError(() => call('object.remove', [], ['a']), 'eval_type_error', 'operand 1 must be object but got array');
    expectError(() => call('object.filter', {}, 'a'), 'eval_type_error', 'operand 2 must be one of {object, set, array} but got string');
  });
});

describe('object.union / union_n', () => {
  test('right wins, nested objects merge', () => {
    expect(call('object.union', { a: 1, b: { c: 1 } }, { b: { d: 2 }, e: 3 })).toEqual({ a: 1, b: { c: 1, d: 2 }, e: 3 });
    expect(call('object.union', { a: { b: 1 } }, { a: 2 })).toEqual({ a: 2 });
    const u = call('object.union', robj([1, { x: 1 }]), robj([1, { y: 2 }]));
    expect(equal(u!, robj([1, { x: 1, y: 2 }]))).toBe(true);
    expectError(() => call('object.union', [], {}), 'eval_type_error', 'operand 1 must be object but got array');
    expectError(() => call('object.union', {}, []), 'eval_type_error', 'operand 2 must be object but got array');
  });
  test('union_n folds left to right', () => {
    expect(call('object.union_n', [{ a: 1, b: 2, c: 3 }, { foo: 'baz', a: 'a', b: 2, d: 4 }, { a: 'final A!', e: 5 }])).toEqual({
      a: 'final A!', b: 2, c: 3, d: 4, e: 5, foo: 'baz',
    });
    expect(call('object.union_n', [{ a: { b: 2 } }, { a: 4 }, { a: { c: 3 } }])).toEqual({ a: { c: 3 } });
    expect(call('object.union_n', [])).toEqual({});
    expectError(() => call('object.union_n', [{ foo: 1 }, { bar: 2 }, 'baz']), 'eval_type_error', 'operand 1 must be array of objects but got array containing string');
  });
});

describe('object.subset', () => {
  test('objects recurse; sets and arrays by their rules', () => {
    expect(call('object.subset', { a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true);
    expect(call('object.subset', { a: 1 }, { a: 2 })).toBe(false);
    expect(call('object.subset', { a: RSet.of(1, 2) }, { a: RSet.of(2) })).toBe(true);
    expect(call('object.subset', { a: [1, 2, 3] }, { a: [2, 3] })).toBe(true);
    expect(call('object.subset', [1, 2, 3, 4], [2, 4])).toBe(false);
    expect(call('object.subset', [1, 1, 2], [1, 2])).toBe(true);
    expect(call('object.subset', [1, 2, 3, 4, 5, 6], RSet.of(4, 3, 2))).toBe(true);
    expect(call('object.subset', [1, 2, 3], RSet.of(9))).toBe(false);
    expect(call('object.subset', RSet.of(1, 2), RSet.of(1))).toBe(true);
  });
  test('mismatched types', () => {
    expectError(() => call('object.subset', RSet.of(1), [1]), 'eval_type_error', 'both arguments object.subset must be of the same type or array and set');
  });
});
