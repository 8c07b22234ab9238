// A stand-in engine for testing the HTTP layer where Rego semantics play no part. It keeps
// policies in the real Store, reads base documents from the real snapshot, and lets a
// test declare virtual documents as plain functions. Anything Rego-specific is refused.

import { Store, isStorageError, readAt, type Snapshot, type WriteTxn } from '../../src/storage/index.js';
import type { Value } from '../../src/value/index.js';
import {
  EngineError,
  type CompileRequest,
  type CompileResult,
  type Engine,
  type EvalOptions,
  type EvalResult,
  type ModuleChanges,
  type PolicyModule,
  type EngineQueryResult,
} from '../../src/engine/types.js';

export type VirtualDoc = (input: Value | undefined) => Value | undefined | Promise<Value | undefined>;

export class FakeEngine implements Engine {
  readonly store: Store;
  /** "a/b" -> function computing data.a.b */
  readonly virtual = new Map<string, VirtualDoc>();
  /** module id -> ids of modules that depend on it */
  readonly dependents = new Map<string, string[]>();
  evaluations = 0;

  constructor(store = new Store()) {
    this.store = store;
  }

  listPolicies(): PolicyModule[] {
    return this.store.snapshot().listPolicies().map((p) => ({ id: p.id, raw: p.raw, ast: { fake: p.id } }));
  }

  getPolicy(id: string): PolicyModule | undefined {
    return this.listPolicies().find((p) => p.id === id);
  }

  async putPolicy(id: string, raw: string, opts?: { metrics?: boolean }) {
    if (raw.trim() === '') throw new EngineError('bad_request', 'empty module');
    if (raw.includes('PARSE_ERROR')) {
      throw new EngineError('parse', 'parse error', [
        { code: 'rego_parse_error', message: 'unexpected eof token', location: { file: id, row: 1, col: 1 } },
      ]);
    }
    if (raw.includes('COMPILE_ERROR')) {
      throw new EngineError('compile', 'compile error', [
        { code: 'rego_unsafe_var_error', message: 'var x is unsafe', location: { file: id, row: 2, col: 3 } },
      ]);
    }
    await this.store.transact((t) => t.upsertPolicy(id, raw));
    return opts?.metrics ? { metrics: { timer_rego_module_parse_ns: 1, timer_rego_module_compile_ns: 1 } } : {};
  }

  async deletePolicy(id: string) {
    this.store.snapshot().getPolicy(id); // throws not found
    const deps = this.dependents.get(id);
    if (deps?.length) {
      throw new EngineError('compile', 'compile error', [
        { code: 'rego_type_error', message: 'undefined ref: data.lib.x', location: { file: deps[0]!, row: 3, col: 5 } },
      ]);
    }
    await this.store.transact((t) => t.deletePolicy(id));
    return {};
  }

  /** No compiler here: modules are stored as given, and refused on the same markers as putPolicy. */
  installModules(changes: ModuleChanges, txn: WriteTxn): void {
    for (const m of changes.upsert ?? []) {
      if (m.raw.includes('COMPILE_ERROR')) throw new EngineError('compile', 'compile error', [{ code: 'rego_compile_error', message: `bad module ${m.id}` }]);
    }
    const present = new Set(txn.listPolicies().map((p) => p.id));
    for (const id of changes.remove ?? []) if (present.has(id)) txn.deletePolicy(id);
    for (const m of changes.upsert ?? []) txn.upsertPolicy(m.id, m.raw);
  }

  virtualDocumentPaths(): string[][] {
    return [...this.virtual.keys()].map((k) => k.split('/'));
  }

  hasRulesAt(ref: Value[]): boolean {
    return this.virtual.has(ref.map(String).join('/'));
  }

  async evaluate(ref: Value[], opts: EvalOptions): Promise<EvalResult> {
    this.evaluations++;
    const fn = this.virtual.get(ref.map(String).join('/'));
    const metrics = opts.metrics || opts.instrument ? { timer_rego_query_eval_ns: 1 } : undefined;
    if (fn) {
      const result = await fn(opts.input);
      return { result, metrics, explanation: opts.explain ? ['Enter data.' + ref.join('.')] : undefined };
    }
    const snap: Snapshot = opts.snapshot ?? this.store.snapshot();
    try {
      return { result: readAt(snap.data, ref.map(String)), metrics };
    } catch (e) {
      if (isStorageError(e, 'storage_not_found_error')) return { metrics };
      throw e;
    }
  }

  validateQuery(query: string): void {
    if (query !== 'x = 1' && !query.startsWith('data.')) {
      throw new EngineError('parse', 'parse error', [{ code: 'rego_parse_error', message: 'fake engine: unsupported query' }]);
    }
  }

  async query(query: string, opts: EvalOptions): Promise<EngineQueryResult> {
    this.validateQuery(query);
    if (query === 'x = 1') return { result: [{ x: 1 }] };
    const r = await this.evaluate(query.slice(5).split('.'), opts);
    return { result: r.result === undefined ? [] : [{}] };
  }

  async compile(_req: CompileRequest): Promise<CompileResult> {
    throw new EngineError('unimplemented', 'partial evaluation is not implemented yet');
  }
}
