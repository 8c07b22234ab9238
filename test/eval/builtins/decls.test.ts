// Every built-in of OPA's capabilities list is registered with the evaluator under OPA's
// declaration and flags (the evaluator's table, which is what a query calls; the compiler's
// declarations are compared in test/compiler/builtins/declared.test.ts).
import { expect, test } from 'vitest';
import { getBuiltin } from '../../../src/eval/builtins/index.js';
import { describeWithOpa, opaCapabilities } from '../../opa-conformance.js';

describeWithOpa('comparing the registered built-ins with OPA\'s capabilities list', 'registered built-ins match OPA v1.20 capabilities', () => {
  const caps = opaCapabilities().builtins;
  test.each(caps.map((c) => [c.name, c] as const))('%s', (name, cap) => {
    const def = getBuiltin(name);
    expect(def, `${name} is registered`).toBeDefined();
    expect(JSON.parse(JSON.stringify(def!.decl))).toEqual(cap.decl);
    expect(def!.infix).toBe(cap.infix);
    expect(!!def!.relation).toBe(!!cap.relation);
    expect(!!def!.deprecated).toBe(!!cap.deprecated);
    expect(!!def!.nondeterministic).toBe(!!cap.nondeterministic);
  });
});
