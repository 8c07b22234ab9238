// Error cases of the glob and regex built-ins, against what OPA v1.20 answers: Go's
// regexp/syntax errors (regex.*), gobwas/glob v0.2.3's (glob.match) and
// yashtewari/glob-intersection v0.2.0's (regex.globs_match). Each malformed call is an
// eval_builtin_error "<name>: <text>" under strict-builtin-errors and undefined without it.
import { describe, expect, it } from 'vitest';
import { Regolith, RegoEvalError, toJSONText } from '../../../src/index.js';

const lit = (v: unknown): string => JSON.stringify(v);
const callText = (name: string, args: unknown[]): string => `${name}(${args.map(lit).join(', ')})`;

function evalText(expr: string, strict = false): string {
  const res = new Regolith().prepare(`x := ${expr}`).evaluateRaw({ strictBuiltinErrors: strict });
  return res.length ? toJSONText(res[0]!.bindings.get('x')!) : 'undefined';
}

function evalError(expr: string): { code: string; message: string } {
  try {
    const v = evalText(expr, true);
    return { code: 'none', message: v };
  } catch (e) {
    if (e instanceof RegoEvalError) return { code: e.code, message: e.rawMessage };
    throw e;
  }
}

/** Asserts a built-in call fails as OPA's does, and is undefined without strict mode. */
function expectFails(name: string, args: unknown[], message: string, code = 'eval_builtin_error'): void {
  const expr = callText(name, args);
  expect(evalError(expr), expr).toEqual({ code, message: `${name}: ${message}` });
  expect(evalText(expr), expr).toBe('undefined');
}

const nested = (n: number): string => '('.repeat(n) + 'a' + ')'.repeat(n);

