// RegolithEngine.installModules: many modules installed inside the caller's transaction,
// compiled once, live with the commit; a compile failure aborts the whole transaction.

import { describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { EngineError } from '../../src/engine/types.js';
import { parseModule } from '../../src/index.js';

const decide = async (e: RegolithEngine, ...ref: string[]) => (await e.evaluate(ref, {})).result;

describe('installModules', () => {
  it('installs many modules and data in one transaction, compiling once', async () => {
    const engine = new RegolithEngine();
    const before = engine.stats.compiles;
    await engine.store.transact((txn) => {
      txn.write('add', ['limits'], { max: 3 } as never);
      engine.installModules(
        {
          upsert: [
            { id: 'b/lib.rego', raw: 'package lib\nmax := data.limits.max\n' },
            { id: 'b/app.rego', raw: 'package app\nok if data.lib.max == 3\n' },
          ],
        },
        txn,
      );
      // Nothing is live before the commit.
      expect(engine.listPolicies()).toEqual([]);
    });
    expect(engine.stats.compiles - before).toBe(1);
    expect(engine.stats.rebuilds).toBe(0);
    expect(await decide(engine, 'app', 'ok')).toBe(true);
    expect(engine.listPolicies().map((p) => p.id).sort()).toEqual(['b/app.rego', 'b/lib.rego']);
    expect(engine.getPolicy('b/lib.rego')!.raw).toBe('package lib\nmax := data.limits.max\n');
  });

  it('keeps the Rego version of modules the caller parsed', async () => {
    const engine = new RegolithEngine();
    const raw = 'package old\nallow { true }\n';
    await engine.store.transact((txn) => engine.installModules({ upsert: [{ id: 'v0.rego', raw, parsed: parseModule(raw, { filename: 'v0.rego', regoVersion: 'v0' }) }] }, txn));
    expect(await decide(engine, 'old', 'allow')).toBe(true);
  });

  it('replaces and removes modules together with modules installed by putPolicy', async () => {
    const engine = new RegolithEngine();
    await engine.putPolicy('mine.rego', 'package mine\nx := 1\n');
    await engine.store.transact((txn) => engine.installModules({ upsert: [{ id: 'b/a.rego', raw: 'package a\ny := 1\n' }, { id: 'b/c.rego', raw: 'package c\nz := 1\n' }] }, txn));
    const before = engine.stats.compiles;
    await engine.store.transact((txn) => engine.installModules({ upsert: [{ id: 'b/a.rego', raw: 'package a\ny := 2\n' }], remove: ['b/c.rego', 'b/missing.rego'] }, txn));
    expect(engine.stats.compiles - before).toBe(1);
    expect(await decide(engine, 'a', 'y')).toBe(2);
    expect(await decide(engine, 'c', 'z')).toBeUndefined();
    expect(await decide(engine, 'mine', 'x')).toBe(1);
    expect(engine.listPolicies().map((p) => p.id).sort()).toEqual(['b/a.rego', 'mine.rego']);
  });

  it('a module that does not compile aborts the transaction: data, modules and policy unchanged', async () => {
    const engine = new RegolithEngine();
    await engine.store.transact((txn) => {
      txn.write('add', ['d'], 1);
      engine.installModules({ upsert: [{ id: 'b/p.rego', raw: 'package p\nv := data.d\n' }] }, txn);
    });
    const snap = engine.store.snapshot();
    const err = await engine.store
      .transact((txn) => {
        txn.write('replace', ['d'], 2);
        engine.installModules({ upsert: [{ id: 'b/p.rego', raw: 'package p\nv := y\n' }, { id: 'b/q.rego', raw: 'package q\nw := 1\n' }] }, txn);
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).kind).toBe('compile');
    expect((err as EngineError).errors[0]!.location?.file).toBe('b/p.rego');
    expect(engine.store.snapshot()).toBe(snap);
    expect(await decide(engine, 'p', 'v')).toBe(1);
    expect(engine.getPolicy('b/q.rego')).toBeUndefined();
  });

  it('a parse error is an EngineError("parse") and also changes nothing', async () => {
    const engine = new RegolithEngine();
    const snap = engine.store.snapshot();
    const err = await engine.store.transact((txn) => engine.installModules({ upsert: [{ id: 'x.rego', raw: 'package x\nallow if {' }] }, txn)).catch((e: unknown) => e);
    expect((err as EngineError).kind).toBe('parse');
    expect(engine.store.snapshot()).toBe(snap);
  });
});
