// Impact analysis of a policy that calls custom built-ins: the candidate (and the baseline
// the changed rules are read from) compile and evaluate with the server's own built-ins,
// so a server extended with them can still ask what a new policy would change.

import { describe, expect, it } from 'vitest';
import type { CustomBuiltin } from '../../../src/engine/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { impactHook } from '../../../src/console/impact/hook.js';
import { loadCandidate, replay } from '../../../src/console/impact/index.js';

const tier: CustomBuiltin = {
  name: 'acme.tier',
  args: ['string'],
  result: 'string',
  fn: ([user]) => (user === 'alice' ? 'gold' : 'basic'),
};

const live = `package shop

allow if acme.tier(input.user) == "gold"
`;
const candidate = `package shop

allow if acme.tier(input.user) in {"gold", "basic"}
`;
const events = [
  { decision_id: 'a', path: 'shop/allow', input: { user: 'alice' }, result: true },
  { decision_id: 'b', path: 'shop/allow', input: { user: 'bob' } },
];

describe('impact analysis with custom built-ins', () => {
  it("the console's hook loads the candidate with the server's built-ins", async () => {
    const engine = new RegolithEngine({ builtins: [tier] });
    await engine.store.transact((txn) => txn.upsertPolicy('shop.rego', live));
    const hook = impactHook({ engine });
    const r = await hook({ candidate: { modules: { 'shop.rego': candidate } }, decisions_ndjson: events.map((e) => JSON.stringify(e)).join('\n') });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ replayed: 2, changed: 1 });
    expect((r.body as { examples: { decision_id: string; rules: string[] }[] }).examples).toMatchObject([{ decision_id: 'b', rules: ['shop.allow'] }]);
  });

  it('without them the candidate is refused with the unknown function named', async () => {
    await expect(loadCandidate({ modules: { 'shop.rego': candidate } })).rejects.toThrow(/acme\.tier/);
  });

  it('a modules baseline compiles with the candidate’s built-ins', async () => {
    const c = await loadCandidate({ modules: { 'shop.rego': candidate }, builtins: [tier] });
    const r = await replay(events, c, { baseline: { 'shop.rego': live } });
    expect(r).toMatchObject({ replayed: 2, changed: 1 });
    expect(r.examples[0]).toMatchObject({ decision_id: 'b', rules: ['shop.allow'] });
  });
});
