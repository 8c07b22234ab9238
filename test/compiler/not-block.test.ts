// `not { ... }` blocks (OPA 1.17, enabled by `import future.keywords.not` or `future.keywords`):
// the expression holds when the block's body has no solution under the bindings so far.
// Regal's own rules use them (performance/defer-assignment).
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';
import { parseModule } from '../../src/lang/index.js';
import { formatModule } from '../../src/lang/format/index.js';
import { exprToJSON } from '../../src/lang/json-ast.js';

function result(text: string, query: string, input: unknown = {}): unknown {
  const r = new Regolith();
  r.addModule('b.rego', text);
  const res = r.prepare(query).evaluate({ input });
  return res.length ? res[0]!.expressions[0]!.value : undefined;
}

const banned = `package blk
import future.keywords.not

deny_free if {
	role := input.role
	not {
		some b in input.blocked
		b == role
		input.strict
	}
}

same(a, b) if {
	not {
		a != b
	}
}
`;

describe('not { ... } blocks', () => {
  it('holds when the block has no solution, with outer vars read inside', () => {
    expect(result(banned, 'data.blk.deny_free', { role: 'x', blocked: ['y'], strict: true })).toBe(true);
    expect(result(banned, 'data.blk.deny_free', { role: 'y', blocked: ['y'], strict: false })).toBe(true);
    expect(result(banned, 'data.blk.deny_free', { role: 'y', blocked: ['y'] })).toBe(true);
  });
  it('fails when some solution exists', () => {
    expect(result(banned, 'data.blk.deny_free', { role: 'y', blocked: ['x', 'y'], strict: true })).toBeUndefined();
  });
  it('reads function arguments', () => {
    expect(result(banned, 'data.blk.same(1, 1)')).toBe(true);
    expect(result(banned, 'data.blk.same(1, 2)')).toBeUndefined();
  });
  it('is enabled by import future.keywords too, not without an import', () => {
    const whole = 'package w\nimport future.keywords\np if {\n\tnot {\n\t\tinput.x == 1\n\t}\n}\n';
    expect(result(whole, 'data.w.p', { x: 2 })).toBe(true);
    expect(result(whole, 'data.w.p', { x: 1 })).toBeUndefined();
    // without it, `not {input.x == 1}` negates a set, and a body of two lines is no set
    const plain = parseModule('package n\np if {\n\tnot {input.x == 1}\n}\n');
    expect(plain.rules[0]!.body[0]!.notBlock).toBeUndefined();
    expect(plain.rules[0]!.body[0]!.negated).toBe(true);
    expect(() => parseModule('package n\np if {\n\tnot {\n\t\tinput.x == 1\n\t\tinput.y\n\t}\n}\n')).toThrow();
  });
  it('keeps vars bound in the block local to it', () => {
    const text = 'package l\nimport future.keywords.not\np if {\n\tnot {\n\t\ty := input.y\n\t\ty > 10\n\t}\n\ty := 3\n}\n';
    expect(result(text, 'data.l.p', { y: 1 })).toBe(true);
  });
  it('formats back to a block and writes OPA\'s JSON shape', () => {
    const m = parseModule(banned);
    const out = formatModule(m);
    expect(out).toContain('\tnot {\n\t\tsome b in input.blocked\n\t\tb == role\n\t\tinput.strict\n\t}\n');
    expect(out).toContain('\tnot {\n\t\ta != b\n\t}\n');
    const j = exprToJSON(m.rules[0]!.body[1]!) as { terms: { type: string; explicit_body: boolean; body: unknown[] } };
    expect(j.terms.type).toBe('not');
    expect(j.terms.explicit_body).toBe(true);
    expect(j.terms.body).toHaveLength(3);
  });
});
