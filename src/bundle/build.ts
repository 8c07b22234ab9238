// Building a bundle from paths, as `opa build` does. In bundle mode (-b) each path is a
// bundle directory or archive and they are merged. Otherwise paths are loaded as policy
// and data files: *.rego are policies at their given paths, *.json/*.yaml files are data
// mounted at their directory relative to the path given.

import { lstatSync, readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { basename, join, posix } from 'node:path';
import { dataKeyOf, insertData } from './data-tree.js';
import { normalizeEntryPath, readDirectoryEntries, readTarballEntries, type BundleEntry } from './files.js';
import { loadBundle, parseDataJSON, parseDataYAML, validateBundle } from './load.js';
import { mergeBundles } from './merge.js';
import { packagePathOf } from './package-path.js';
import { globMatch } from './verify.js';
import { BundleError, emptyBundle, type Bundle, type VerificationConfig } from './types.js';

export interface BuildOptions {
  bundleMode?: boolean;
  /** File and directory names to skip (globs on the base name, e.g. ".*"). */
  ignore?: string[];
  revision?: string;
  /** 0 or 1: the manifest's rego_version (1 unless --v0-compatible). */
  regoVersion?: number;
  /** Verify signed input bundles with these keys (bundle mode only). */
  verification?: VerificationConfig;
}

function ignored(name: string, patterns: string[]): boolean {
  return patterns.some((p) => globMatch(p, name));
}

function stat(path: string): Stats {
  try {
    return statSync(path);
  } catch {
    throw new BundleError(`stat ${path}: no such file or directory`);
  }
}

/** Drops ignored files (any path segment matching a pattern), as OPA's loader filter does. */
function filterEntries(entries: BundleEntry[], patterns: string[]): BundleEntry[] {
  if (!patterns.length) return entries;
  return entries.filter((e) => !e.path.split('/').some((seg) => ignored(seg, patterns)));
}

async function readInputBundle(path: string, opts: BuildOptions): Promise<Bundle> {
  const st = stat(path);
  const entries = st.isDirectory()
    ? filterEntries(readDirectoryEntries(path), opts.ignore ?? [])
    : await readTarballEntries(readFileSync(path));
  return loadBundle(entries, {
    verification: opts.verification,
    skipVerify: !opts.verification,
    source: st.isDirectory() ? path : undefined,
  });
}

/** Loads plain policy and data paths into one bundle (roots [""]). */
async function loadPaths(paths: string[], opts: BuildOptions): Promise<Bundle> {
  const patterns = opts.ignore ?? [];
  const bundle: Bundle = emptyBundle();
  const addFile = (file: string, modulePath: string, key: string[]): void => {
    const name = basename(file);
    if (name.endsWith('.rego')) {
      const raw = readFileSync(file);
      const text = raw.toString('utf8');
      bundle.modules.push({ path: modulePath, url: file, raw, text, packagePath: packagePathOf(text, file) });
    } else if (name.endsWith('.json')) {
      bundle.data = insertData(bundle.data, key, parseDataJSON(readFileSync(file, 'utf8'), file), file);
      bundle.dataFiles.push({ path: modulePath, url: file, key });
    } else if (name.endsWith('.yaml') || name.endsWith('.yml')) {
      bundle.data = insertData(bundle.data, key, parseDataYAML(readFileSync(file, 'utf8'), file), file);
      bundle.dataFiles.push({ path: modulePath, url: file, key });
    }
  };
  for (const arg of paths) {
    const st = stat(arg);
    const argPath = normalizeEntryPath(arg);
    if (!st.isDirectory()) {
      if (arg.endsWith('.tar.gz')) {
        const b = await readInputBundle(arg, opts);
        for (const m of b.modules) bundle.modules.push(m);
        bundle.data = insertData(bundle.data, [], b.data, arg);
        continue;
      }
      addFile(arg, argPath, []);
      continue;
    }
    const walk = (dir: string, rel: string[]): void => {
      for (const name of readdirSync(dir).sort()) {
        if (ignored(name, patterns)) continue;
        const full = join(dir, name);
        const s = lstatSync(full);
        if (s.isDirectory()) walk(full, [...rel, name]);
        else if (s.isFile() && !name.endsWith('.tar.gz')) {
          addFile(full, posix.join(argPath, ...rel, name), dataKeyOf([...rel, name].join('/')));
        }
      }
    };
    walk(arg, []);
  }
  const seen = new Set<string>();
  for (const m of bundle.modules) {
    if (seen.has(m.path)) throw new BundleError(`duplicate module path ${m.path}`);
    seen.add(m.path);
  }
  validateBundle(bundle);
  return bundle;
}

/** The bundle `opa build` would write for these paths (not yet serialised). */
export async function buildBundle(paths: string[], opts: BuildOptions = {}): Promise<Bundle> {
  if (paths.length === 0) throw new BundleError('expected at least one path');
  const regoVersion = opts.regoVersion ?? 1;
  let bundle: Bundle;
  if (opts.bundleMode) {
    const inputs: Bundle[] = [];
    for (const p of paths) inputs.push(await readInputBundle(p, opts));
    bundle = mergeBundles(inputs, regoVersion);
  } else {
    bundle = await loadPaths(paths, opts);
    bundle.manifest.roots = [''];
    bundle.manifest.rego_version = regoVersion;
  }
  if (opts.revision !== undefined) bundle.manifest.revision = opts.revision;
  // Signatures of the inputs never carry over: the output is re-signed or unsigned.
  delete bundle.signatures;
  return bundle;
}
