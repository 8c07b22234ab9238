import { describe, expect, it } from 'vitest';
import { Store, StorageError, type CommitEvent } from '../../src/storage/index.js';
import type { PlainObject, Value } from '../../src/value/index.js';

const obj = (v: unknown) => JSON.parse(JSON.stringify(v)) as PlainObject;

function storeWith(data: unknown): Store {
  return new Store({ data: obj(data) });
}

function errOf(fn: () => unknown): StorageError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StorageError) return e;
    throw e;
  }
  throw new Error('expected a StorageError');
}

describe('reads', () => {
  const s = storeWith({ a: { b: [10, { c: 'x' }] }, n: 1 });
  it('reads objects, arrays and scalars by path', () => {
    expect(s.read([])).toEqual({ a: { b: [10, { c: 'x' }] }, n: 1 });
    expect(s.read(['a', 'b', '1', 'c'])).toBe('x');
    expect(s.read(['a', 'b', '0'])).toBe(10);
  });
  it('missing keys are not found with OPA messages', () => {
    const e = errOf(() => s.read(['a', 'zz']));
    expect(e.code).toBe('storage_not_found_error');
    expect(e.message).toBe('storage_not_found_error: /a/zz: document does not exist');
  });
  it('array indexes are converted to integers or not found', () => {
    expect(errOf(() => s.read(['a', 'b', 'x'])).message).toBe(
      'storage_not_found_error: /a/b/x: array index must be integer',
    );
    expect(errOf(() => s.read(['a', 'b', '7'])).message).toBe(
      'storage_not_found_error: /a/b/7: array index out of range',
    );
    expect(errOf(() => s.read(['n', 'x'])).code).toBe('storage_not_found_error');
  });
  it('escapes path segments as Go url.PathEscape does', () => {
    expect(errOf(() => s.read(['a b', 'c/d'])).message).toBe(
      'storage_not_found_error: /a%20b/c%2Fd: document does not exist',
    );
  });
});

describe('writes (OPA semantics)', () => {
  it('add sets a key; replace and remove need the target', () => {
    const s = storeWith({ a: {} });
    s.transactSync((t) => t.write('add', ['a', 'k'], 1));
    expect(s.read(['a', 'k'])).toBe(1);
    expect(errOf(() => s.transactSync((t) => t.write('replace', ['a', 'nope'], 2))).code).toBe(
      'storage_not_found_error',
    );
    expect(errOf(() => s.transactSync((t) => t.write('remove', ['a', 'nope']))).code).toBe('storage_not_found_error');
    s.transactSync((t) => t.write('replace', ['a', 'k'], 3));
    expect(s.read(['a', 'k'])).toBe(3);
    s.transactSync((t) => t.write('remove', ['a', 'k']));
    expect(s.read(['a'])).toEqual({});
  });
  it('the parent must exist', () => {
    const s = storeWith({});
    const e = errOf(() => s.transactSync((t) => t.write('add', ['x', 'y', 'z'], 1)));
    expect(e.message).toBe('storage_not_found_error: document does not exist');
  });
  it('writing under a scalar is not found', () => {
    const s = storeWith({ a: 5 });
    expect(errOf(() => s.transactSync((t) => t.write('add', ['a', 'b'], 1))).code).toBe('storage_not_found_error');
  });
  it('arrays: "-" and len append, add inserts, replace sets, remove splices', () => {
    const s = storeWith({ arr: [1, 2, 3] });
    s.transactSync((t) => t.write('add', ['arr', '-'], 4));
    s.transactSync((t) => t.write('add', ['arr', '4'], 5));
    expect(s.read(['arr'])).toEqual([1, 2, 3, 4, 5]);
    s.transactSync((t) => t.write('add', ['arr', '0'], 0));
    expect(s.read(['arr'])).toEqual([0, 1, 2, 3, 4, 5]);
    s.transactSync((t) => t.write('replace', ['arr', '1'], 'one'));
    s.transactSync((t) => t.write('remove', ['arr', '2']));
    expect(s.read(['arr'])).toEqual([0, 'one', 3, 4, 5]);
  });
  it('arrays: bad indexes', () => {
    const s = storeWith({ arr: [1] });
    expect(errOf(() => s.transactSync((t) => t.write('replace', ['arr', 'x'], 1))).message).toBe(
      'storage_not_found_error: /arr/x: array index must be integer',
    );
    expect(errOf(() => s.transactSync((t) => t.write('replace', ['arr', '5'], 1))).message).toBe(
      'storage_not_found_error: /arr/5: array index out of range',
    );
    const e = errOf(() => s.transactSync((t) => t.write('remove', ['arr', '-'])));
    expect(e.code).toBe('storage_invalid_patch_error');
    expect(e.message).toBe('storage_invalid_patch_error: /arr/-: invalid patch path');
  });
  it('root: must be an object and cannot be removed', () => {
    const s = storeWith({ a: 1 });
    expect(errOf(() => s.transactSync((t) => t.write('add', [], [] as Value))).message).toBe(
      'storage_invalid_patch_error: root must be object',
    );
    expect(errOf(() => s.transactSync((t) => t.write('remove', []))).message).toBe(
      'storage_invalid_patch_error: root cannot be removed',
    );
    s.transactSync((t) => t.write('replace', [], obj({ b: 2 })));
    expect(s.read([])).toEqual({ b: 2 });
  });
  it('makeDir creates missing parents and refuses non-objects in the way', () => {
    const s = storeWith({ a: { s: 'str', arr: [] } });
    s.transactSync((t) => {
      t.makeDir(['a', 'x', 'y']);
      t.write('add', ['a', 'x', 'y', 'z'], true);
    });
    expect(s.read(['a', 'x'])).toEqual({ y: { z: true } });
    const e = errOf(() => s.transactSync((t) => t.makeDir(['a', 's', 'q'])));
    expect(e.code).toBe('storage_write_conflict_error');
    expect(e.message).toBe('storage_write_conflict_error: /a/s');
    expect(errOf(() => s.transactSync((t) => t.makeDir(['a', 'arr', 'q']))).code).toBe(
      'storage_write_conflict_error',
    );
  });
  it('"__proto__" is an ordinary key', () => {
    const s = storeWith({});
    s.transactSync((t) => t.write('add', ['__proto__'], obj({ polluted: true })));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(s.read(['__proto__', 'polluted'])).toBe(true);
  });
});

