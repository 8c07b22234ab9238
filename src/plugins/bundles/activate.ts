// Activating a bundle: in ONE store transaction, erase what the bundle's previous version
// owned (its roots, its modules), write the new data under the roots, install its modules
// and record its manifest at data.system.bundles.<name>. Every module is parsed and the
// whole module set compiled BEFORE the commit: any failure throws and changes nothing, so
// the last good bundle keeps serving. With an engine's installModules, that compilation is
// the one the engine serves from (a bundle compiles once).

import {
  compile,
  parseModule,
  isPlainObject,
  newPlainObject,
  type Module,
  type PlainObject,
  type Value,
} from '../../index.js';
import { isStorageError, type Store, type WriteTxn } from '../../storage/index.js';
import { regoVersionForFile, rootPathsOverlap, type Bundle, type Manifest } from '../bundle/index.js';

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

/**
 * The engine's way to install and remove many modules inside a write transaction,
 * compiling the result once (the server Engine's installModules). Throws on failure.
 */
export type ModuleInstaller = (changes: { upsert?: { id: string; raw: string; parsed?: Module }[]; remove?: string[] }, txn: WriteTxn) => void;

export interface StoreActivatorOptions {
  /** Rego version of modules whose manifest says nothing (v1 unless --v0-compatible). */
  regoVersion?: 'v0' | 'v1';
  /** Without it, modules are compiled here to check them and the engine recompiles on commit. */
  installModules?: ModuleInstaller;
}

/** The BundleActivator over the document store. */
export class StoreActivator implements BundleActivator {
  constructor(
    private readonly store: Store,
    private readonly opts: StoreActivatorOptions = {},
  ) {}

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

  private parse(bundleName: string, bundle: Bundle): Map<string, Module> {
    const out = new Map<string, Module>();
    for (const m of bundle.modules) {
      const v = regoVersionForFile(bundle.manifest, m.path);
      const regoVersion = v === 0 ? 'v0' : v === 1 ? 'v1' : (this.opts.regoVersion ?? 'v1');
      const id = moduleId(bundleName, m.path);
      out.set(id, parseModule(m.text, { filename: id, regoVersion }));
    }
    return out;
  }

  /** Every module after the change, compiled together; throws on a compile error. */
  private checkCompiles(txn: WriteTxn, remove: (id: string) => boolean, add: Map<string, Module>): void {
    const modules: Module[] = [];
    for (const p of txn.listPolicies()) {
      if (remove(p.id) || add.has(p.id)) continue;
      modules.push(isModule(p.info) ? p.info : parseModule(p.raw, { filename: p.id, regoVersion: this.opts.regoVersion ?? 'v1' }));
    }
    modules.push(...add.values());
    compile(modules);
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
    const modules = this.parse(name, bundle);
    const prefix = `${name}/`;
    const byId = new Map(bundle.modules.map((m) => [moduleId(name, m.path), m.text]));
    this.replaceModules(txn, prefix, modules, byId);

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
   * Replaces every module whose id starts with `prefix` by `add`, compiling the resulting
   * set once; throws (the transaction then aborts) when it does not compile.
   */
  private replaceModules(txn: WriteTxn, prefix: string, add: Map<string, Module>, raws: Map<string, string>): void {
    const remove = txn.listPolicies().filter((p) => p.id.startsWith(prefix) && !add.has(p.id)).map((p) => p.id);
    if (this.opts.installModules) {
      this.opts.installModules({ upsert: [...add].map(([id, parsed]) => ({ id, raw: raws.get(id)!, parsed })), remove }, txn);
      return;
    }
    this.checkCompiles(txn, (id) => id.startsWith(prefix), add);
    for (const id of remove) txn.deletePolicy(id);
    for (const [id, mod] of add) txn.upsertPolicy(id, raws.get(id)!, mod);
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
      this.replaceModules(txn, `${name}/`, new Map(), new Map());
      for (const r of roots) this.erase(txn, rootKey(r));
      txn.write('remove', [...SYSTEM_BUNDLES, name]);
    });
  }
}

function isModule(v: unknown): v is Module {
  return typeof v === 'object' && v !== null && 'package' in v && 'rules' in v;
}