// Go's regexp/syntax: pattern -> error text.
const badRegexes: [string, string][] = [
  ['[a', 'missing closing ]: `[a`'],
  ['x[a', 'missing closing ]: `[a`'],
  ['[]', 'missing closing ]: `[]`'],
  ['[^]', 'missing closing ]: `[^]`'],
  ['[a-', 'missing closing ]: `[a-`'],
  ['(abc', 'missing closing ): `(abc`'],
  ['(a|b', 'missing closing ): `(a|b`'],
  ['a)', 'unexpected ): `a)`'],
  ['x(a))', 'unexpected ): `x(a))`'],
  ['a**', 'invalid nested repetition operator: `**`'],
  ['a*?*', 'invalid nested repetition operator: `*?*`'],
  ['a++', 'invalid nested repetition operator: `++`'],
  ['x{2}{3}', 'invalid nested repetition operator: `{2}{3}`'],
  ['*a', 'missing argument to repetition operator: `*`'],
  ['*?', 'missing argument to repetition operator: `*?`'],
  ['(*)', 'missing argument to repetition operator: `*`'],
  ['a|*', 'missing argument to repetition operator: `*`'],
  ['(?i)+', 'missing argument to repetition operator: `+`'],
  ['{2}', 'missing argument to repetition operator: `{2}`'],
  ['a{1001}', 'invalid repeat count: `{1001}`'],
  ['a{2,1}', 'invalid repeat count: `{2,1}`'],
  ['a{1,1001}', 'invalid repeat count: `{1,1001}`'],
  ['(a{1000}){2}', 'invalid repeat count: `{2}`'],
  ['((a{10}){10}){11}', 'invalid repeat count: `{11}`'],
  ['[z-a]', 'invalid character class range: `z-a`'],
  ['[[:foo:]]', 'invalid character class range: `[:foo:]`'],
  ['\\p{Foo}', 'invalid character class range: `\\p{Foo}`'],
  ['\\p{Greek', 'invalid character class range: `\\p{Greek`'],
  ['\\pX', 'invalid character class range: `\\pX`'],
  ['\\p', 'invalid character class range: `\\p`'],
  ['[\\p{Foo}]', 'invalid character class range: `\\p{Foo}`'],
  ['\\8', 'invalid escape sequence: `\\8`'],
  ['(a)\\1', 'invalid escape sequence: `\\1`'],
  ['\\C', 'invalid escape sequence: `\\C`'], // RE2 (C++) accepts \C, Go does not
  ['\\cA', 'invalid escape sequence: `\\c`'], // accepted by the re2 package
  ['\\u0041', 'invalid escape sequence: `\\u`'], // accepted by the re2 package
  ['\\e', 'invalid escape sequence: `\\e`'],
  ['\\Z', 'invalid escape sequence: `\\Z`'],
  ['[\\b]', 'invalid escape sequence: `\\b`'],
  ['[a-\\d]', 'invalid escape sequence: `\\d`'],
  ['\\é', 'invalid escape sequence: `\\é`'],
  ['\\xZ', 'invalid escape sequence: `\\xZ`'],
  ['\\x{}', 'invalid escape sequence: `\\x{}`'],
  ['\\x{110000}', 'invalid escape sequence: `\\x{110000`'],
  ['\\x{41', 'invalid escape sequence: `\\x{41`'],
  ['a\\', 'trailing backslash at end of expression: ``'],
  ['(?z)', 'invalid or unsupported Perl syntax: `(?z`'],
  ['(?', 'invalid or unsupported Perl syntax: `(?`'],
  ['(?i', 'invalid or unsupported Perl syntax: `(?i`'],
  ['(?P=n)', 'invalid or unsupported Perl syntax: `(?P`'],
  ['(?!a)', 'invalid or unsupported Perl syntax: `(?!`'],
  ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`'],
  ['(?i-)', 'invalid or unsupported Perl syntax: `(?i-)`'],
  ['(?--i)', 'invalid or unsupported Perl syntax: `(?--`'],
  ['(?<=a)b', 'invalid named capture: `(?<=a)b`'],
  ['(?P<a-b>x)', 'invalid named capture: `(?P<a-b>`'],
  ['(?P<>x)', 'invalid named capture: `(?P<>`'],
  ['(?P<name', 'invalid named capture: `(?P<name`'],
  [nested(1000), `expression nests too deeply: \`${nested(1000)}\``], // RE2 accepts it
];

describe('regex built-ins reject what Go rejects, with its messages', () => {
  it.each(badRegexes)('%s', (pattern, text) => {
    const msg = `error parsing regexp: ${text}`;
    expectFails('regex.match', [pattern, 'a'], msg);
    expectFails('re_match', [pattern, 'a'], msg);
    expectFails('regex.find_n', [pattern, 'a', -1], msg);
    expectFails('regex.find_all_string_submatch_n', [pattern, 'a', -1], msg);
    expectFails('regex.split', [pattern, 'a'], msg);
    expectFails('regex.replace', ['a', pattern, 'b'], msg);
    expect(evalText(callText('regex.is_valid', [pattern]))).toBe('false');
  });
});

describe('patterns Go accepts still answer', () => {
  const valid: [string, string, string][] = [
    ['(?P<a>x)(?P<a>y)', 'xy', 'true'], // duplicate names: RE2 refuses them, Go does not
    ['(?<n>a)', 'a', 'true'],
    ['a{1000}', 'a'.repeat(1000), 'true'],
    ['(a{10}){100}', 'a'.repeat(1000), 'true'],
    ['^*a', 'a', 'true'],
    ['(?:)*', '', 'true'],
    ['a{,2}', 'a{,2}', 'true'], // not a repetition: literal text
    ['x{2}{', 'xx{', 'true'],
    ['[]a]', ']', 'true'],
    ['[^]a]', 'b', 'true'],
    ['[[:^alpha:]]', '1', 'true'],
    ['\\p{^Greek}', 'a', 'true'],
    ['\\pN', '5', 'true'],
    ['\\Q*+\\E', '*+', 'true'],
    ['\\z', '', 'true'],
    ['\\012', '\n', 'true'],
    ['\\x{1F600}', '😀', 'true'],
    ['[\\d-z]', '-', 'true'],
  ];
  it.each(valid)('%s', (pattern, value, want) => {
    expect(evalText(callText('regex.match', [pattern, value]), true)).toBe(want);
    expect(evalText(callText('regex.is_valid', [pattern]))).toBe('true');
  });
  it('999 nested groups are fine', () => {
    expect(evalText(callText('regex.is_valid', [nested(999)]))).toBe('true');
    expect(evalText(callText('regex.match', [nested(999), 'a']), true)).toBe('true');
  });
  it('regex.replace with a name used twice takes the group that matched (Go Expand)', () => {
    expect(evalText(callText('regex.replace', ['ab', '(?P<x>a)|(?P<x>b)', '[${x}]']), true)).toBe('"[a][b]"');
  });
});

describe('regex.template_match errors', () => {
  it('reports the start delimiter length for a bad end delimiter, as OPA does', () => {
    expectFails('regex.template_match', ['a', 'a', '{', '}}'], 'end delimiter has to be exactly one character long but is 1 long');
    expectFails('regex.template_match', ['a', 'a', '{{', '}'], 'start delimiter has to be exactly one character long but is 2 long');
    expectFails('regex.template_match', ['a', 'a', 'é', '}'], 'start delimiter has to be exactly one character long but is 2 long');
  });
  it('unbalanced braces are quoted with Go %q', () => {
    expectFails('regex.template_match', ['a{', 'a', '{', '}'], 'unbalanced braces in "a{"');
    expectFails('regex.template_match', ['a}', 'a', '{', '}'], 'unbalanced braces in "a}"');
    expectFails('regex.template_match', ['\u0001{', 'a', '{', '}'], 'unbalanced braces in "\\x01{"');
  });
  it('a bad expression in a placeholder fails with the anchored text Go compiled', () => {
    expectFails('regex.template_match', ['urn:{[a}', 'urn:a', '{', '}'], 'error parsing regexp: missing closing ]: `[a$`');
    expectFails('regex.template_match', ['urn:<\\C>', 'urn:a', '<', '>'], 'error parsing regexp: invalid escape sequence: `\\C`');
  });
});

describe('regex.globs_match: glob-intersection errors', () => {
  const invalid = (input: string, pos: number, what: string) => `input:${input}, pos:${pos}, ${what}: the input provided is invalid`;
  const cases: [string, string][] = [
    [']', invalid(']', 1, "set-close ']' with no preceding '['")],
    ['a]', invalid('a]', 2, "set-close ']' with no preceding '['")],
    ['*a', invalid('*a', 1, "flag '*' must be preceded by a non-flag")],
    ['+', invalid('+', 1, "flag '+' must be preceded by a non-flag")],
    ['a**', invalid('a**', 3, "flag '*' must be preceded by a non-flag")],
    ['a*+', invalid('a*+', 3, "flag '+' must be preceded by a non-flag")],
    ['a\\', invalid('a\\', 1, 'input ends with a \\ (escape) character')],
    ['[', invalid('[', 1, 'found [ without matching ]')],
    ['[abc', invalid('[abc', 4, 'found [ without matching ]')],
    ['[a\\', invalid('[a\\', 2, 'input ends with a \\ (escape) character')],
    ['[-a]', invalid('[-a]', 2, "range character '-' must be preceded by a Unicode character")],
    ['[a-b-c]', invalid('[a-b-c]', 5, "range character '-' must be preceded by a Unicode character")],
    ['[a-]', invalid('[a-]', 3, "range character '-' must be followed by a Unicode character")],
    ['[a-b', invalid('[a-b', 3, "range character '-' must be followed by a Unicode character")],
    ['[a--b]', invalid('[a--b]', 4, "range character '-' cannot be followed by a special symbol")],
    ['[a-]]', invalid('[a-]]', 4, "range character '-' cannot be followed by a special symbol")],
    ['[z-a]', invalid('[z-a]', 4, "range is out of order: 'a' comes before 'z' in Unicode")],
    ['é]', invalid('é]', 2, "set-close ']' with no preceding '['")], // positions count runes
    // The input is part of Go's format string: a % in it is read as a verb.
    ['%]', "input:%!](*errors.errorString=&{the input provided is invalid}), pos:2, set-close ']' with no preceding '[': %!w(MISSING)"],
  ];
  it.each(cases)('%s', (pattern, message) => {
    expectFails('regex.globs_match', [pattern, 'a'], message);
    expectFails('regex.globs_match', ['a', pattern], message);
  });
  it('the first operand is checked first', () => {
    expectFails('regex.globs_match', [']', '*'], invalid(']', 1, "set-close ']' with no preceding '['"));
  });
  it('everything else is a plain character', () => {
    const gm = (a: string, b: string) => evalText(callText('regex.globs_match', [a, b]), true);
    expect(gm('a?', 'a?')).toBe('true'); // ? is not a flag
    expect(gm('a?', 'a')).toBe('false');
    expect(gm('[^a]', '^')).toBe('true'); // no negated sets: ^ is a member
    expect(gm('[^a]', 'a')).toBe('true');
    expect(gm('\\d', 'd')).toBe('true'); // an escape is the character itself
    expect(gm('\\d', '1')).toBe('false');
    expect(gm('(a|b)', '(a|b)')).toBe('true');
    expect(gm('{x}$', '{x}$')).toBe('true');
    expect(gm('\\]', 'x\\]')).toBe('false');
    expect(gm('a\\]', '.\\]')).toBe('true');
    expect(gm('[a\\-c]', '-')).toBe('true');
    expect(gm('a.*z', 'abc+z')).toBe('true');
  });
});

describe('glob.match: gobwas/glob errors', () => {
  const cases: [string, string][] = [
    ['[]', 'could not parse range'],
    ['[!]', 'could not parse range'],
    ['a[]b', 'could not parse range'],
    ['[a', 'unexpected end of input'],
    ['[!', 'unexpected end of input'],
    ['[a-', 'unexpected end of input'],
    ['[a-]', 'unexpected end of input'],
    ['[a-b', 'unexpected end of input'],
    ['[z-a', 'unexpected end of input'], // the lexer's error wins over the range check
    ['[\\]', 'unexpected end of input'],
    ['[a-bc]', 'expected close range character'],
    ['[a-b-c]', 'expected close range character'],
    ['[z-a]', "hi character 'a' should be greater than lo 'z'"],
    ['[a-]]', "hi character ']' should be greater than lo 'a'"],
    ['ab\ufffd', 'could not read rune'],
    ['{a,\ufffd}', 'could not read rune'],
  ];
  it.each(cases)('%s', (pattern, message) => {
    expectFails('glob.match', [pattern, [], 'a'], message);
    expectFails('glob.match', [pattern, null, 'a'], message);
  });
  it('delimiters must be single runes (a type error)', () => {
    expectFails('glob.match', ['*', ['ab'], 'x'], 'operand 2 must be array of runes but got array containing string', 'eval_type_error');
    expectFails('glob.match', ['*', [''], 'x'], 'operand 2 must be array of runes but got array containing string', 'eval_type_error');
    expect(evalText(callText('glob.match', ['*', ['é'], 'aéb']), true)).toBe('false');
  });
  it('what gobwas/glob lets through still answers', () => {
    const m = (p: string, d: unknown, s: string) => evalText(callText('glob.match', [p, d, s]), true);
    expect(m('{a,b', [], 'b')).toBe('true'); // an unclosed { ends with the pattern
    expect(m('{a,{b,c}', [], 'c')).toBe('true');
    expect(m('a\\', [], 'a')).toBe('true'); // a trailing backslash is dropped
    expect(m('a]b}c,', [], 'a]b}c,')).toBe('true'); // ] } , are text outside [ ] and { }
    expect(m('[\\a-c]', [], 'b')).toBe('false'); // an escape makes [\\a-c] the list a - c
    expect(m('[\\a-c]', [], '-')).toBe('true');
    expect(evalText(callText('glob.match', ['[]a]', [], ']']))).toBe('undefined'); // "could not parse range"
    expect(m('[!a-c]', [], '.')).toBe('true');
    expect(m('{}', [], '')).toBe('true');
    expect(m('[a!]', [], '!')).toBe('true');
  });
  it('glob.quote_meta has no error cases', () => {
    expect(evalText(callText('glob.quote_meta', ['[a]{b}*?\\,!-']), true)).toBe('"\\\\[a\\\\]\\\\{b\\\\}\\\\*\\\\?\\\\\\\\,!-"');
  });
});
