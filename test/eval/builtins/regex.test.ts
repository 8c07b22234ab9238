import { describe, expect, it } from 'vitest';
import { call, callError } from './fake-context.js';
import type { Value } from '../../../src/value/index.js';

const err = callError;

describe('regex built-ins', () => {
  it('regex.match and re_match use RE2 syntax', () => {
    expect(call('regex.match', '^[a-z]+\\d$', 'abc1')).toBe(true);
    expect(call('regex.match', '(?i)ABC', 'xabcx')).toBe(true);
    expect(call('regex.match', '^.$', '😀')).toBe(true);
    expect(call('re_match', 'b+', 'aaa')).toBe(false);
    expect(call('regex.match', 'a$', 'a\n')).toBe(false);
  });
  it('invalid patterns give Go error text', () => {
    const e = err('regex.match', '(abc', 'x');
    expect(e.code).toBe('eval_builtin_error');
    expect(e.message).toBe('error parsing regexp: missing closing ): `(abc`');
    expect(err('regex.match', 'a**', 'x').message).toBe('error parsing regexp: invalid nested repetition operator: `**`');
    expect(err('regex.match', '*a', 'x').message).toBe('error parsing regexp: missing argument to repetition operator: `*`');
    expect(err('regex.match', '[z-a]', 'x').message).toBe('error parsing regexp: invalid character class range: `z-a`');
    expect(err('regex.match', '\\8', 'x').message).toBe('error parsing regexp: invalid escape sequence: `\\8`');
    expect(err('regex.match', 1, 'x').message).toBe('operand 1 must be string but got number');
  });
  it('regex.is_valid', () => {
    expect(call('regex.is_valid', '.*')).toBe(true);
    expect(call('regex.is_valid', '[')).toBe(false);
    expect(call('regex.is_valid', 1)).toBe(false);
  });
  it('regex.find_n and find_all_string_submatch_n', () => {
    expect(call('regex.find_n', '[oa]+', 'foo bar baz', -1)).toEqual(['oo', 'a', 'a']);
    expect(call('regex.find_n', '[oa]+', 'foo bar baz', 2)).toEqual(['oo', 'a']);
    expect(call('regex.find_n', 'x', 'foo', -1)).toEqual([]);
    expect(call('regex.find_n', 'a*', 'baaac', -1)).toEqual(['', 'aaa', '']);
    expect(call('regex.find_all_string_submatch_n', 'a(x*)b', '-ab-axxb-', -1)).toEqual([
      ['ab', ''],
      ['axxb', 'xx'],
    ]);
    expect(call('regex.find_all_string_submatch_n', '(a)|(b)', 'ab', -1)).toEqual([
      ['a', 'a', ''],
      ['b', '', 'b'],
    ]);
    expect(err('regex.find_n', 'a', 'a', 1.5).message).toBe('operand 3 must be integer number but got floating-point number');
  });
  it('regex.replace expands $1 / ${name} like Go', () => {
    expect(call('regex.replace', 'foo bar', 'o+', '0')).toBe('f0 bar');
    expect(call('regex.replace', 'hello world', '(\\w+) (\\w+)', '$2 $1')).toBe('world hello');
    expect(call('regex.replace', 'hello world', '(?P<a>\\w+) (?P<b>\\w+)', '${b}-${a}')).toBe('world-hello');
    // $1x names group "1x", which does not exist.
    expect(call('regex.replace', 'ab', '(a)', '$1x')).toBe('b');
    expect(call('regex.replace', 'ab', '(a)', '$$1')).toBe('$1b');
    expect(call('regex.replace', 'abc', 'x*', '-')).toBe('-a-b-c-');
    expect(call('regex.replace', 'baaac', 'a*', '-')).toBe('-b-c-');
  });
  it('regex.split', () => {
    expect(call('regex.split', '[,;]\\s*', 'a, b;c')).toEqual(['a', 'b', 'c']);
    expect(call('regex.split', ',', '')).toEqual(['']);
    expect(call('regex.split', 'x*', 'abc')).toEqual(['a', 'b', 'c']);
    expect(call('regex.split', ',', 'a,')).toEqual(['a', '']);
  });
  it('regex.template_match', () => {
    expect(call('regex.template_match', 'urn:foo:{.*}', 'urn:foo:bar:baz', '{', '}')).toBe(true);
    expect(call('regex.template_match', 'urn:foo.bar.com:{.*}', 'urn:foo.com:bar:baz', '{', '}')).toBe(false);
    expect(call('regex.template_match', 'urn:foo:<[0-9]{2}>', 'urn:foo:42', '<', '>')).toBe(true);
    expect(err('regex.template_match', 'a{', 'a', '{', '}').message).toBe('unbalanced braces in "a{"');
    expect(err('regex.template_match', 'a', 'a', '{{', '}').message).toBe(
      'start delimiter has to be exactly one character long but is 2 long',
    );
  });
  it('regex.globs_match intersects glob-like patterns', () => {
    expect(call('regex.globs_match', 'a.a.', '.b.b')).toBe(true);
    expect(call('regex.globs_match', '[a-z]+', '[0-9]*')).toBe(false);
    expect(call('regex.globs_match', '[a-z]*', '[0-9]*')).toBe(true); // both match ""
    expect(call('regex.globs_match', '[a-z]+', '[0-9]+')).toBe(false);
    expect(call('regex.globs_match', 'foo.*', '.*bar')).toBe(true);
    expect(call('regex.globs_match', 'foo', 'bar')).toBe(false);
    expect(call('regex.globs_match', '[^a]', 'a')).toBe(true); // glob-intersection sets have no negation: ^ is a member
  });
});

describe('glob built-ins', () => {
  const m = (p: string, d: Value, s: string) => call('glob.match', p, d, s);
  it('matches with delimiters', () => {
    expect(m('*.github.com', ['.'], 'api.github.com')).toBe(true);
    expect(m('*.github.com', ['.'], 'api.cdn.github.com')).toBe(false);
    expect(m('*.github.com', [], 'api.cdn.github.com')).toBe(false);
    expect(m('*hub.com', null, 'api.cdn.github.com')).toBe(true);
    expect(m('api.**.com', ['.'], 'api.cdn.github.com')).toBe(true);
    expect(m('*:github:com', [':'], 'api:github:com')).toBe(true);
    expect(m('*.github.com', ['.'], 'api.not-github.com')).toBe(false);
    expect(m('?at', [], 'cat')).toBe(true);
    expect(m('[ch]at', [], 'hat')).toBe(true);
    expect(m('[!ch]at', [], 'hat')).toBe(false);
    expect(m('[a-c]at', [], 'bat')).toBe(true);
    expect(m('{cat,bat,[fr]at}', [], 'rat')).toBe(true);
    expect(m('{cat,bat}', [], 'fat')).toBe(false);
    expect(m('\\*.x', [], '*.x')).toBe(true);
    expect(m('*/x', ['/'], 'a/b/x')).toBe(false);
  });
  it('validates operands', () => {
    expect(err('glob.match', '*', 'x', 'a').message).toBe('operand 2 must be one of {array, null} but got string');
    expect(err('glob.match', '[a', [], 'a').code).toBe('eval_builtin_error');
  });
  it('quote_meta escapes glob syntax', () => {
    expect(call('glob.quote_meta', '*.github.com')).toBe('\\*.github.com');
    expect(call('glob.quote_meta', '[a]{b}?\\')).toBe('\\[a\\]\\{b\\}\\?\\\\');
  });
});
