import { describe, expect, it } from 'vitest';
import { parseQuery, parseRef, parseTerm, RegoParseError } from '../../src/lang/index.js';
import { show, showExpr } from './helpers.js';

const term = (s: string) => show(parseTerm(s));
const query = (s: string) => parseQuery(s).map(showExpr);

describe('scalars', () => {
  it('null, booleans, numbers keep their literal text', () => {
    expect(term('null')).toBe('null');
    expect(term('true')).toBe('true');
    expect(term('false')).toBe('false');
    for (const n of ['0', '1', '-1', '1.5', '1e400', '1E-3', '0.001', '12345678901234567890', '-0.5', '0e5']) expect(term(n)).toBe(n);
    expect(term('.5')).toBe('.5');
    expect(term('-.5')).toBe('-.5');
  });
  it('rejects leading zeros and huge exponents', () => {
    expect(() => parseTerm('01')).toThrow(/expected number without leading zero/);
    expect(() => parseTerm('1e999999')).toThrow(/number too big/);
  });
  it('decodes strings with escapes, \\u and surrogate pairs; raw strings are verbatim', () => {
    expect(parseTerm('"a\\tb\\n\\"c\\\\ \\/"')).toMatchObject({ type: 'string', value: 'a\tb\n"c\\ /' });
    expect(parseTerm('"\\u00e9\\ud83d\\ude00"')).toMatchObject({ value: 'é😀' });
    expect(parseTerm('`a\\n"b`')).toMatchObject({ value: 'a\\n"b' });
    expect(parseTerm('`multi\nline`')).toMatchObject({ value: 'multi\nline' });
    expect(() => parseTerm('"\\x"')).toThrow(/illegal string literal/);
    expect(() => parseTerm('"abc')).toThrow(/non-terminated string/);
  });
});

describe('composites', () => {
  it('arrays, objects, sets, empty set and object', () => {
    expect(term('[1, "a", [true]]')).toBe('[1, "a", [true]]');
    expect(term('{"a": 1, "b": [2]}')).toBe('{"a": 1, "b": [2]}');
    expect(term('{1, 2}')).toBe('set(1, 2)');
    expect(term('set()')).toBe('set()');
    expect(term('{}')).toBe('{}');
    expect(term('[1, 2,]')).toBe('[1, 2]');
    expect(term('{"a": set()}')).toBe('{"a": set()}');
  });
  it('comprehensions take priority over `|` calls', () => {
    expect(term('[x | x := 1]')).toBe('[x | expr(ref(assign), x, 1)]');
    expect(term('{x | x := 1}')).toBe('{x | expr(ref(assign), x, 1)}');
    expect(term('{k: v | k := 1; v := 2}')).toBe('{k: v | expr(ref(assign), k, 1); expr(ref(assign), v, 2)}');
    expect(term('{a | b}')).toBe('{a | b}');
    expect(term('[1, a | b]')).toBe('[1, call(ref(or), a, b)]');
  });
});

describe('refs and vars', () => {
  it('dots and brackets', () => {
    expect(term('a.b[0]["c"][x]')).toBe('ref(a, "b", 0, "c", x)');
    expect(term('input')).toBe('ref(input)');
    expect(term('data.x.y')).toBe('ref(data, "x", "y")');
    expect(show(parseRef('data.a.b[0]'))).toBe('ref(data, "a", "b", 0)');
    expect(() => parseRef('1')).toThrow(RegoParseError);
  });
  it('refs over calls and composites', () => {
    expect(term('f(x).y')).toBe('ref(call(ref(f), x), "y")');
    expect(term('[1,2][0]')).toBe('ref([1, 2], 0)');
    expect(term('{"a": 1}.a')).toBe('ref({"a": 1}, "a")');
  });
  it('keywords may follow a dot', () => {
    expect(term('input.if.not.in')).toBe('ref(input, "if", "not", "in")');
  });
  it('whitespace breaks refs: `a [0]` is not a ref', () => {
    expect(() => parseTerm('a [0]')).toThrow(RegoParseError);
    expect(() => parseTerm('a. b')).toThrow(/expected identifier/);
  });
  it('wildcards become $0, $1, ... in order', () => {
    expect(query('x := a[_][_]; b[_]')).toEqual(['expr(ref(assign), x, ref(a, $0, $1))', 'ref(b, $2)']);
  });
  it('illegal ref heads', () => {
    expect(() => parseTerm('"a".b')).toThrow(/illegal ref \(head cannot be string\)/);
  });
});

