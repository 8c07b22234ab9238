// The document store: one immutable root of base documents plus the policy modules,
// swapped atomically on commit. Readers take a Snapshot and keep it as long as they like;
// write transactions are serialised, work on their own copy-on-write root, and either
// commit whole (triggers then hear which paths and policies changed) or leave nothing.

import { isPlainObject, newPlainObject } from '../value/index.js';
import type { PlainObject, Value } from '../value/index.js';
import { StorageError, isStorageError, writeConflict } from './errors.js';
import { pathToString, type StoragePath } from './path.js';
import { applyWrite, existsAt, readAt, type WriteOp } from './tree.js';
import type { Persistence } from './persist.js';

/** A stored policy module. `info` is whatever the engine keeps (parsed/compiled form); storage never looks at it. */
export interface PolicyRecord {
  readonly id: string;
  readonly raw: string;
  readonly info?: unknown;
}

export interface DataChange {
  readonly path: readonly string[];
  readonly removed: boolean;
}

export interface PolicyChange {
  readonly id: string;
  readonly removed: boolean;
}

export interface CommitEvent {
  readonly revision: number;
  readonly data: readonly DataChange[];
  readonly policies: readonly PolicyChange[];
  readonly policyChanged: boolean;
  readonly dataChanged: boolean;
  /** Whatever the writer passed to transact(); lets a trigger recognise its own commits. */
  readonly context?: unknown;
}

export type Trigger = (event: CommitEvent, snapshot: Snapshot) => void;

/** A consistent, never-changing view of the store at one revision. */
export class Snapshot {
  constructor(
    readonly data: PlainObject,
    readonly policies: ReadonlyMap<string, PolicyRecord>,
    readonly revision: number,
  ) {}

  read(path: StoragePath): Value {
    return readAt(this.data, path);
  }

  exists(path: StoragePath): boolean {
    return existsAt(this.data, path);
  }

  getPolicy(id: string): PolicyRecord {
    const p = this.policies.get(id);
    if (!p) throw policyNotFound(id);
    return p;
  }

  listPolicies(): PolicyRecord[] {
    return [...this.policies.values()];
  }
}

function policyNotFound(id: string): StorageError {
  return new StorageError('storage_not_found_error', `policy id ${JSON.stringify(id)}`);
}

/** The working state of one write transaction. */
export class WriteTxn {
  private root: PlainObject;
  private policies: Map<string, PolicyRecord> | undefined;
  private readonly base: Snapshot;
  readonly dataChanges: DataChange[] = [];
  readonly policyChanges = new Map<string, boolean>();
  /** Handed to triggers with the commit (overrides the one given to transact()). */
  context: unknown;
  private closed = false;

  constructor(base: Snapshot) {
    this.base = base;
    this.root = base.data;
  }

  /** The data root as this transaction sees it (including its own writes). */
  get data(): PlainObject {
    return this.root;
  }

  private check(): void {
    if (this.closed) throw new StorageError('storage_invalid_txn_error', 'stale transaction');
  }

  read(path: StoragePath): Value {
    this.check();
    return readAt(this.root, path);
  }

  exists(path: StoragePath): boolean {
    this.check();
    return existsAt(this.root, path);
  }

  /** One add/replace/remove with OPA's rules. Throws (changing nothing) when impossible. */
  write(op: WriteOp, path: StoragePath, value?: Value): void {
    this.check();
    this.root = applyWrite(this.root, op, path, value);
    this.dataChanges.push({ path: [...path], removed: op === 'remove' });
  }

  /** Creates every missing object along `path` (OPA's storage.MakeDir); a non-object in the way is a write conflict. */
  makeDir(path: StoragePath): void {
    this.check();
    for (let i = 1; i <= path.length; i++) {
      const prefix = path.slice(0, i);
      let node: Value;
      try {
        node = readAt(this.root, prefix);
      } catch (e) {
        if (!isStorageError(e, 'storage_not_found_error')) throw e;
        this.write('add', prefix, newPlainObject());
        continue;
      }
      if (!isPlainObject(node)) throw writeConflict(pathToString(prefix));
    }
  }

  private policyMap(): Map<string, PolicyRecord> {
    this.policies ??= new Map(this.base.policies);
    return this.policies;
  }

  getPolicy(id: string): PolicyRecord {
    this.check();
    const p = (this.policies ?? this.base.policies).get(id);
    if (!p) throw policyNotFound(id);
    return p;
  }

