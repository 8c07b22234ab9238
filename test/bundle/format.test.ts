import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BundleError,
  buildBundle,
  readBundle,
  readBundleEntries,
  readBundleFromBytes,
  regoVersionForFile,
  writeBundle,
} from '../../src/bundle/index.js';
import { BigNum } from '../../src/value/index.js';
import { POLICY, tempDir, writeTree } from './helpers.js';

describe('reading bundles', () => {
  it('mounts data files at their directory paths and keeps module paths', async () => {
    const dir = writeTree({
      '.manifest': JSON.stringify({ revision: 'r1', roots: ['authz', 'roles'], metadata: { team: 'x' } }),
      'authz/policy.rego': POLICY,
      'roles/data.json': '{"admins": ["alice"]}',
      'roles/extra/data.yaml': 'level: 3\nname: ops\n',
      'authz/README.md': 'not data',
      'authz/other.json': '{"ignored": true}',
    });
    const b = await readBundle(dir);
    expect(b.manifest.revision).toBe('r1');
    expect(b.manifest.roots).toEqual(['authz', 'roles']);
    expect(b.manifest.metadata).toEqual({ team: 'x' });
    expect(b.data).toEqual({ roles: { admins: ['alice'], extra: { level: 3, name: 'ops' } } });
    expect(b.modules.map((m) => [m.path, m.packagePath])).toEqual([['authz/policy.rego', ['authz']]]);
  });

  it('keeps large numbers exact', async () => {
    const dir = writeTree({ 'data.json': '{"n": 12345678901234567890123, "f": 1.5}' });
    const b = await readBundle(dir);
    expect(b.data.n).toBeInstanceOf(BigNum);
    expect((b.data.n as BigNum).text).toBe('12345678901234567890123');
    expect(b.data.f).toBe(1.5);
  });

  it('reports malformed data with the file name', async () => {
    const dir = writeTree({ 'a/data.json': '{"x": }' });
    await expect(readBundle(dir)).rejects.toThrow(/bundle load failed on .*a\/data\.json/);
  });

  it('rejects data outside the manifest roots', async () => {
    const dir = writeTree({ '.manifest': '{"roots": ["a"]}', 'b/data.json': '{"x": 1}' });
    await expect(readBundle(dir)).rejects.toThrow(
      "manifest roots [a] do not permit data at path '/b' (hint: check bundle directory structure)",
    );
  });

  it('rejects policies outside the manifest roots', async () => {
    const dir = writeTree({ '.manifest': '{"roots": ["a"]}', 'x.rego': 'package b.c\n' });
    await expect(readBundle(dir)).rejects.toThrow("manifest roots [a] do not permit 'package b.c' in module 'x.rego'");
  });

  it('accepts data on the path to a root and under it', async () => {
    const dir = writeTree({ '.manifest': '{"roots": ["a/b"]}', 'a/b/c/data.json': '{"x": 1}' });
    const b = await readBundle(dir);
    expect(b.data).toEqual({ a: { b: { c: { x: 1 } } } });
  });

  it('rejects overlapping roots', async () => {
    const dir = writeTree({ '.manifest': '{"roots": ["a/b", "a/b/c"]}' });
    await expect(readBundle(dir)).rejects.toThrow("manifest has overlapped roots: 'a/b' and 'a/b/c'");
  });

  it('rejects conflicting data at the same path', async () => {
    const dir = writeTree({ 'a/data.json': '{"b": 1}', 'a/b/data.json': '{"c": 2}' });
    await expect(readBundle(dir)).rejects.toThrow(BundleError);
    await expect(readBundle(dir)).rejects.toThrow(/failed to insert data file from path a/);
  });

  it('merges data.json and data.yaml in one directory when they do not collide', async () => {
    const dir = writeTree({ 'a/data.json': '{"x": 1}', 'a/data.yaml': 'y: 2\n' });
    expect((await readBundle(dir)).data).toEqual({ a: { x: 1, y: 2 } });
  });

  it('rejects a manifest field of the wrong type', async () => {
    const dir = writeTree({ '.manifest': '{"roots": "a"}' });
    await expect(readBundle(dir)).rejects.toThrow(/manifest decode/);
  });

  it('reads delta bundles and refuses policies in them', async () => {
    const ok = writeTree({ 'patch.json': '{"data": [{"op": "upsert", "path": "/a/b", "value": 1}]}' });
    expect((await readBundle(ok)).patch?.data[0]?.op).toBe('upsert');
    const bad = writeTree({ 'patch.json': '{"data": []}', 'p.rego': 'package p\n' });
    await expect(readBundle(bad)).rejects.toThrow('delta bundle expected to contain only patch file but policy files found');
  });

  it('finds per-file rego versions by glob', () => {
    const m = { revision: '', rego_version: 1, file_rego_versions: { 'legacy/*.rego': 0 } };
    expect(regoVersionForFile(m, 'legacy/old.rego')).toBe(0);
    expect(regoVersionForFile(m, 'new.rego')).toBe(1);
  });
});

