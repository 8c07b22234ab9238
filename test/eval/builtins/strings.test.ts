import { describe, expect, it } from 'vitest';
import { call, callError, obj } from './fake-context.js';
import { RSet, parseNumber, makeObject, type Value } from '../../../src/value/index.js';

const sp = (fmt: string, ...args: Value[]) => call('sprintf', fmt, args);
const err = callError;

describe('basic string built-ins', () => {
  it('concat joins arrays and sets (sets in sorted order)', () => {
    expect(call('concat', '/', ['', 'foo', 'bar'])).toBe('/foo/bar');
    expect(call('concat', ',', RSet.of('b', 'a', 'c'))).toBe('a,b,c');
    expect(err('concat', ',', ['a', 1]).message).toBe('operand 2 must be array of strings but got array containing number');
    expect(err('concat', ',', 'x').message).toBe('operand 2 must be one of {set, array} but got string');
  });
  it('contains / startswith / endswith', () => {
    expect(call('contains', 'abcdefgh', 'defg')).toBe(true);
    expect(call('contains', 'abcdefgh', 'ac')).toBe(false);
    expect(call('startswith', 'abcdefgh', 'abcd')).toBe(true);
    expect(call('endswith', 'abcdefgh', 'fg')).toBe(false);
    const e = err('contains', 1, 'a');
    expect(e.code).toBe('eval_type_error');
    expect(e.message).toBe('operand 1 must be string but got number');
  });
  it('format_int truncates and checks the base', () => {
    expect(call('format_int', 15.5, 16)).toBe('f');
    expect(call('format_int', -15.5, 2)).toBe('-1111');
    expect(call('format_int', parseNumber('123456789123456789123')!, 10)).toBe('123456789123456789123');
    const e = err('format_int', 4.1, 199);
    expect(e.code).toBe('eval_type_error');
    expect(e.message).toBe('operand 2 must be one of {2, 8, 10, 16}');
  });
  it('indexof / indexof_n count code points', () => {
    expect(call('indexof', 'abcabcabcdefgh', 'cde')).toBe(8);
    expect(call('indexof', 'μx', 'x')).toBe(1);
    expect(call('indexof', '🍧🍨🧁🍰🍮', '🍮')).toBe(4);
    expect(call('indexof', 'abc', 'z')).toBe(-1);
    expect(call('indexof_n', 'dogcatdogcat', 'cat')).toEqual([3, 9]);
    expect(call('indexof_n', '😇😀😇😀😇😀', '😀')).toEqual([1, 3, 5]);
    expect(call('indexof_n', 'dogcat', 'rabbit')).toEqual([]);
  });
  it('lower / upper map runes with simple case mappings', () => {
    expect(call('lower', 'AbCdEf')).toBe('abcdef');
    expect(call('upper', 'AbCdEf')).toBe('ABCDEF');
    expect(call('upper', 'straße')).toBe('STRAßE');
    expect(call('lower', 'ÅÄÖ')).toBe('åäö');
  });
  it('replace / split follow Go semantics', () => {
    expect(call('replace', 'foo...bar', '..', ',,')).toBe('foo,,.bar');
    expect(call('replace', 'ab', '', '-')).toBe('-a-b-');
    expect(call('split', 'foo.bar.baz', '.')).toEqual(['foo', 'bar', 'baz']);
    expect(call('split', '', '.')).toEqual(['']);
    expect(call('split', 'a😀', '')).toEqual(['a', '😀']);
  });
  it('strings.split_n follows strings.SplitN', () => {
    expect(call('strings.split_n', 'a,b,c', ',', 2)).toEqual(['a', 'b,c']);
    expect(call('strings.split_n', 'a,b,c', ',', -1)).toEqual(['a', 'b', 'c']);
    expect(call('strings.split_n', 'a,b,c', ',', 0)).toEqual([]);
    expect(call('strings.split_n', 'abc', '', 2)).toEqual(['a', 'bc']);
  });
  it('strings.count, reverse, replace_n', () => {
    expect(call('strings.count', 'cheese', 'e')).toBe(3);
    expect(call('strings.count', 'five', '')).toBe(5);
    expect(call('strings.reverse', '1😀𝛾')).toBe('𝛾😀1');
    expect(call('strings.replace_n', obj({ '<': '&lt;', '>': '&gt;' }), '<a> b')).toBe('&lt;a&gt; b');
    // Keys are tried in sorted order at each position.
    expect(call('strings.replace_n', obj({ a: '1', ab: '2' }), 'abab')).toBe('1b1b');
    expect(err('strings.replace_n', obj({ a: 1 }), 'x').message).toBe('operand 1 non-string value found in pattern object');
    expect(err('strings.replace_n', makeObject([[1, 'x']]), 'x').message).toBe('operand 1 non-string key found in pattern object');
  });
  it('substring works on code points', () => {
    expect(call('substring', 'abcdefgh', 2, 3)).toBe('cde');
    expect(call('substring', 'åäö', 0, 2)).toBe('åä');
    expect(call('substring', 'aåäö', 2, -1)).toBe('äö');
    expect(call('substring', 'abcdefgh', 2, 10000)).toBe('cdefgh');
    expect(call('substring', 'åäö', 3, -1)).toBe('');
    const e = err('substring', 'aaa', -1, -1);
    expect(e.code).toBe('eval_builtin_error');
    expect(e.message).toBe('negative offset');
    expect(err('substring', 'aaa', 1.5, 1).message).toBe('operand 2 must be integer number but got floating-point number');
  });
  it('trim family', () => {
    expect(call('trim', '...foo.bar...', '.fr')).toBe('oo.ba');
    expect(call('trim_left', '...foo', '.')).toBe('foo');
    expect(call('trim_right', 'foo...', '.')).toBe('foo');
    expect(call('trim_prefix', 'foobar', 'foo')).toBe('bar');
    expect(call('trim_prefix', 'foobar', 'bar')).toBe('foobar');
    expect(call('trim_suffix', 'foobar', 'bar')).toBe('foo');
    expect(call('trim_space', ' \t\n foo \u00a0\u3000')).toBe('foo');
    expect(call('trim_space', '\ufefffoo')).toBe('\ufefffoo');
  });
  it('any_prefix_match / any_suffix_match', () => {
    expect(call('strings.any_prefix_match', ['a/b/c', 'e/f/g'], ['x/', 'e/'])).toBe(true);
    expect(call('strings.any_prefix_match', 'a/b/c', RSet.of('b'))).toBe(false);
    expect(call('strings.any_suffix_match', RSet.of('a/b/c'), '/c')).toBe(true);
    expect(err('strings.any_prefix_match', [1], ['a']).message).toBe('operand 1 must be array of strings but got array containing number');
    expect(err('strings.any_suffix_match', ['a'], 1).message).toBe('operand 2 must be one of {string, set, array} but got number');
  });
  it('internal.template_string joins single values', () => {
    expect(call('internal.template_string', ['a=', RSet.of(1), ', b=', RSet.of('x'), ' ', RSet.of()])).toBe('a=1, b=x <undefined>');
    expect(call('internal.template_string', [RSet.of([1, 'a'])])).toBe('[1, "a"]');
  });
});

