import { describe, expect, it } from 'vitest';
import { Regolith } from '../../../src/index.js';

// The case OPA's own suite has (regometadatachain/simple), plus rule(), document and
// subpackages scopes and calls inside comprehensions and function bodies.
const testing = `# METADATA
# description: The Rego test suite
package testing

# METADATA
# title: Testing annotations
# authors:
# - The OPA contributors
p := x if {
	x := rego.metadata.chain()
}

# METADATA
# title: Rule title
# custom:
#   severity: HIGH
r := rego.metadata.rule()

no_annotations := [rego.metadata.chain(), rego.metadata.rule()]

# METADATA
# scope: document
# description: the document
d := 1 if rego.metadata.chain()[1].annotations.description == "the document"

d := 2 if false

deny contains msg if {
	meta := rego.metadata.rule()
	msg := meta.custom.reason
}

# METADATA
# title: f
f(x) := [x, y] if y := rego.metadata.rule().title

in_comprehension := [t | some i in [1]; t := rego.metadata.rule()]
`;

const root = `# METADATA
# scope: subpackages
# title: everything
package testing.sub.deep

q := rego.metadata.chain()
`;

describe('rego.metadata.chain and rego.metadata.rule', () => {
  const rego = new Regolith().addModule('t.rego', testing).addModule('s.rego', root);

  it('returns the chain from the rule to its package (OPA shape)', () => {
    expect(rego.decide('testing/p', {})).toEqual([
      { path: ['testing', 'p'], annotations: { scope: 'rule', title: 'Testing annotations', authors: [{ name: 'The OPA contributors' }] } },
      { path: ['testing'], annotations: { scope: 'package', description: 'The Rego test suite' } },
    ]);
  });

  it('returns the rule annotations, or {} and a path-only link without any', () => {
    expect(rego.decide('testing/r', {})).toEqual({ scope: 'rule', title: 'Rule title', custom: { severity: 'HIGH' } });
    expect(rego.decide('testing/no_annotations', {})).toEqual([
      [{ path: ['testing', 'no_annotations'] }, { path: ['testing'], annotations: { scope: 'package', description: 'The Rego test suite' } }],
      {},
    ]);
  });

  it('includes document-scope annotations of the rule path', () => {
    expect(rego.decide('testing/d', {})).toBe(1);
  });

  it('works in functions and comprehensions, with the enclosing rule annotations', () => {
    const q = rego.prepare('x := data.testing.f(1)');
    expect(q.evaluate({})[0]!.bindings['x']).toEqual([1, 'f']);
    expect(rego.decide('testing/in_comprehension', {})).toEqual([{}]);
  });

  it('adds subpackages annotations from the package up to the root', () => {
    expect(rego.decide('testing/sub/deep/q', {})).toEqual([
      { path: ['testing', 'sub', 'deep', 'q'] },
      { path: ['testing', 'sub', 'deep'], annotations: { scope: 'subpackages', title: 'everything' } },
    ]);
  });
});
