import { describe, expect, it } from 'vitest';
import { call, callError, obj } from './fake-context.js';
import { RSet, makeObject, parseNumber, type Value } from '../../../src/value/index.js';

const err = callError;

describe('json.marshal / unmarshal / is_valid', () => {
  it('marshals like Go', () => {
    expect(call('json.marshal', [obj({ foo: RSet.of(3, 1, 2) })])).toBe('[{"foo":[1,2,3]}]');
    expect(call('json.marshal', obj({ b: 1, a: '<x>&' }))).toBe('{"a":"\\u003cx\\u003e\\u0026","b":1}');
    expect(call('json.marshal', parseNumber('123456789012345678901234567890')!)).toBe('123456789012345678901234567890');
    expect(call('json.marshal', '\b\f\n')).toBe('"\\u0008\\u000c\\n"');
  });
  it('marshal_with_options', () => {
    const v = [1234567890, 2000000, 1000000000];
    expect(call('json.marshal_with_options', v, obj({ indent: '  ' }))).toBe('[\n  1234567890,\n  2000000,\n  1000000000\n]');
    expect(call('json.marshal_with_options', v, obj({}))).toBe('[1234567890,2000000,1000000000]');
    expect(call('json.marshal_with_options', v, obj({ pretty: true }))).toBe('[\n\t1234567890,\n\t2000000,\n\t1000000000\n]');
    expect(call('json.marshal_with_options', v, obj({ pretty: false, prefix: 'NO!', indent: 'BAD!' }))).toBe('[1234567890,2000000,1000000000]');
    expect(call('json.marshal_with_options', obj({ foo: 'bar', bar: 'baz' }), obj({ prefix: 'JSON => ' }))).toBe(
      'JSON => {\nJSON => \t"bar": "baz",\nJSON => \t"foo": "bar"\nJSON => }',
    );
    expect(call('json.marshal_with_options', [], obj({ indent: '    ', prefix: '---' }))).toBe('---[]');
    expect(call('json.marshal_with_options', [[[]]], obj({ indent: ' ' }))).toBe('[\n [\n  []\n ]\n]');
    const e = err('json.marshal_with_options', [], obj({ indent: '    ', include_winning_lottery_numbers: true }));
    expect(e.code).toBe('eval_type_error');
    expect(e.message).toContain('object contained unknown key "include_winning_lottery_numbers"');
  });
  it('unmarshal keeps exact numbers and reports errors', () => {
    expect(call('json.unmarshal', '[{"foo":[1,2,3]}]')).toEqual([{ foo: [1, 2, 3] }]);
    expect(call('json.unmarshal', '12345678901234567890')).toEqual(parseNumber('12345678901234567890'));
    expect(err('json.unmarshal', 1).message).toBe('operand 1 must be string but got number');
    expect(err('json.unmarshal', 'plain').message).toBe("invalid character 'p' looking for beginning of value");
  });
  it('is_valid', () => {
    expect(call('json.is_valid', '{"json": "ok"}')).toBe(true);
    expect(call('json.is_valid', '{')).toBe(false);
    expect(call('json.is_valid', 'plainstring')).toBe(false);
    expect(call('json.is_valid', 1)).toBe(false);
  });
});

