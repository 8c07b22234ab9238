// Activating a bundle: in ONE store transaction, erase what the bundle's previous version
// owned (its roots, its modules), write the new data under the roots, install its modules
// and record its manifest at data.system.bundles.<name>. The engine's installModules
// parses every module and compiles the whole module set BEFORE the commit: any failure
// throws and changes nothing, so the last good bundle keeps serving, and the compiled
// policy is the one the engine then serves from (a bundle compiles once).

import { isPlainObject, newPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { Engine, ModuleInstall } from '../../engine/index.js';
import { isStorageError, type Store, type WriteTxn } from '../../storage/index.js';
import { regoVersionForFile, rootPathsOverlap, type Bundle, type Manifest } from '../../bundle/index.js';

/** What the bundle plugin needs from the engine: atomic install and removal of a bundle. */
export interface BundleActivator {
  /** Installs a snapshot bundle, or applies a delta bundle; throws and changes nothing on failure. */
  activate(name: string, bundle: Bundle, etag?: string): Promise<void>;
  /** Removes everything a bundle owns (when it leaves the configuration). */
  deactivate(name: string): Promise<void>;
  /** The revision of the active bundle, if any. */
  activeRevision(name: string): string | undefined;
}

export class ActivationError extends Error {
  constructor(message: string, readonly errors: string[] = []) {
    super(message);
    this.name = 'ActivationError';
  }
}

const SYSTEM_BUNDLES = ['system', 'bundles'];

function rootKey(root: string): string[] {
  return root === '' ? [] : root.split('/');
}

function readAt(data: Value, key: string[]): Value | undefined {
  let cur: Value | undefined = data;
  for (const k of key) {
    if (!isPlainObject(cur ?? null)) return undefined;
    cur = Object.hasOwn(cur as PlainObject, k) ? (cur as PlainObject)[k] : undefined;
  }
  return cur;
}

function tryRead(txn: WriteTxn, key: string[]): Value | undefined {
  try {
    return txn.read(key);
  } catch (e) {
    if (isStorageError(e, 'storage_not_found_error')) return undefined;
    throw e;
  }
}

/** Plain JSON into the store's value form (objects without prototype). */
function toValue(v: unknown): Value {
  if (Array.isArray(v)) return v.map(toValue);
  if (v && typeof v === 'object') {
    const o = newPlainObject();
    for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = toValue(x);
    return o;
  }
  return v as Value;
}

function manifestDoc(m: Manifest): Value {
  const o: Record<string, unknown> = { revision: m.revision, roots: m.roots ?? [''] };
  if (m.rego_version !== undefined) o.rego_version = m.rego_version;
  if (m.metadata) o.metadata = m.metadata;
  return toValue(o);
}

interface Diagnostic {
  code: string;
  message: string;
  location?: { file: string; row: number };
}

/** Parse/compile errors (the library's or the engine's) carry a list of diagnostics. */
function diagnosticsOf(e: unknown): Diagnostic[] | undefined {
  const errs = e instanceof Error ? (e as { errors?: unknown }).errors : undefined;
  return Array.isArray(errs) && errs.every((d) => d && typeof d === 'object' && 'message' in d) ? (errs as Diagnostic[]) : undefined;
}

function errorsOf(e: unknown): ActivationError {
  if (e instanceof ActivationError) return e;
  const diags = diagnosticsOf(e);
  if (diags) {
    const errs = diags.map((d) => (d.location ? `${d.location.file}:${d.location.row}: ${d.code}: ${d.message}` : `${d.code}: ${d.message}`));
    return new ActivationError((e as Error).message, errs);
  }
  return new ActivationError(e instanceof Error ? e.message : String(e));
}

function moduleId(bundle: string, path: string): string {
  return `${bundle}/${path.replace(/^\/+/, '')}`;
}

/** Splits a patch path ("/a/b~1c") into segments. */
function patchPath(p: string): string[] {
  const t = p.replace(/^\/+|\/+$/g, '');
  return t === '' ? [] : t.split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** What activation needs of the engine: its store, and atomic installation of modules. */
export type ModuleEngine = Pick<Engine, 'store' | 'installModules'>;

export interface StoreActivatorOptions {
  /** Rego version of modules whose manifest says nothing (v1 unless --v0-compatible). */
  regoVersion?: 'v0' | 'v1';
}

/** The BundleActivator over the document store. */
export class StoreActivator implements BundleActivator {
  private readonly store: Store;
  constructor(
    private readonly engine: ModuleEngine,
    private readonly opts: StoreActivatorOptions = {},
  ) {
    this.store = engine.store;
  }

  activeRevision(name: string): string | undefined {
    const r = readAt(this.store.snapshot().data, [...SYSTEM_BUNDLES, name, 'manifest', 'revision']);
    return typeof r === 'string' ? r : undefined;
  }

  private activeRoots(txn: WriteTxn): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const all = tryRead(txn, SYSTEM_BUNDLES);
    if (!isPlainObject(all ?? null)) return out;
    for (const [name, b] of Object.entries(all as PlainObject)) {
      const roots = readAt(b, ['manifest', 'roots']);
      out.set(name, Array.isArray(roots) ? roots.filter((r): r is string => typeof r === 'string') : ['']);
    }
    return out;
  }

  /** The bundle's modules by id, each with the Rego version its manifest gives it. */
  private modulesOf(bundleName: string, bundle: Bundle): ModuleInstall[] {
    return bundle.modules.map((m) => {
      const v = regoVersionForFile(bundle.manifest, m.path);
      const regoVersion = v === 0 ? 'v0' : v === 1 ? 'v1' : (this.opts.regoVersion ?? 'v1');
      return { id: moduleId(bundleName, m.path), raw: m.text, regoVersion };
    });
  }

  async activate(name: string, bundle: Bundle, etag?: string): Promise<void> {
    try {
      await this.store.transact((txn) => (bundle.patch ? this.applyDelta(txn, name, bundle, etag) : this.applySnapshot(txn, name, bundle, etag)));
    } catch (e) {
      throw errorsOf(e);
    }
  }

  private applySnapshot(txn: WriteTxn, name: string, bundle: Bundle, etag?: string): void {
    const roots = bundle.manifest.roots ?? [''];
    const active = this.activeRoots(txn);
    const overlapping = [...active].filter(([other, rs]) => other !== name && rs.some((a) => roots.some((b) => rootPathsOverlap(a, b)))).map(([n]) => n);
    if (overlapping.length) {
      throw new ActivationError(`detected overlapping roots in manifests for these bundles: [${[name, ...overlapping].sort().join(', ')}]`);
    }
    this.replaceModules(txn, `${name}/`, this.modulesOf(name, bundle));

    // Erase what the previous version owned, then what the new one will own.
    for (const root of new Set([...(active.get(name) ?? []), ...roots])) this.erase(txn, rootKey(root));
    for (const root of roots) {
      const key = rootKey(root);
      const v = readAt(bundle.data, key);
      if (v === undefined) continue;
      if (key.length === 0) {
        for (const [k, x] of Object.entries(v as PlainObject)) {
          if (k === 'system' && isPlainObject(x)) {
            for (const [k2, x2] of Object.entries(x)) if (k2 !== 'bundles') this.put(txn, ['system', k2], x2);
          } else this.put(txn, [k], x);
        }
      } else this.put(txn, key, v);
    }
    this.recordManifest(txn, name, bundle.manifest, etag);
  }

  /**
   * Replaces every module whose id starts with `prefix` by `add`; the engine compiles the
   * resulting set once and throws (the transaction then aborts) when it does not compile.
   */
  private replaceModules(txn: WriteTxn, prefix: string, add: ModuleInstall[]): void {
    const ids = new Set(add.map((m) => m.id));
    const remove = txn.listPolicies().filter((p) => p.id.startsWith(prefix) && !ids.has(p.id)).map((p) => p.id);
    this.engine.installModules({ upsert: add, remove }, txn);
  }

  private applyDelta(txn: WriteTxn, name: string, bundle: Bundle, etag?: string): void {
    const active = this.activeRoots(txn).get(name);
    if (!active) throw new ActivationError(`delta bundle ${name}: no snapshot bundle is active to apply it to`);
    for (const op of bundle.patch!.data) {
      const key = patchPath(op.path);
      if (op.op === 'remove') {
        if (tryRead(txn, key) === undefined) throw new ActivationError(`delta bundle ${name}: remove of missing path ${op.path}`);
        txn.write('remove', key);
      } else if (op.op === 'replace') {
        if (tryRead(txn, key) === undefined) throw new ActivationError(`delta bundle ${name}: replace of missing path ${op.path}`);
        txn.write('replace', key, toValue(op.value));
      } else {
        this.put(txn, key, toValue(op.value));
      }
    }
    this.recordManifest(txn, name, { ...bundle.manifest, roots: bundle.manifest.roots ?? active }, etag);
  }

  private erase(txn: WriteTxn, key: string[]): void {
    if (key.length === 0) {
      const root = txn.data;
      for (const k of Object.keys(root)) {
        if (k !== 'system') txn.write('remove', [k]);
        else {
          const sys = root[k];
          if (isPlainObject(sys ?? null)) for (const k2 of Object.keys(sys as PlainObject)) if (k2 !== 'bundles') txn.write('remove', ['system', k2]);
        }
      }
      return;
    }
    if (tryRead(txn, key) !== undefined) txn.write('remove', key);
  }

  /** Upsert: parents created, an existing value replaced. */
  private put(txn: WriteTxn, key: string[], value: Value): void {
    if (key.length > 1) txn.makeDir(key.slice(0, -1));
    txn.write(tryRead(txn, key) === undefined ? 'add' : 'replace', key, value);
  }

  private recordManifest(txn: WriteTxn, name: string, m: Manifest, etag?: string): void {
    const doc = newPlainObject();
    doc['manifest'] = manifestDoc(m);
    doc['etag'] = etag ?? '';
    this.put(txn, [...SYSTEM_BUNDLES, name], doc);
  }

  async deactivate(name: string): Promise<void> {
    await this.store.transact((txn) => {
      const roots = this.activeRoots(txn).get(name);
      if (!roots) return;
      this.replaceModules(txn, `${name}/`, []);
      for (const r of roots) this.erase(txn, rootKey(r));
      txn.write('remove', [...SYSTEM_BUNDLES, name]);
    });
  }
}
