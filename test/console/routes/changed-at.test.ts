// When the policies or data last changed, for "open in playground": a real change counts,
// data.system and a commit that writes the same values again (a bundle re-activated with
// the same content, as a bundle server without ETag causes on every poll) do not.

import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/storage/index.js';
import { watchChanges } from '../../../src/console/routes/changed-at.js';

const tick = () => new Promise((r) => setTimeout(r, 3));

describe('watchChanges', () => {
  it('times a change of data or policies, not a rewrite of the same values nor data.system', async () => {
    const store = new Store();
    const changedAt = watchChanges(store);
    expect(changedAt()).toBeUndefined();
    await store.transact((txn) => txn.write('add', ['payments'], { limits: { alice: 500 } }));
    const first = changedAt();
    expect(first).toBeDefined();
    await tick();
    // the same content again (a bundle activation replaces its roots with what they held)
    await store.transact((txn) => {
      txn.write('remove', ['payments']);
      txn.write('add', ['payments'], { limits: { alice: 500 } });
    });
    await store.transact((txn) => txn.write('add', ['system'], { bundles: { payments: { manifest: { revision: 'r2' } } } }));
    expect(changedAt()).toBe(first);
    await store.transact((txn) => txn.write('replace', ['payments', 'limits', 'alice'], 50));
    const second = changedAt()!;
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first!));
    await tick();
    await store.transact((txn) => txn.write('remove', ['payments', 'limits']));
    expect(Date.parse(changedAt()!)).toBeGreaterThan(Date.parse(second));
  });

  it('counts a policy whose text changed, not one written again as it was', async () => {
    const store = new Store();
    await store.transact((txn) => txn.upsertPolicy('p.rego', 'package p\n'));
    const changedAt = watchChanges(store);
    await store.transact((txn) => txn.upsertPolicy('p.rego', 'package p\n'));
    expect(changedAt()).toBeUndefined();
    await store.transact((txn) => txn.upsertPolicy('p.rego', 'package p\n\nx := 1\n'));
    expect(changedAt()).toBeDefined();
  });

  it('a write of the whole root counts what changed outside data.system only', async () => {
    const store = new Store();
    await store.transact((txn) => txn.write('add', [], { a: 1, system: { s: 1 } }));
    const changedAt = watchChanges(store);
    await store.transact((txn) => txn.write('add', [], { a: 1, system: { s: 2 } }));
    expect(changedAt()).toBeUndefined();
    await store.transact((txn) => txn.write('add', [], { a: 2, system: { s: 2 } }));
    expect(changedAt()).toBeDefined();
  });
});