describe('json.filter / json.remove', () => {
  const doc = obj({ a: obj({ b: obj({ c: 7, d: 8 }) }), e: 9 });
  it('filter keeps selected paths', () => {
    expect(call('json.filter', doc, RSet.of('a/b/c'))).toEqual({ a: { b: { c: 7 } } });
    expect(call('json.filter', doc, ['a/b/c', 'e'])).toEqual({ a: { b: { c: 7 } }, e: 9 });
    expect(call('json.filter', obj({ a: obj({ b: 7 }) }), RSet.of('a', 'a/b'))).toEqual({ a: { b: 7 } });
    expect(call('json.filter', obj({ a: 7 }), RSet.of())).toEqual({});
    expect(call('json.filter', obj({ a: [obj({ b: 7, c: 8 }), obj({ d: 9 })] }), RSet.of('a/0/b', 'a/1'))).toEqual({ a: [{ b: 7 }, { d: 9 }] });
    expect(call('json.filter', doc, RSet.of(['a', 'b', 'c'], ['e']))).toEqual({ a: { b: { c: 7 } }, e: 9 });
  });
  it('remove drops selected paths', () => {
    expect(call('json.remove', doc, RSet.of('a/b/c'))).toEqual({ a: { b: { d: 8 } }, e: 9 });
    expect(call('json.remove', obj({ a: obj({ b: 7 }), c: 1 }), RSet.of('a', 'a/b'))).toEqual({ c: 1 });
    expect(call('json.remove', obj({ a: obj({ b: 7 }), c: 1 }), RSet.of('a/b', 'c'))).toEqual({ a: {} });
    expect(call('json.remove', obj({ a: [obj({ '1': ['b', 'c', 'd'] }), obj({ x: 'y' })] }), RSet.of('a/0/1/2'))).toEqual({
      a: [{ '1': ['b', 'c'] }, { x: 'y' }],
    });
  });
  it('operand errors', () => {
    expect(err('json.remove', 'foo', RSet.of('a')).message).toBe('operand 1 must be object but got string');
    expect(err('json.remove', obj({}), 'foo').message).toBe('operand 2 must be one of {set, array} but got string');
    expect(err('json.remove', obj({}), RSet.of(1, 'a')).message).toBe(
      'operand 2 must be one of {set, array} containing string paths or array of path segments but got number',
    );
    expect(err('json.filter', obj({}), ['a', obj({ x: 1 })]).code).toBe('eval_type_error');
  });
});

describe('json.patch', () => {
  const patch = (doc: Value, ...ops: Record<string, Value>[]) => call('json.patch', doc, ops.map(obj));
  // A failed patch is a built-in error in OPA (undefined unless strict-builtin-errors).
  const fails = (doc: Value, ...ops: Record<string, Value>[]) => callError('json.patch', doc, ops.map(obj)).code;
  it('applies RFC 6902 operations', () => {
    expect(patch(obj({ foo: 'bar' }), { op: 'add', path: '/baz', value: 'qux' })).toEqual({ foo: 'bar', baz: 'qux' });
    expect(patch(obj({ foo: ['bar', 'baz'] }), { op: 'add', path: '/foo/1', value: 'qux' })).toEqual({ foo: ['bar', 'qux', 'baz'] });
    expect(patch(obj({ foo: ['all', 'grass', 'cows', 'eat'] }), { op: 'move', from: '/foo/1', path: '/foo/3' })).toEqual({
      foo: ['all', 'cows', 'eat', 'grass'],
    });
    expect(patch([1, 2], { op: 'add', path: '/-', value: 3 })).toEqual([1, 2, 3]);
    expect(patch(obj({}), { op: 'add', path: '/', value: 1 })).toEqual({ '': 1 });
    expect(patch(obj({ foo: 'bar' }), { op: 'replace', path: '', value: obj({ baz: 'qux' }) })).toEqual({ baz: 'qux' });
    expect(patch(obj({ '/': 9, '~1': 10 }), { op: 'test', path: '/~01', value: 10 })).toEqual({ '/': 9, '~1': 10 });
    expect(patch(obj({ baz: [obj({ qux: 'hello' })], bar: 1 }), { op: 'copy', from: '/baz/0', path: '/boo' })).toEqual({
      baz: [{ qux: 'hello' }],
      bar: 1,
      boo: { qux: 'hello' },
    });
  });
  it('fails with eval_builtin_error when an operation fails', () => {
    expect(fails(obj({ q: obj({ bar: 2 }) }), { op: 'add', path: '/a/b', value: 1 })).toBe('eval_builtin_error');
    expect(fails(obj({ baz: 'qux' }), { op: 'test', path: '/baz', value: 'bar' })).toBe('eval_builtin_error');
    expect(fails(['foo', 'sil'], { op: 'add', path: '/3', value: 'bar' })).toBe('eval_builtin_error');
    expect(fails(['foo', 'bar'], { op: 'test', path: '/01', value: 'bar' })).toBe('eval_builtin_error');
    expect(fails(['foo', 'bar'], { op: 'test', path: '/1e0', value: 'bar' })).toBe('eval_builtin_error');
    expect(fails(obj({ foo: 1 }), { op: 'spam', path: '/foo', value: 1 })).toBe('eval_builtin_error');
    expect(fails(obj({}), { op: 'add', path: null, value: 'bar' })).toBe('eval_builtin_error');
    expect(fails([1], { op: 'add', path: '/-' })).toBe('eval_builtin_error');
    expect(fails(obj({ foo: 'bar' }), { op: 'remove', path: '/baz' })).toBe('eval_builtin_error');
  });
  it('works on sets and relative paths', () => {
    expect(patch(obj({ foo: RSet.of('a', 'b', 'c') }), { op: 'remove', path: 'foo/b' })).toEqual({ foo: RSet.of('a', 'c') });
    expect(patch(obj({ foo: RSet.of('a') }), { op: 'add', path: 'foo/d', value: 'd' })).toEqual({ foo: RSet.of('a', 'd') });
    expect(fails(obj({ foo: RSet.of('a') }), { op: 'add', path: 'foo/d', value: 'e' })).toBe('eval_builtin_error');
    expect(patch(RSet.of([1]), { op: 'add', path: [[1], 1], value: 2 })).toEqual(RSet.of([1, 2]));
    expect(patch(makeObject([[1, 'x']]), { op: 'replace', path: [1], value: 'y' })).toEqual(makeObject([[1, 'y']]));
  });
});