describe('snapshots and transactions', () => {
  it('a reader keeps its snapshot while writers commit', () => {
    const s = storeWith({ a: { b: [1, 2] }, other: { deep: { x: 1 } } });
    const snap = s.snapshot();
    const before = JSON.stringify(snap.data);
    s.transactSync((t) => {
      t.write('add', ['a', 'b', '-'], 3);
      t.write('add', ['a', 'c'], 1);
      t.write('remove', ['other', 'deep', 'x']);
    });
    expect(JSON.stringify(snap.data)).toBe(before);
    expect(snap.read(['a', 'b'])).toEqual([1, 2]);
    expect(s.read(['a', 'b'])).toEqual([1, 2, 3]);
    expect(s.snapshot().revision).toBe(snap.revision + 1);
  });
  it('unchanged subtrees are shared, changed paths are copied', () => {
    const s = storeWith({ a: { x: 1 }, b: { y: 2 } });
    const snap = s.snapshot();
    s.transactSync((t) => t.write('add', ['a', 'z'], 3));
    const now = s.snapshot();
    expect(now.data['b']).toBe(snap.data['b']);
    expect(now.data['a']).not.toBe(snap.data['a']);
  });
  it('a failed transaction leaves nothing changed', async () => {
    const s = storeWith({ a: 1 });
    const events: CommitEvent[] = [];
    s.onCommit((e) => events.push(e));
    expect(() =>
      s.transactSync((t) => {
        t.write('add', ['b'], 2);
        t.upsertPolicy('p', 'package p');
        t.write('replace', ['missing'], 3); // fails
      }),
    ).toThrow(StorageError);
    await expect(
      s.transact(async (t) => {
        t.write('add', ['c'], 2);
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('compile failed');
      }),
    ).rejects.toThrow('compile failed');
    expect(s.read([])).toEqual({ a: 1 });
    expect(s.snapshot().listPolicies()).toEqual([]);
    expect(events).toEqual([]);
  });
  it('async transactions are serialised', async () => {
    const s = storeWith({ n: 0 });
    const bump = () =>
      s.transact(async (t) => {
        const n = t.read(['n']) as number;
        await new Promise((r) => setTimeout(r, 2));
        t.write('replace', ['n'], n + 1);
      });
    await Promise.all([bump(), bump(), bump(), bump()]);
    expect(s.read(['n'])).toBe(4);
  });
  it('a transaction reads its own writes', () => {
    const s = storeWith({});
    s.transactSync((t) => {
      t.write('add', ['a'], obj({ b: 1 }));
      expect(t.read(['a', 'b'])).toBe(1);
      expect(s.read([])).toEqual({});
    });
  });
  it('triggers hear changed paths and policy changes once per commit', () => {
    const s = storeWith({ a: {} });
    const events: CommitEvent[] = [];
    s.onCommit((e) => events.push(e));
    s.transactSync((t) => {
      t.write('add', ['a', 'x'], 1);
      t.write('add', ['a', 'y'], 2);
    }, 'ctx');
    s.transactSync((t) => t.upsertPolicy('p1', 'package p'));
    s.transactSync((t) => t.deletePolicy('p1'));
    expect(events.map((e) => [e.dataChanged, e.policyChanged, e.context])).toEqual([
      [true, false, 'ctx'],
      [false, true, undefined],
      [false, true, undefined],
    ]);
    expect(events[0]!.data).toEqual([
      { path: ['a', 'x'], removed: false },
      { path: ['a', 'y'], removed: false },
    ]);
    expect(events[2]!.policies).toEqual([{ id: 'p1', removed: true }]);
  });
  it('a throwing trigger does not undo the commit', () => {
    const errors: unknown[] = [];
    const s = new Store({ onTriggerError: (e) => errors.push(e) });
    s.onCommit(() => {
      throw new Error('boom');
    });
    s.transactSync((t) => t.write('add', ['k'], 1));
    expect(s.read(['k'])).toBe(1);
    expect(errors).toHaveLength(1);
  });
});

describe('policies', () => {
  it('live beside data: upsert, get, list, delete', () => {
    const s = new Store();
    s.transactSync((t) => t.upsertPolicy('a.rego', 'package a', { parsed: 1 }));
    expect(s.snapshot().getPolicy('a.rego')).toEqual({ id: 'a.rego', raw: 'package a', info: { parsed: 1 } });
    expect(s.snapshot().listPolicies().map((p) => p.id)).toEqual(['a.rego']);
    const e = errOf(() => s.snapshot().getPolicy('nope'));
    expect(e.message).toBe('storage_not_found_error: policy id "nope"');
    expect(errOf(() => s.transactSync((t) => t.deletePolicy('nope'))).code).toBe('storage_not_found_error');
    s.transactSync((t) => t.deletePolicy('a.rego'));
    expect(s.snapshot().listPolicies()).toEqual([]);
  });
});
