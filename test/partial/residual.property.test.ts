// The partial-evaluation property: for random concrete values of the unknowns, the residual
// queries (parsed back from their Rego text, with their support modules) hold exactly when
// the original query does. No divergence is allowed, in either direction.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';
import { CORPUS, DATA, type Case } from './corpus.js';

const RUNS = Number(process.env.PARTIAL_RUNS ?? 150);

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 4 });
const row = fc
  .record({
    owner: maybe(fc.constantFrom('bob', 'amy', 'cy', 'b')),
    tenant: maybe(fc.constantFrom('t1', 't2', 't3')),
    price: maybe(fc.oneof(fc.integer({ min: -5, max: 150 }), fc.constantFrom(1, 2, 3, 10, 50, 100, 101), fc.constant('10'))),
    x: maybe(fc.integer({ min: 0, max: 6 })),
    flag: maybe(fc.oneof(fc.boolean(), fc.constant('yes'))),
    public: maybe(fc.boolean()),
    level: maybe(fc.constantFrom('low', 'mid', 'high', 'a1', 'b2', 'zz')),
    tags: maybe(fc.array(fc.constantFrom('a1', 'b2', 'ab', 'zz'), { maxLength: 3 })),
    items: maybe(fc.array(fc.integer({ min: -2, max: 3 }), { maxLength: 4 })),
  })
  .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
const user = fc.constantFrom('bob', 'amy', 'cy', 'dan');

/** Whether a query holds, in body semantics (an expression that is false fails), as OPA's partial evaluation reads it. */
function holds(modules: string[], data: unknown, queries: string[], input: unknown): boolean {
  if (!queries.length) return false;
  const r = new Regolith().setData(data);
  modules.forEach((m, i) => r.addModule(`m${i}.rego`, m));
  // each query is a body of its own rule, so false expressions fail as they do in a body
  r.addModule('q.rego', `package q\n\n${queries.map((q) => `ok if {\n${q.trim() || 'true'}\n}`).join('\n\n')}\n`);
  return r.prepare('data.q.ok').evaluate({ input }).length > 0;
}

function check(c: Case): void {
  const prepared = new Regolith().addModule('t.rego', c.module).setData(DATA).prepare(c.query);
  fc.assert(
    fc.property(user, row, (u, r) => {
      const input = { user: u, row: r };
      const known = c.unknowns?.includes('input') ? undefined : { user: u };
      const partial = prepared.partial({ input: known, unknowns: c.unknowns ?? ['input.row'], disableInlining: c.disableInlining });
      const want = holds([c.module], DATA, [c.query], input);
      const got = holds(partial.supportText, DATA, partial.queriesText, input);
      expect(got, `input ${JSON.stringify(input)}\n--- queries\n${partial.queriesText.join('\n--\n')}\n--- support\n${partial.supportText.join('\n')}`).toBe(want);
    }),
    { numRuns: RUNS },
  );
}

describe('partial evaluation: residual queries mean what the query means', () => {
  it('the corpus has at least 30 policies', () => expect(CORPUS.length).toBeGreaterThanOrEqual(30));
  for (const c of CORPUS) it(c.name, () => check(c));
});
