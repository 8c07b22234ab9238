// Loading policy and data from command-line paths, as OPA's loader does for `eval -d`,
// `test` and `run`: *.rego files are modules; *.json/*.yaml/*.yml files are data merged
// at the root, or under the sub-directory they sit in when found by walking a directory;
// `a.b:path` loads the path's content under data.a.b; a *.tar.gz is read as a bundle.
// Bundle paths (-b, or every path in bundle mode) use the bundle format's own rules.

import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainObject, newPlainObject, type PlainObject, type RegoVersion, type Value } from '../engine/index.js';
// The bundle modules reading needs, not the folder's index (which also brings in
// writing, signing and building).
import { parseDataJSON, parseDataYAML } from '../bundle/load.js';
import { regoVersionForFile } from '../bundle/manifest.js';
import { readBundle } from '../bundle/read.js';
import { BundleError, type Manifest, type VerificationConfig } from '../bundle/types.js';
import { insertData } from '../bundle/data-tree.js';
import { globMatch } from '../bundle/verify.js';

export interface LoadedModule {
  /** The file name errors and coverage report (the path as given, or inside a bundle). */
  file: string;
  text: string;
  regoVersion: RegoVersion;
}

/** A path loaded as a bundle (-b, or a *.tar.gz given as a path): OPA activates it under this name. */
export interface LocalBundle {
  /** The path as given on the command line (OPA's bundle name for it). */
  name: string;
  /** Its manifest (roots [""] and revision "" when it has no .manifest). */
  manifest: Manifest;
}

export interface Loaded {
  modules: LoadedModule[];
  data: PlainObject;
  /** The paths that were bundles, in the order given (their manifests go to data.system.bundles). */
  bundles?: LocalBundle[];
}

export interface LoadOptions {
  /** Plain policy/data paths (files, directories, `prefix:path`). */
  paths?: string[];
  /** Bundle directories or archives. */
  bundles?: string[];
  /** File and directory base names to skip (globs). */
  ignore?: string[];
  /** Syntax of modules that do not say otherwise (bundle manifests can). */
  regoVersion?: RegoVersion;
  /** Keys that bundle paths (not plain paths) must be signed with; unset, signatures are not checked. */
  verification?: VerificationConfig;
}

/** A loading problem the user must fix; the message is OPA-like and shown as is. */
export class LoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadError';
  }
}

function isDataFile(name: string): boolean {
  return name.endsWith('.json') || name.endsWith('.yaml') || name.endsWith('.yml');
}

/** OPA's `prefix:path` syntax: "a.b:/x/data.json" loads under data.a.b. */
export function splitPrefix(arg: string): { prefix: string[]; path: string } {
  const i = arg.indexOf(':');
  // A path that exists as written wins (file names may contain a colon).
  if (i <= 0 || existsSync(arg)) return { prefix: [], path: arg };
  return { prefix: arg.slice(0, i).split('.').filter((s) => s !== ''), path: arg.slice(i + 1) };
}

class Collector {
  readonly modules: LoadedModule[] = [];
  readonly bundles: LocalBundle[] = [];
  data: PlainObject = newPlainObject();
  constructor(
    readonly ignore: string[],
    readonly regoVersion: RegoVersion,
    readonly verification?: VerificationConfig,
  ) {}

  private merge(key: string[], value: Value, file: string): void {
    if (key.length === 0 && !isPlainObject(value)) throw new LoadError(`${file}: bad document type`);
    try {
      this.data = insertData(this.data, key, value, file);
    } catch (e) {
      if (e instanceof BundleError) throw new LoadError(`${file}: merge error`);
      throw e;
    }
  }

  async file(path: string, key: string[]): Promise<void> {
    const name = path.split('/').pop() ?? path;
    try {
      if (name.endsWith('.rego')) {
        this.modules.push({ file: path, text: readFileSync(path, 'utf8'), regoVersion: this.regoVersion });
      } else if (name.endsWith('.json')) {
        this.merge(key, parseDataJSON(readFileSync(path, 'utf8'), path), path);
      } else if (name.endsWith('.yaml') || name.endsWith('.yml')) {
        this.merge(key, parseDataYAML(readFileSync(path, 'utf8'), path), path);
      } else if (name.endsWith('.tar.gz')) {
        await this.bundle(path, key);
      }
    } catch (e) {
      if (e instanceof BundleError) throw new LoadError(e.message);
      throw e;
    }
  }

  walk(dir: string, key: string[], pending: string[][]): void {
    for (const name of readdirSync(dir).sort()) {
      if (this.ignore.some((p) => globMatch(p, name))) continue;
      const full = join(dir, name);
      const st = lstatSync(full);
      if (st.isDirectory()) this.walk(full, [...key, name], pending);
      else if (st.isFile() && (name.endsWith('.rego') || isDataFile(name) || name.endsWith('.tar.gz'))) pending.push([full, ...key]);
    }
  }

  async path(arg: string): Promise<void> {
    const { prefix, path } = splitPrefix(arg);
    let st;
    try {
      st = statSync(path);
    } catch {
      throw new LoadError(`stat ${path}: no such file or directory`);
    }
    if (!st.isDirectory()) {
      // a *.tar.gz given as a path (not found in a directory) is a bundle of its own, as OPA's LoadPaths splits them
      if (prefix.length === 0 && path.endsWith('.tar.gz')) return this.bundle(path, [], undefined, arg);
      return this.file(path, prefix);
    }
    const pending: string[][] = [];
    this.walk(path, prefix, pending);
    for (const [file, ...key] of pending) await this.file(file!, key);
  }

  /** Reads a bundle; `name` records it as a bundle OPA would activate (a *.tar.gz met in a directory walk is not). */
  async bundle(path: string, key: string[] = [], verification?: VerificationConfig, name?: string): Promise<void> {
    let b;
    try {
      b = await readBundle(path, verification ? { verification } : { skipVerify: true });
    } catch (e) {
      if (e instanceof BundleError) throw new LoadError(e.message);
      throw e;
    }
    const dir = statSync(path).isDirectory();
    for (const m of b.modules) {
      const v = regoVersionForFile(b.manifest, m.path);
      this.modules.push({
        file: dir ? join(path, m.path) : '/' + m.path,
        text: m.text,
        regoVersion: v === 0 ? 'v0' : v === 1 ? 'v1' : this.regoVersion,
      });
    }
    if (Object.keys(b.data).length > 0 || key.length > 0) this.merge(key, b.data, path);
    if (name !== undefined) this.bundles.push({ name, manifest: b.manifest });
  }
}

/** Reads every path; throws LoadError naming the file that could not be used. */
export async function loadPaths(opts: LoadOptions): Promise<Loaded> {
  const c = new Collector(opts.ignore ?? [], opts.regoVersion ?? 'v1', opts.verification);
  for (const p of opts.paths ?? []) await c.path(p);
  for (const b of opts.bundles ?? []) {
    if (!existsSync(b)) throw new LoadError(`stat ${b}: no such file or directory`);
    await c.bundle(b, [], opts.verification, b);
  }
  return { modules: c.modules, data: c.data, bundles: c.bundles };
}
