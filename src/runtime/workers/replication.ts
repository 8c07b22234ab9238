// The primary's store is the one every worker copies. Each commit becomes a delta — the
// final value of every changed subtree and the text of every changed policy — applied in
// one transaction by every worker. Deltas are idempotent (a path is set to its value, or
// removed if present), so a worker that joined from a snapshot already holding a commit can
// apply that commit's delta again harmlessly.

import type { CommitEvent, Snapshot, Store, StoragePath } from '../../storage/index.js';
import { existsAt, readAt } from '../../storage/index.js';
import { isPlainObject, parseJSON, toJSONText, type PlainObject, type Value } from '../../value/index.js';
import { parseModule } from '../../engine/syntax.js';
import type { RegoVersion } from '../../engine/index.js';

/** A policy as the primary holds it: its text, and the Rego version it was parsed in (bundles say per file). */
export interface PolicyText {
  raw: string;
  v?: RegoVersion;
}

const versionOf = (info: unknown): RegoVersion | undefined => {
  const v = (info as { regoVersion?: unknown } | undefined)?.regoVersion;
  return v === 'v0' || v === 'v1' ? v : undefined;
};

export interface Delta {
  /** The primary store's revision after the commit. */
  revision: number;
  /** A subtree's new value as JSON text, or no json: removed. */
  data: { path: string[]; json?: string }[];
  /** A policy's new text, or no raw: deleted. */
  policies: ({ id: string } & Partial<PolicyText>)[];
}

export interface FullState {
  revision: number;
  data: string;
  policies: Record<string, PolicyText>;
}

/**
 * Changed paths cut at the first array on their way (an insertion shifts the elements after
 * it: the whole array is sent), without paths below another changed path.
 */
function changedRoots(paths: readonly (readonly string[])[], data: PlainObject): string[][] {
  const cut = paths.map((p) => {
    let node: Value = data;
    for (let i = 0; i < p.length; i++) {
      if (Array.isArray(node)) return p.slice(0, i);
      if (!isPlainObject(node) || !Object.hasOwn(node, p[i]!)) return [...p];
      node = node[p[i]!]!;
    }
    return [...p];
  });
  cut.sort((a, b) => a.length - b.length);
  const out: string[][] = [];
  for (const p of cut) if (!out.some((q) => q.length <= p.length && q.every((s, i) => s === p[i]))) out.push(p);
  return out;
}

export function deltaOf(event: CommitEvent, snap: Snapshot): Delta {
  const data = changedRoots(
    event.data.map((c) => c.path),
    snap.data,
  ).map((path) => (existsAt(snap.data, path) ? { path, json: toJSONText(readAt(snap.data, path)) } : { path }));
  const policies = event.policies.map((c) => {
    const p = snap.policies.get(c.id);
    return p ? { id: c.id, raw: p.raw, v: versionOf(p.info) } : { id: c.id };
  });
  return { revision: snap.revision, data, policies };
}

export function fullStateOf(snap: Snapshot): FullState {
  const policies: Record<string, PolicyText> = {};
  for (const p of snap.listPolicies()) policies[p.id] = { raw: p.raw, v: versionOf(p.info) };
  return { revision: snap.revision, data: toJSONText(snap.data), policies };
}

/** Parsed here in the version the primary used, so the engine does not guess it. */
function parsed(id: string, p: Partial<PolicyText>): unknown {
  return p.v ? parseModule(p.raw!, { filename: id, regoVersion: p.v }) : undefined;
}

/** Applies a delta in one transaction (the engine recompiles once, on commit). */
export async function applyDelta(store: Store, d: Delta): Promise<void> {
  await store.transact((txn) => {
    for (const c of d.data) {
      const path = c.path as StoragePath;
      if (c.json === undefined) {
        if (path.length && txn.exists(path)) txn.write('remove', path);
        continue;
      }
      const value = parseJSON(c.json);
      if (path.length) txn.makeDir(path.slice(0, -1));
      txn.write(path.length && !txn.exists(path) ? 'add' : 'replace', path, value);
    }
    for (const p of d.policies) {
      if (p.raw !== undefined) txn.upsertPolicy(p.id, p.raw, parsed(p.id, p));
      else if (txn.listPolicies().some((x) => x.id === p.id)) txn.deletePolicy(p.id);
    }
  });
}

/** Replaces everything with the primary's state (a worker joining). */
export async function applyFullState(store: Store, s: FullState): Promise<void> {
  await store.transact((txn) => {
    txn.write('replace', [], parseJSON(s.data));
    for (const p of txn.listPolicies()) if (!(p.id in s.policies)) txn.deletePolicy(p.id);
    for (const [id, p] of Object.entries(s.policies)) txn.upsertPolicy(id, p.raw, parsed(id, p));
  });
}
