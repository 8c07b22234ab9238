// GET /ui/api/replay: the server's modules under bundle-relative names (no server path),
// its base data without data.system, and the active bundles' revisions.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBuild, get, startUi, type UiServer } from './helpers.js';

let build: ReturnType<typeof fakeBuild>;
let s: UiServer;
beforeAll(async () => {
  build = fakeBuild();
  s = await startUi({ assetsDir: build.dir });
  await s.engine.putPolicy('payments/payments/policy.rego', 'package payments\n\nallow if input.user in data.payments.users\n');
  await s.engine.putPolicy('/srv/secret/policies/lib/util.rego', 'package lib\n\nx := 1\n');
  await s.engine.store.transact((txn) => {
    txn.write('add', ['payments'], { users: ['dave'] });
    txn.write('add', ['system'], { bundles: { payments: { manifest: { revision: 'r7', roots: ['payments'] } } } });
  });
});
afterAll(async () => {
  await s.close();
  build.remove();
});

describe('GET /ui/api/replay', () => {
  it('answers modules by bundle-relative name, the base data and bundle revisions', async () => {
    const r = await get(s, '/ui/api/replay');
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.modules).sort()).toEqual(['payments/policy.rego', 'util.rego']);
    expect(r.json.modules['payments/policy.rego']).toContain('data.payments.users');
    expect(r.json.data).toEqual({ payments: { users: ['dave'] } });
    expect(r.json.bundles).toEqual({ payments: { revision: 'r7' } });
    expect(r.text).not.toContain('/srv/secret');
    expect(r.json.rego_version).toBe('v1');
  });

  it('says when the policies or data last changed outside data.system, so the page can tell a replay may differ', async () => {
    const fresh = await startUi({ assetsDir: build.dir });
    try {
      expect((await get(fresh, '/ui/api/replay')).json.changed_at).toBeUndefined();
      // data.system (bundle manifests, status) is not the data a decision reads
      await fresh.engine.store.transact((txn) => txn.write('add', ['system'], { bundles: {} }));
      expect((await get(fresh, '/ui/api/replay')).json.changed_at).toBeUndefined();
      const before = Date.now();
      await fresh.engine.store.transact((txn) => txn.write('add', ['greeting'], 'hi'));
      const dataAt = Date.parse((await get(fresh, '/ui/api/replay')).json.changed_at);
      expect(dataAt).toBeGreaterThanOrEqual(before);
      expect(dataAt).toBeLessThanOrEqual(Date.now());
      await new Promise((r) => setTimeout(r, 5));
      await fresh.engine.putPolicy('p.rego', 'package p\n\nx := 1\n');
      expect(Date.parse((await get(fresh, '/ui/api/replay')).json.changed_at)).toBeGreaterThan(dataAt);
    } finally {
      await fresh.close();
    }
  });

  it('names the Rego version of a --v0-compatible server', async () => {
    const v0 = await startUi({ assetsDir: build.dir, regoVersion: 'v0' });
    try {
      expect((await get(v0, '/ui/api/replay')).json.rego_version).toBe('v0');
    } finally {
      await v0.close();
    }
  });
});