describe('sprintf', () => {
  it('formats strings, ints and floats like Go', () => {
    expect(sp('hi')).toBe('hi');
    expect(sp('hi %s', 'there')).toBe('hi there');
    expect(sp('hi %02d', 5)).toBe('hi 05');
    expect(sp('hi %02X.%02X', 127, 1)).toBe('hi 7F.01');
    expect(sp('hi %.2f', 3.1415)).toBe('hi 3.14');
    expect(sp('hi %s', true)).toBe('hi true');
    expect(sp('hi %v', ['there', 5, 3.14])).toBe('hi ["there", 5, 3.14]');
    expect(sp('%v', parseNumber('2e308')!)).toBe('2e308');
    expect(sp('%s', parseNumber('123456789123456789123')!)).toBe('123456789123456789123');
    expect(sp('%d', parseNumber('1208925819614629174706175')!)).toBe('1208925819614629174706175');
  });
  it('reports bad verbs, missing and extra arguments', () => {
    expect(sp('%d', 'x')).toBe('%!d(string=x)');
    expect(sp('%s', 5)).toBe('%!s(int=5)');
    expect(sp('%d', 1.5)).toBe('%!d(float64=1.5)');
    expect(sp('%d %d', 1)).toBe('1 %!d(MISSING)');
    expect(sp('%d', 1, 'a')).toBe('1%!(EXTRA string=a)');
    expect(sp('100%%')).toBe('100%');
    expect(sp('%')).toBe('%!(NOVERB)');
    expect(sp('%T %T %T %T', 1, 1.5, 'a', [1])).toBe('int float64 string string');
  });
  it('handles widths, precisions and flags', () => {
    expect(sp('[%5s][%-5s]', 'ab', 'ab')).toBe('[   ab][ab   ]');
    expect(sp('[%.2s]', 'åäö')).toBe('[åä]');
    expect(sp('%+d % d %x %#x %#o %b', 5, 5, 255, 255, 8, 5)).toBe('+5  5 ff 0xff 010 101');
    expect(sp('%08.3f|%-8.2f|%+.1e', -3.14159, 2.5, 12345.678)).toBe('-003.142|2.50    |+1.2e+04');
    expect(sp('%e %E %g %G', 1234.5678, 0.000012, 0.00001234, 1e21)).toBe('1.234568e+03 1.200000E-05 1.234e-05 1E+21');
    expect(sp('%v %v %v', 1.5, 1234567.5, 0.00001)).toBe('1.5 1.2345675e+06 1e-05');
    expect(sp('%.0f %.0f %.1f', 0.5, 2.5, 0.25)).toBe('0 2 0.2');
    expect(sp('%q %x %X', 'a"b\n', 'hi', 'hi')).toBe('"a\\"b\\n" 6869 6869');
    expect(sp('%c %q %U', 65, 65, 65)).toBe("A 'A' U+0041");
    expect(sp('%*d|%-*d', 4, 7, 3, 7)).toBe('   7|7  ');
    expect(sp('%[2]s %[1]s', 'a', 'b')).toBe('b a');
    expect(sp('%t', true)).toBe('%!t(string=true)');
  });
});