describe('operators', () => {
  it('binary operators and OPA precedence', () => {
    expect(query('x + 1 * 2 == 3')).toEqual(['expr(ref(equal), call(ref(plus), x, call(ref(mul), 1, 2)), 3)']);
    expect(query('a - b - c')).toEqual(['expr(ref(minus), call(ref(minus), a, b), c)']);
    expect(query('a | b & c')).toEqual(['expr(ref(or), a, call(ref(and), b, c))']);
    expect(query('a == b | c')).toEqual(['expr(ref(equal), a, call(ref(or), b, c))']);
    expect(query('x / y % 2 < 1')).toEqual(['expr(ref(lt), call(ref(rem), call(ref(div), x, y), 2), 1)']);
    for (const [op, name] of [['!=', 'neq'], ['<=', 'lte'], ['>', 'gt'], ['>=', 'gte']]) {
      expect(query(`a ${op} b`)).toEqual([`expr(ref(${name}), a, b)`]);
    }
  });
  it('assignment and unification only at expression level', () => {
    expect(query('x := 1')).toEqual(['expr(ref(assign), x, 1)']);
    expect(query('[x, y] = [1, 2]')).toEqual(['expr(ref(eq), [x, y], [1, 2])']);
    expect(() => parseQuery('f(x := 1)')).toThrow(RegoParseError);
  });
  it('`in` is membership, lowest precedence, with key/value form', () => {
    expect(query('x in xs')).toEqual(['expr(ref(internal, "member_2"), x, xs)']);
    expect(query('k, v in xs')).toEqual(['expr(ref(internal, "member_3"), k, v, xs)']);
    expect(query('1 + 1 in xs == ys')).toEqual(['expr(ref(internal, "member_2"), call(ref(plus), 1, 1), call(ref(equal), xs, ys))']);
    expect(query('f(x in xs)')).toEqual(['expr(ref(f), call(ref(internal, "member_2"), x, xs))']);
  });
  it('negative numbers; unary minus before a var or ref is minus(0, x), before anything else an error, as in OPA', () => {
    expect(query('x := -1')).toEqual(['expr(ref(assign), x, -1)']);
    expect(query('x - 1')).toEqual(['expr(ref(minus), x, 1)']);
    expect(query('x := -y')).toEqual(['expr(ref(assign), x, call(ref(minus), 0, y))']);
    expect(() => parseQuery('x := -[1]')).toThrow(/expected number/);
  });
  it('parentheses group', () => {
    expect(query('(1 + 2) * 3')).toEqual(['expr(ref(mul), call(ref(plus), 1, 2), 3)']);
    expect(() => parseQuery('(1 + 2')).toThrow(/non-terminated expression/);
  });
});

describe('calls', () => {
  it('expression calls are term lists, nested calls are call terms', () => {
    expect(query('count(x, n)')).toEqual(['expr(ref(count), x, n)']);
    expect(query('array.concat(a, [f(1)])')).toEqual(['expr(ref(array, "concat"), a, [call(ref(f), 1)])']);
    expect(query('data.a.f(x)')).toEqual(['expr(ref(data, "a", "f"), x)']);
    expect(query('x := time.now_ns()')).toEqual(['expr(ref(assign), x, call(ref(time, "now_ns")))']);
  });
});
