// The "generated" test project (vitest.config.ts) runs the evaluator's tests with generated
// test runs made at the first run; this file holds that it does: in that project the setup's
// setting reaches the evaluator the tests import, and a body of test expressions evaluated
// once is answered by a generated function. In the default project, nothing is generated on
// a first run.
import { describe, expect, inject, it } from 'vitest';
import { Regolith } from '../../../src/index.js';
import { codegen } from '../../../src/eval/closures/codegen.js';

declare module 'vitest' {
  export interface ProvidedContext {
    codegenFirstRun?: boolean;
  }
}

const POLICY = `package p
allow if {
	input.a == 1
	input.b != "x"
	every v in input.c { v > 0 }
}`;

describe('the generated test project', () => {
  it('generates at the first run only there, with the same answers', () => {
    const firstRun = inject('codegenFirstRun') === true;
    expect(codegen.warmup).toBe(firstRun ? 0 : 16);
    const r = new Regolith();
    r.addModule('p.rego', POLICY);
    const q = r.prepare('data.p.allow');
    const before = codegen.built;
    expect(q.evaluate({ input: { a: 1, b: 'y', c: [1, 2] } })[0]?.expressions[0]?.value).toBe(true);
    expect(codegen.built - before).toBe(firstRun ? 1 : 0);
    expect(q.evaluate({ input: { a: 1, b: 'y', c: [1, 0] } })[0]?.expressions[0]?.value).toBeUndefined();
    expect(q.evaluate({ input: { a: 1, b: 'x', c: [] } })[0]?.expressions[0]?.value).toBeUndefined();
  });
});