  listPolicies(): PolicyRecord[] {
    this.check();
    return [...(this.policies ?? this.base.policies).values()];
  }

  upsertPolicy(id: string, raw: string, info?: unknown): void {
    this.check();
    this.policyMap().set(id, { id, raw, info });
    this.policyChanges.set(id, false);
  }

  deletePolicy(id: string): void {
    this.check();
    const m = this.policyMap();
    if (!m.has(id)) throw policyNotFound(id);
    m.delete(id);
    this.policyChanges.set(id, true);
  }

  /** @internal */
  finish(): { data: PlainObject; policies: ReadonlyMap<string, PolicyRecord> } {
    this.closed = true;
    return { data: this.root, policies: this.policies ?? this.base.policies };
  }
}

export interface StoreOptions {
  /** Initial base documents (an object). */
  data?: PlainObject;
  /** Where commits are written before they become visible; loaded at construction. */
  persistence?: Persistence;
  /** Called with errors thrown by triggers (they never undo a commit). */
  onTriggerError?: (err: unknown) => void;
}

export class Store {
  private current: Snapshot;
  private readonly triggers = new Set<Trigger>();
  private lock: Promise<void> = Promise.resolve();
  private writing = false;
  private readonly persistence: Persistence | undefined;
  private readonly onTriggerError: (err: unknown) => void;

  constructor(opts: StoreOptions = {}) {
    this.persistence = opts.persistence;
    this.onTriggerError = opts.onTriggerError ?? (() => {});
    let data = opts.data ?? newPlainObject();
    const policies = new Map<string, PolicyRecord>();
    const loaded = this.persistence?.load();
    if (loaded) {
      data = loaded.data;
      for (const [id, raw] of Object.entries(loaded.policies)) policies.set(id, { id, raw });
    }
    this.current = new Snapshot(data, policies, 0);
  }

  /** The latest committed state. Holding it never blocks or disturbs writers. */
  snapshot(): Snapshot {
    return this.current;
  }

  read(path: StoragePath): Value {
    return this.current.read(path);
  }

  /** Registers a commit trigger; returns a function that removes it. */
  onCommit(trigger: Trigger): () => void {
    this.triggers.add(trigger);
    return () => this.triggers.delete(trigger);
  }

  /**
   * Runs `fn` in a write transaction. Transactions run one at a time. When `fn` returns
   * (or its promise resolves) the transaction commits; when it throws, nothing changes.
   */
  async transact<T>(fn: (txn: WriteTxn) => T | Promise<T>, context?: unknown): Promise<T> {
    const prev = this.lock;
    let release!: () => void;
    this.lock = new Promise((r) => (release = r));
    await prev;
    this.writing = true;
    try {
      const txn = new WriteTxn(this.current);
      const out = await fn(txn);
      this.commit(txn, context);
      return out;
    } finally {
      this.writing = false;
      release();
    }
  }

  /** A synchronous transaction (no awaiting inside); refused while an async one is open. */
  transactSync<T>(fn: (txn: WriteTxn) => T, context?: unknown): T {
    if (this.writing) throw new StorageError('storage_invalid_txn_error', 'another write transaction is in progress');
    this.writing = true;
    try {
      const txn = new WriteTxn(this.current);
      const out = fn(txn);
      this.commit(txn, context);
      return out;
    } finally {
      this.writing = false;
    }
  }

  private commit(txn: WriteTxn, context: unknown): void {
    const { data, policies } = txn.finish();
    const dataChanged = txn.dataChanges.length > 0;
    const policyChanged = txn.policyChanges.size > 0;
    if (!dataChanged && !policyChanged) return;
    if (this.persistence) {
      const raws: Record<string, string> = {};
      for (const [id, p] of policies) raws[id] = p.raw;
      try {
        // Durable before visible: if the disk write fails, the commit does not happen.
        this.persistence.save({ data, policies: raws });
      } catch (e) {
        throw new StorageError('storage_internal_error', `persisting the store failed: ${(e as Error).message}`);
      }
    }
    const snap = new Snapshot(data, policies, this.current.revision + 1);
    this.current = snap;
    const event: CommitEvent = {
      revision: snap.revision,
      data: txn.dataChanges,
      policies: [...txn.policyChanges].map(([id, removed]) => ({ id, removed })),
      policyChanged,
      dataChanged,
      context: txn.context ?? context,
    };
    for (const t of this.triggers) {
      try {
        t(event, snap);
      } catch (e) {
        this.onTriggerError(e);
      }
    }
  }
}
