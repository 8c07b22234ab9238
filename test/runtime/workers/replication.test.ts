// Replication of the primary's store to the workers, as a property: after any sequence of
// generated commits (adds, replaces, removes, array insertions, whole-root writes, policy
// upserts and deletes), a replica that applied every delta holds exactly the primary's
// data and policies; and a replica that joined midway from a full state, then applied the
// deltas from before its join again, holds the same (deltas are idempotent).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDelta, applyFullState, deltaOf, fullStateOf, type Delta } from '../../../src/runtime/workers/replication.js';
import { Store } from '../../../src/storage/index.js';
import { parseJSON, toJSONText, type Value } from '../../../src/value/index.js';

type Op =
  | { k: 'set'; path: string[]; value: unknown }
  | { k: 'remove'; path: string[] }
  | { k: 'insert'; path: string[]; index: number; value: unknown }
  | { k: 'root'; value: Record<string, unknown> }
  | { k: 'policy'; id: string; n: number }
  | { k: 'unpolicy'; id: string };

const key = fc.constantFrom('a', 'b', 'c', 'list', 'x y', 'ü');
const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }));
const value = fc.oneof(leaf, fc.dictionary(key, leaf, { maxKeys: 3 }));
const path = fc.array(key, { minLength: 1, maxLength: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant('set' as const), path, value }),
  fc.record({ k: fc.constant('remove' as const), path }),
  fc.record({ k: fc.constant('insert' as const), path, index: fc.nat(3), value: leaf }),
  fc.record({ k: fc.constant('root' as const), value: fc.dictionary(key, value, { maxKeys: 3 }) }),
  fc.record({ k: fc.constant('policy' as const), id: fc.constantFrom('p1.rego', 'p2.rego'), n: fc.nat(9) }),
  fc.record({ k: fc.constant('unpolicy' as const), id: fc.constantFrom('p1.rego', 'p2.rego') }),
);

/** One commit of the primary; an op the store refuses (a missing parent, ...) commits nothing. */
async function commit(store: Store, o: Op): Promise<void> {
  await store
    .transact((txn) => {
      // values as the server reads them (the one JSON reader: null-prototype objects)
      const v = (x: unknown) => parseJSON(JSON.stringify(x));
      switch (o.k) {
        case 'set':
          txn.makeDir(o.path.slice(0, -1));
          txn.write(txn.exists(o.path) ? 'replace' : 'add', o.path, v(o.value));
          break;
        case 'remove':
          txn.write('remove', o.path);
          break;
        case 'insert': {
          const arr = txn.read(o.path);
          if (!Array.isArray(arr)) throw new Error('not an array');
          txn.write('add', [...o.path, String(Math.min(o.index, arr.length))], v(o.value));
          break;
        }
        case 'root':
          txn.write('replace', [], v(o.value));
          break;
        case 'policy':
          txn.upsertPolicy(o.id, `package ${o.id.slice(0, 2)}\n\nx := ${o.n}\n`);
          break;
        case 'unpolicy':
          txn.deletePolicy(o.id);
          break;
      }
    })
    .catch(() => undefined);
}

const stateOf = (s: Store) => ({
  data: toJSONText(s.snapshot().data as Value),
  policies: Object.fromEntries(s.snapshot().listPolicies().map((p) => [p.id, p.raw])),
});

describe('store replication to workers', () => {
  it('a replica applying every delta holds the primary state; one joining midway too, replays included', async () => {
    let commits = 0;
    let arrayInserts = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 30 }), fc.nat(30), async (ops, joinAt) => {
        const primary = new Store();
        const deltas: Delta[] = [];
        primary.onCommit((e, snap) => deltas.push(deltaOf(e, snap)));
        const replica = new Store();
        let late: Store | undefined;
        let lateFrom = 0;
        for (let i = 0; i < ops.length; i++) {
          if (i === Math.min(joinAt, ops.length - 1)) {
            late = new Store();
            await applyFullState(late, fullStateOf(primary.snapshot()));
            // the join raced with the last commit: its delta arrives again after the state
            lateFrom = Math.max(0, deltas.length - 1);
          }
          await commit(primary, ops[i]!);
        }
        commits += deltas.length;
        arrayInserts += deltas.filter((d) => d.data.some((c) => c.json?.startsWith('['))).length;
        for (const d of deltas) await applyDelta(replica, d);
        expect(stateOf(replica)).toEqual(stateOf(primary));
        for (const d of deltas.slice(lateFrom)) await applyDelta(late!, d);
        expect(stateOf(late!)).toEqual(stateOf(primary));
      }),
      { numRuns: 300 },
    );
    // the generated sequences really commit, arrays included (not a property over no-ops)
    expect(commits).toBeGreaterThan(1200);
    expect(arrayInserts).toBeGreaterThan(20);
  });
});
