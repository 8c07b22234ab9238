// Unary minus before a var, ref or call: `-x` is minus(0, x), as OPA's parser builds it;
// `-1` stays a number literal. The formatter writes it back as written.
import { describe, expect, it } from 'vitest';
import { formatModule, moduleToJSON, parseModule } from '../../src/lang/index.js';
import { tree } from './format/tree.js';

// the JSON AST (OPA's shape) of `text` written as a rule value
const json = (text: string) => JSON.parse(JSON.stringify(moduleToJSON(parseModule(`package p\nv := ${text}\n`), {}))).rules[0].head.value;
const minus = (operand: unknown) => ({ type: 'call', value: [{ type: 'ref', value: [{ type: 'var', value: 'minus' }] }, { type: 'number', value: 0 }, operand] });

describe('unary minus', () => {
  it('is minus(0, operand) before a var, ref or call, and a number before digits', () => {
    expect(json('-x')).toEqual(minus({ type: 'var', value: 'x' }));
    expect(json('-input.n')).toEqual(minus({ type: 'ref', value: [{ type: 'var', value: 'input' }, { type: 'string', value: 'n' }] }));
    expect(json('-f(1)')).toEqual(minus({ type: 'call', value: [{ type: 'ref', value: [{ type: 'var', value: 'f' }] }, { type: 'number', value: 1 }] }));
    expect(json('-1')).toEqual({ type: 'number', value: -1 });
    expect(json('-.5')).toEqual({ type: 'number', value: -0.5 });
  });

  it('binds tighter than every binary operator', () => {
    expect(json('-x * 2')).toEqual({
      type: 'call',
      value: [{ type: 'ref', value: [{ type: 'var', value: 'mul' }] }, minus({ type: 'var', value: 'x' }), { type: 'number', value: 2 }],
    });
    expect(json('a - -b').value[2]).toEqual(minus({ type: 'var', value: 'b' }));
    expect(json('a - (b + -c)').value[2].value[2]).toEqual(minus({ type: 'var', value: 'c' }));
  });

  it('is still an error before anything but a number, a var or a ref', () => {
    for (const bad of ['x := -[1]', 'x := -"s"', 'x := -(1)', 'x := -true', 'x := -{1}'])
      expect(() => parseModule(`package p\n${bad}\n`), bad).toThrow(/expected number/);
  });

  it('formats back to -x (idempotent, same tree), and keeps an explicit 0 - x', () => {
    const src = 'package p\n\na := -input.n\n\nb := -x * 2 if x := 3\n\nc := a1 - (b1 + -c1) if {\n\ta1 := 1\n\tb1 := 2\n\tc1 := 3\n}\n\nd := 0 - input.n\n\ne := [-1, -input.arr[0], -f(2)]\n\nf(v) := v\n';
    const m = parseModule(src);
    const out = formatModule(m);
    expect(out).toBe(src);
    expect(tree(parseModule(out))).toEqual(tree(m));
  });
});
