// Template strings in the parser: the desugared call the compiler sees, the written
// form kept for fmt, OPA's JSON AST, and parse errors with their locations.

import { describe, expect, it } from 'vitest';
import { moduleToJSON, parseModule, parseQuery, parseTerm, RegoParseError, termToJSON, type CallTerm } from '../../src/lang/index.js';
import { show } from './helpers.js';

function parseError(src: string): { message: string; row: number; col: number } {
  try {
    parseModule(src);
  } catch (e) {
    if (!(e instanceof RegoParseError)) throw e;
    const d = e.errors[0]!;
    expect(d.code).toBe('rego_parse_error');
    return { message: d.message, row: d.location!.row, col: d.location!.col };
  }
  throw new Error('no parse error');
}

describe('template strings: parsing', () => {
  it('desugars to internal.template_string over text and one set comprehension per expression', () => {
    const t = parseTerm('$"Hello {input.name}!"') as CallTerm;
    expect(show(t)).toBe(
      'call(ref(internal, "template_string"), ["Hello ", {$t0 | expr(ref(eq), $t0, ref(input, "name"))}, "!"])',
    );
    expect(t.template?.multiLine).toBe(false);
    expect(t.location).toMatchObject({ row: 1, col: 1, text: '$"Hello {input.name}!"' });
  });

  it('keeps constants written in braces as plain parts, as OPA does', () => {
    const t = parseTerm('$"{1}{"a"}{true}{null}{x}"') as CallTerm;
    expect(show(t.value[1]!)).toBe('[1, "a", true, null, {$t0 | expr(ref(eq), $t0, x)}]');
  });

  it('decodes JSON escapes and \\{ in the double-quoted form; the raw form keeps backslashes', () => {
    expect(show((parseTerm('$"a\\{b} \\"q\\" \\t \\u00e9 }"') as CallTerm).value[1]!)).toBe('["a{b} \\"q\\" \\t é }"]');
    expect(show((parseTerm('$`a\\n\\{b}\nline {x}`') as CallTerm).value[1]!)).toBe('["a\\\\n{b}\\nline ", {$t0 | expr(ref(eq), $t0, x)}]');
    expect((parseTerm('$`x`') as CallTerm).template?.multiLine).toBe(true);
  });

  it('parses any term inside braces: operators, calls, nested templates, braces and quotes', () => {
    const t = parseTerm('$"{a + 1} {count(xs)} {{"k": "}"}} {$"in {y}"} {x in {1}}"') as CallTerm;
    const holes = (t.value[1] as { value: unknown[] }).value.filter((p) => (p as { type: string }).type === 'setcomprehension');
    expect(holes).toHaveLength(5);
    expect(show(t.value[1]!)).toContain('call(ref(plus), a, 1)');
    expect(show(t.value[1]!)).toContain('{"k": "}"}');
    expect(show(t.value[1]!)).toContain('call(ref(internal, "member_2"), x, set(1))');
  });

  it('works in v0 modules and as a rule value, a body expression and an argument', () => {
    const m = parseModule('package p\np = $"a{input.x}"\n', { regoVersion: 'v0' });
    expect(m.rules[0]!.head.value?.type).toBe('call');
    const body = parseQuery('x := $"{1}"; $"y"; startswith($"a{x}", "a")');
    expect(body).toHaveLength(3);
    expect((body[1]!.terms as CallTerm).template).toBeDefined();
  });

  it('gives OPA\'s JSON: a templatestring term with parts (terms and expressions)', () => {
    expect(termToJSON(parseTerm('$"a {x} {1} {a + b}"'))).toEqual({
      type: 'templatestring',
      value: {
        parts: [
          { type: 'string', value: 'a ' },
          { index: 0, terms: { type: 'var', value: 'x' } },
          { type: 'string', value: ' ' },
          { type: 'number', value: 1 },
          { type: 'string', value: ' ' },
          { index: 0, terms: [{ type: 'ref', value: [{ type: 'var', value: 'plus' }] }, { type: 'var', value: 'a' }, { type: 'var', value: 'b' }] },
        ],
      },
    });
    expect(termToJSON(parseTerm('$`a`'))).toEqual({ type: 'templatestring', value: { multi_line: true, parts: [{ type: 'string', value: 'a' }] } });
    const m = moduleToJSON(parseModule('package p\n\nq := $"{input.x}"\n')) as { rules: { head: { value: { type: string } } }[] };
    expect(m.rules[0]!.head.value.type).toBe('templatestring');
  });

  it('locates expressions inside the template, also on later lines', () => {
    const t = parseTerm('$`line\n  {input.x}`') as CallTerm;
    const expr = t.template!.parts[1] as { location: { row: number; col: number; text: string } };
    expect(expr.location).toMatchObject({ row: 2, col: 4, text: 'input.x' });
  });
});

describe('template strings: parse errors', () => {
  it('reports an unterminated template at its start', () => {
    expect(parseError('package p\n\nq := $"abc\n')).toEqual({ message: 'non-terminated string', row: 3, col: 6 });
    expect(parseError('package p\n\nq := $`abc {x}\n')).toEqual({ message: 'non-terminated string', row: 3, col: 6 });
    expect(parseError('package p\n\nq := $"a {x"\n')).toEqual({ message: 'non-terminated string', row: 3, col: 6 });
  });

  it('reports bad expressions where they are', () => {
    expect(parseError('package p\n\nq := $"a {x y} b"\n')).toEqual({ message: 'expected } to end template string expression', row: 3, col: 13 });
    expect(parseError('package p\n\nq := $"a {} b"\n')).toEqual({ message: 'invalid template-string expression', row: 3, col: 11 });
    expect(parseError('package p\n\nq := $"a {x := 1}"\n')).toEqual({ message: "unexpected assignment (':=') in template-string expression", row: 3, col: 11 });
    expect(parseError('package p\n\nq := $"{x = 1}"\n')).toEqual({ message: "unexpected unification ('=') in template-string expression", row: 3, col: 9 });
    expect(parseError('package p\n\nq := $"{not x}"\n')).toEqual({ message: "unexpected negation ('not') in template-string expression", row: 3, col: 9 });
    expect(parseError('package p\n\nq := $"{some x in y}"\n')).toEqual({ message: "unexpected 'some' in template-string expression", row: 3, col: 9 });
    expect(parseError('package p\n\nq := $"{1 +}"\n').row).toBe(3);
  });

  it('rejects illegal escapes and a lone $', () => {
    expect(parseError('package p\n\nq := $"a\\qb"\n')).toMatchObject({ message: 'illegal escape sequence', row: 3 });
    expect(parseError('package p\n\nq := $x\n').message).toBe('illegal token');
  });
});
