// Template strings evaluated end to end: how each kind of value is printed, undefined
// placeholders, escapes, nesting, and the conflict error for several values.

import { describe, expect, it } from 'vitest';
import { Regolith, RegoEvalError } from '../../src/index.js';

const policy = `package t

name := "world"

hello := $"Hello {name}!"

scalars := $"n={1} f={2.5} big={12345678901234567890} b={true} z={null} s={"q"} e={""}"

composites := $"a={[1, "x"]} o={{"k": "v", "n": 1}} s={{3, 1, 2}} empty={set()}"

missing := $"x={input.nope}, y={data.t.none}"

raw := $\`raw \\n {name} \\{literal}
second line\`

escapes := $"esc \\{x} \\"q\\" tab\\t brace } slash \\/"

arith := $"{x}" if x := 1 + 2

nested := $"{$"inner {name}"} and {[x | x := [1, 2][_]]} and {{"a": "}"}}"

calls := $"{1 == 2} {count([1, 2])} {name == "world"} {upper(name)} {"b" in {"a", "b"}}"

many := $"{input.xs[_]}"

f(x) := $"f({x})"

fn := f({"a": [1]})

msgs contains $"user {u}" if some u in ["bob", "alice"]

as_expr if $"x"
`;

const rego = new Regolith().addModule('t.rego', policy);
const get = (rule: string, input: unknown = {}) => rego.decide(`t/${rule}`, input);

describe('template strings: evaluation', () => {
  it('prints strings unquoted', () => {
    expect(get('hello')).toBe('Hello world!');
  });

  it('prints other values as OPA prints them', () => {
    expect(get('scalars')).toBe('n=1 f=2.5 big=12345678901234567890 b=true z=null s=q e=');
    expect(get('composites')).toBe('a=[1, "x"] o={"k": "v", "n": 1} s={1, 2, 3} empty=set()');
    expect(get('fn')).toBe('f({"a": [1]})');
  });

  it('prints <undefined> for a placeholder without a value and stays defined', () => {
    expect(get('missing')).toBe('x=<undefined>, y=<undefined>');
  });

  it('handles escapes, raw templates, nested templates and braces in strings', () => {
    expect(get('raw')).toBe('raw \\n world {literal}\nsecond line');
    expect(get('escapes')).toBe('esc {x} "q" tab\t brace } slash /');
    expect(get('nested')).toBe('inner world and [1, 2] and {"a": "}"}');
    expect(get('arith')).toBe('3');
  });

  it('evaluates operators and calls to their value', () => {
    expect(get('calls')).toBe('false 2 true WORLD true');
  });

  it('works in partial set rules and as an expression (always true)', () => {
    expect(get('msgs')).toEqual(['user alice', 'user bob']);
    expect(get('as_expr')).toBe(true);
  });

  it('raises eval_conflict_error when a placeholder has several values', () => {
    expect(get('many', { xs: [7, 7] })).toBe('7');
    try {
      get('many', { xs: [1, 2] });
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(RegoEvalError);
      expect((e as RegoEvalError).code).toBe('eval_conflict_error');
      expect((e as Error).message).toContain('template-strings must not produce multiple outputs');
    }
  });

  it('is available in queries', () => {
    const r = new Regolith().prepare('x := 2; y := $"x is {x}, input is {input}"').evaluate({ input: { a: 1 } });
    expect(r[0]!.bindings).toEqual({ x: 2, y: 'x is 2, input is {"a": 1}' });
  });
});

describe('template strings: capabilities', () => {
  it('lists the template_strings feature, as OPA does', async () => {
    const { currentCapabilities } = await import('../../src/cli/commands/capabilities.js');
    expect(currentCapabilities(false).features).toEqual(['keywords_in_refs', 'rego_v1', 'template_strings']);
    expect(currentCapabilities(true).features).toContain('template_strings');
  });
});