describe('writing bundles', () => {
  it('round-trips through a .tar.gz in OPA layout', async () => {
    const dir = writeTree({
      '.manifest': JSON.stringify({ revision: 'abc', roots: ['authz', 'roles'] }),
      'authz/policy.rego': POLICY,
      'roles/data.json': '{"admins": ["alice"], "big": 100000000000000000000001}',
    });
    const b = await buildBundle([dir], { bundleMode: true });
    const gz = await writeBundle(b);
    const out = join(tempDir(), 'bundle.tar.gz');
    writeFileSync(out, gz);

    // The system tar sees OPA's layout: leading slashes, data.json at the root, manifest last.
    const listing = execFileSync('tar', ['tzf', out], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toEqual(['/data.json', '/authz/policy.rego', '/.manifest']);

    const back = await readBundleFromBytes(readFileSync(out));
    expect(back.manifest).toMatchObject({ revision: 'abc', roots: ['authz', 'roles'], rego_version: 1 });
    expect(back.modules[0]!.text).toBe(POLICY);
    expect(back.modules[0]!.path).toBe('authz/policy.rego');
    expect((back.data.roles as { big: BigNum }).big.text).toBe('100000000000000000000001');

    const entries = await readBundleEntries(out);
    const manifest = entries.find((e) => e.path === '.manifest')!;
    expect(Buffer.from(manifest.bytes).toString()).toBe('{"revision":"abc","roots":["authz","roles"],"rego_version":1}\n');
  });

  it('is deterministic', async () => {
    const dir = writeTree({ 'p.rego': POLICY, 'data.json': '{"a": 1}' });
    const a = await writeBundle(await buildBundle([dir], { bundleMode: true, revision: 'x' }));
    const b = await writeBundle(await buildBundle([dir], { bundleMode: true, revision: 'x' }));
    expect(a.equals(b)).toBe(true);
  });

  it('loads plain paths: data mounted relative to the given directory, any json name', async () => {
    const dir = writeTree({
      'policies/authz.rego': POLICY,
      'roles/admins.json': '{"list": ["alice"]}',
      'top.json': '{"t": true}',
      '.hidden/skip.json': '{"h": 1}',
    });
    const b = await buildBundle([dir], { ignore: ['.*'] });
    expect(b.data).toEqual({ roles: { list: ['alice'] }, t: true });
    expect(b.manifest).toMatchObject({ roots: [''], rego_version: 1 });
    expect(b.modules[0]!.path.endsWith('policies/authz.rego')).toBe(true);
  });

  it('merges several bundles with disjoint roots and refuses overlapping ones', async () => {
    const a = writeTree({ '.manifest': '{"roots": ["a"]}', 'a/data.json': '{"x": 1}' });
    const b = writeTree({ '.manifest': '{"roots": ["b"]}', 'b/data.json': '{"y": 2}' });
    const merged = await buildBundle([a, b], { bundleMode: true });
    expect(merged.data).toEqual({ a: { x: 1 }, b: { y: 2 } });
    expect(merged.manifest.roots).toEqual(['a', 'b']);
    const c = writeTree({ '.manifest': '{"roots": ["a/z"]}' });
    await expect(buildBundle([a, c], { bundleMode: true })).rejects.toThrow("manifest has overlapped roots: 'a' and 'a/z'");
  });

  it('refuses truncated archives', async () => {
    const dir = writeTree({ 'p.rego': POLICY, 'data.json': '{"a": 1}' });
    const gz = await writeBundle(await buildBundle([dir], { bundleMode: true }));
    await expect(readBundleFromBytes(gz.subarray(0, gz.length - 20))).rejects.toThrow(/bundle read failed/);
  });

  it('reports a missing path', async () => {
    await expect(buildBundle(['/nonexistent/x'], {})).rejects.toThrow('stat /nonexistent/x: no such file or directory');
  });
});