describe('yaml', () => {
  it('round-trips and marshals like go-yaml', () => {
    const y = call('yaml.marshal', [obj({ foo: RSet.of(1, 2, 3) })]) as string;
    expect(y).toBe('- foo:\n  - 1\n  - 2\n  - 3\n');
    expect(call('yaml.unmarshal', y)).toEqual([{ foo: [1, 2, 3] }]);
    expect(call('yaml.marshal', obj({ b: 'true', a: [1, 'x'], c: obj({}) }))).toBe('a:\n- 1\n- x\nb: "true"\nc: {}\n');
    expect(call('yaml.marshal', 'hello')).toBe('hello\n');
  });
  it('unmarshals YAML 1.1 scalars as OPA does', () => {
    expect(call('yaml.unmarshal', 'a: yes\nb: off\nc: 2001-12-14\nd: ~\n')).toEqual({ a: true, b: false, c: '2001-12-14', d: null });
    expect(call('yaml.unmarshal', '')).toBe(null);
    expect(call('yaml.unmarshal', '{"json": "ok"}')).toEqual({ json: 'ok' });
  });
  it('errors and validity', () => {
    const e = err('yaml.unmarshal', '[1,2,3');
    expect(e.code).toBe('eval_builtin_error');
    expect(e.message).toContain('yaml: line 1: did not find');
    expect(call('yaml.is_valid', 'foo:\n  - qux: bar\n  - baz: 2')).toBe(true);
    expect(call('yaml.is_valid', 'foo:\n  - qux: bar\n  - baz: {')).toBe(false);
    expect(call('yaml.is_valid', 1)).toBe(false);
  });
});

describe('json schema', () => {
  const schema = obj({ properties: obj({ id: obj({ type: 'integer' }) }), required: ['id'] });
  it('match_schema reports gojsonschema-shaped errors', () => {
    expect(call('json.match_schema', obj({ id: 5 }), schema)).toEqual([true, []]);
    expect(call('json.match_schema', '{"id": 5}', schema)).toEqual([true, []]);
    expect(call('json.match_schema', obj({ id: 5 }), '{"properties": {"id": {"type": "integer"}}, "required": ["id"]}')).toEqual([true, []]);
    expect(call('json.match_schema', obj({ id: 'foo' }), schema)).toEqual([
      false,
      [{ desc: 'Invalid type. Expected: integer, given: string', error: 'id: Invalid type. Expected: integer, given: string', field: 'id', type: 'invalid_type' }],
    ]);
    expect(call('json.match_schema', obj({}), schema)).toEqual([
      false,
      [{ desc: 'id is required', error: '(root): id is required', field: '(root)', type: 'required' }],
    ]);
  });
  it('invalid schemas', () => {
    const bad = obj({ properties: obj({ id: obj({ type: 'unknown' }) }) });
    const e = err('json.match_schema', obj({ id: 'foo' }), bad);
    expect(e.code).toBe('eval_builtin_error');
    expect(e.message).toBe(
      'has a primitive type that is NOT VALID -- given: /unknown/ Expected valid values are:[array boolean integer number null object string]',
    );
    expect(call('json.verify_schema', '{"type": "boolean"}')).toEqual([true, null]);
    expect(call('json.verify_schema', obj({ type: 'unknown_type' }))).toEqual([
      false,
      'jsonschema: has a primitive type that is NOT VALID -- given: /unknown_type/ Expected valid values are:[array boolean integer number null object string]',
    ]);
  });
});
