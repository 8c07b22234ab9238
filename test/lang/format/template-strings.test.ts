// opa fmt on template strings: written back as $"..." / $`...`, text re-escaped,
// expressions formatted, constants in braces folded into the text as OPA's AST does.

import { describe, expect, it } from 'vitest';
import { formatText } from '../../../src/lang/index.js';
import { fmt, lines } from './helpers.js';

describe('template strings: formatting', () => {
  it('round-trips templates with expressions, escapes and raw text', () => {
    const src = lines(
      'package p',
      '',
      'a := $"Hello {input.name}!"',
      '',
      'b := $"esc \\{x} \\"q\\" tab\\t }"',
      '',
      'c := $`raw \\n \\{y}',
      'next {input.x}`',
      '',
      'd := $"{$"in {input.y}"} {[x | x := [1, 2][_]]} {{"k": "}"}}"',
      '',
      'e contains $"user {u}" if some u in input.users',
    );
    expect(fmt(src)).toBe(src);
  });

  it('formats the expressions inside braces', () => {
    expect(fmt('package p\n\nq := $"{  input.a+1 } {count( input.xs )} {x   in   input.s}"\n')).toBe(
      lines('package p', '', 'q := $"{input.a + 1} {count(input.xs)} {x in input.s}"'),
    );
  });

  it('folds constants written in braces into the text, as opa fmt does', () => {
    expect(formatText('package p\n\nq := $"n={1} s={"a{b"} b={true} z={null}"\n')).toBe(
      lines('package p', '', 'q := $"n=1 s=a\\{b b=true z=null"'),
    );
  });

  it('keeps a template string used as a body expression', () => {
    expect(fmt('package p\n\nq if {\n\t$"x {input.y}"\n}\n')).toBe(lines('package p', '', 'q if {', '\t$"x {input.y}"', '}'));
  });
});
