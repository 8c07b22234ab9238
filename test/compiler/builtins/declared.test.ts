// Every built-in of OPA v1.20's capabilities is declared, with the same declaration and
// flags (the declarations are the source of `regolith capabilities`), and every
// declaration has an implementation.

import { expect, it } from 'vitest';
import '../../../src/eval/builtins/index.js';
import { allDeclarations, capabilitiesBuiltins } from '../../../src/compiler/builtins/index.js';
import { allBuiltins } from '../../../src/eval/builtins/registry.js';
import { describeWithOpa, opaCapabilities, type OpaCapabilityBuiltin } from '../../opa-conformance.js';

const ours = new Map((capabilitiesBuiltins() as OpaCapabilityBuiltin[]).map((b) => [b.name, b]));

describeWithOpa('comparing the built-in declarations with OPA\'s capabilities list', 'capabilities', () => {
  const opa = opaCapabilities();
  it('names every built-in OPA v1.20 has', () => {
    const missing = opa.builtins.map((b) => b.name).filter((n) => !ours.has(n));
    expect(missing).toEqual([]);
  });
  for (const b of opa.builtins) {
    it(`declares ${b.name} as OPA does`, () => {
      const mine = ours.get(b.name);
      expect(mine, 'registered').toBeDefined();
      expect(JSON.parse(JSON.stringify(mine))).toEqual(b);
    });
  }
  it('has as many implementations as OPA has built-ins', () => {
    expect(allBuiltins().length).toBe(opa.builtins.length);
  });
});

// Runs without OPA's files too, so a clone anywhere catches a declaration without a function.
it('has an implementation for every declaration, and none without one', () => {
  const implemented = allBuiltins().map((b) => b.name);
  expect(implemented).toEqual(allDeclarations().map((d) => d.name));
});