describe('strings.render_template', () => {
  const render = (t: string, v: Record<string, Value>) => call('strings.render_template', t, obj(v));
  it('renders fields, conditionals and ranges', () => {
    expect(render('Hello {{.name}}!', { name: 'world' })).toBe('Hello world!');
    expect(render('{{range $i, $x := .xs}}{{$i}}={{$x}} {{end}}', { xs: ['a', 'b'] })).toBe('0=a 1=b ');
    expect(render('{{if .ok}}yes{{else}}no{{end}}', { ok: false })).toBe('no');
    expect(render('{{if eq .n 1}}one{{else if eq .n 2}}two{{else}}many{{end}}', { n: 2 })).toBe('two');
    expect(render('{{range .xs}}[{{.}}]{{else}}none{{end}}', { xs: [] })).toBe('none');
    expect(render('{{with .o}}{{.a}}{{end}} {{.o}} {{.l}}', { o: obj({ a: 1, b: [1, 2] }), l: [1, 'x'] })).toBe('1 map[a:1 b:[1 2]] [1 x]');
    expect(render('  {{- .a -}}  ', { a: 'x' })).toBe('x');
    expect(render('{{len .xs}} {{index .xs 1}} {{.s | printf "%q"}}', { xs: [1, 2], s: 'q' })).toBe('2 2 "q"');
  });
  it('fails on missing keys', () => {
    const e = err('strings.render_template', '{{.x}}', obj({}));
    expect(e.code).toBe('eval_builtin_error');
    expect(e.message).toBe('template: template:1:2: executing "template" at <.x>: map has no entry for key "x"');
  });
});
