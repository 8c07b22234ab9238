import { describe, expect, it } from 'vitest';
import { parseModule } from '../../src/lang/index.js';
import { Regolith } from '../../src/index.js';

// OPA v1 accepts a bodyless function with `:=` (its value is computed from the args);
// this pins that shape and its meaning.
describe('v1 function heads', () => {
  it('parses f(a) := a + 1 without a body and evaluates it', () => {
    const m = parseModule('package a\n\nf(a) := a + 1\n', { filename: 'f.rego', regoVersion: 'v1' });
    expect(m.rules[0]!.head.assign).toBe(true);
    expect(m.rules[0]!.head.args).toHaveLength(1);
    const r = new Regolith().addModule('f.rego', 'package a\n\nf(a) := a + 1\n\ng(x) := y if y := f(x) * 2\n');
    expect(r.prepare('x := data.a.g(1)').evaluate({})[0]!.bindings['x']).toBe(4);
  });
});
