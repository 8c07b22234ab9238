// Turning a bundle's files into a Bundle, as OPA's bundle reader does: signature check
// first, then data files mounted at their directories, modules, manifest; finally the
// manifest roots are validated against everything the bundle contains.

import { posix } from 'node:path';
import yaml from 'js-yaml';
import { parseNumber, type PlainObject, type Value } from '../value/index.js';
import { dataKeyOf, insertData, walkData } from './data-tree.js';
import type { BundleEntry } from './files.js';
import { JSONParseError, parseJSONText } from '../value/index.js';
import { decodeManifest, manifestRoots } from './manifest.js';
import { packagePathOf } from './package-path.js';
import { formatRoots, normalizeRoot, rootPathsContain, rootPathsOverlap } from './roots.js';
import { SIGNATURES_FILE } from './sign.js';
import { BundleError, emptyBundle, type Bundle, type Manifest, type SignaturesConfig, type VerificationConfig } from './types.js';
import { verifyBundleFiles, verifyBundleSignature } from './verify.js';

export interface LoadOptions {
  /** Keys and signing settings; when set, the bundle must be signed with them. */
  verification?: VerificationConfig;
  /** Ignore .signatures.json entirely (what `opa eval`/`opa test` do). */
  skipVerify?: boolean;
  /** For messages: prefix of file names (the bundle's path or URL). */
  source?: string;
}

/** JSON text → a Rego value, numbers kept exact. */
export function parseDataJSON(text: string, file: string): Value {
  try {
    return parseJSONText<Value>(text, (lit) => parseNumber(lit)!) as Value;
  } catch (e) {
    const msg = e instanceof JSONParseError ? e.message : String(e);
    throw new BundleError(`bundle load failed on ${file}: ${msg}`);
  }
}

export function parseDataYAML(text: string, file: string): Value {
  try {
    return (yaml.load(text, { schema: yaml.CORE_SCHEMA }) ?? null) as Value;
  } catch (e) {
    throw new BundleError(`bundle load failed on ${file}: ${(e as Error).message}`);
  }
}

function decodeSignatures(bytes: Uint8Array): SignaturesConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    throw new BundleError(`bundle load failed on signatures decode: ${(e as Error).message}`);
  }
  const o = raw as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null || (o.signatures !== undefined && (!Array.isArray(o.signatures) || o.signatures.some((s) => typeof s !== 'string')))) {
    throw new BundleError('bundle load failed on signatures decode: signatures must be a list of strings');
  }
  const sc: SignaturesConfig = {};
  if (o.signatures) sc.signatures = o.signatures as string[];
  if (typeof o.plugin === 'string' && o.plugin) sc.plugin = o.plugin;
  return sc;
}

/**
 * OPA names the files of a directory bundle by the directory as given joined with the file
 * ("foo/x.rego" for `opa sign -b foo`, and it verifies `opa run -b foo` by the same names);
 * such names are read here relative to the directory, and plain relative names still match.
 */
function directoryNames<T>(files: Map<string, T>, dir: string): Map<string, T> {
  const prefix = `${posix.join(dir.replace(/\\/g, '/'), '.').replace(/^\/+/, '')}/`;
  if (prefix === './') return files;
  const out = new Map<string, T>();
  for (const [name, f] of files) out.set(name.startsWith(prefix) ? name.slice(prefix.length) : name, f);
  return out;
}

/** Builds a Bundle from its files; throws BundleError with OPA's messages. */
export async function loadBundle(entries: BundleEntry[], opts: LoadOptions = {}): Promise<Bundle> {
  const sigEntry = entries.find((e) => e.path === SIGNATURES_FILE);
  let signatures: SignaturesConfig | undefined;
  if (sigEntry) {
    try {
      signatures = decodeSignatures(sigEntry.bytes);
    } catch (e) {
      // Without verification the file is only informative (shown by inspect).
      if (!opts.skipVerify) throw e;
    }
  }
  const patchEntry = entries.find((e) => e.path === 'patch.json');

  const bundle: Bundle = emptyBundle();
  if (signatures) bundle.signatures = signatures;

  if (!patchEntry && !opts.skipVerify) {
    const hasSigs = !!signatures && (signatures.signatures?.length ?? 0) + (signatures.plugin ? 1 : 0) > 0;
    if (!hasSigs && opts.verification) throw new BundleError('bundle missing .signatures.json file');
    if (hasSigs) {
      if (!opts.verification) throw new BundleError('verification key not provided');
      const files = await verifyBundleSignature(signatures!, opts.verification);
      verifyBundleFiles(entries, opts.source ? directoryNames(files, opts.source) : files, opts.verification.exclude_files);
    }
  }

  let data: PlainObject = bundle.data;
  for (const e of entries) {
    if (e.path === SIGNATURES_FILE) continue;
    const base = posix.basename(e.path);
    const shown = opts.source ? posix.join(opts.source, e.path) : e.path;
    if (e.path.endsWith('.rego')) {
      const text = Buffer.from(e.bytes).toString('utf8');
      bundle.modules.push({ path: e.path, url: e.url, raw: e.bytes, text, packagePath: packagePathOf(text, shown) });
    } else if (base === 'policy.wasm') {
      bundle.wasmModules.push({ path: e.path, raw: e.bytes });
    } else if (base === 'data.json' || base === 'data.yaml' || base === 'data.yml') {
      const text = Buffer.from(e.bytes).toString('utf8');
      const value = base === 'data.json' ? parseDataJSON(text, shown) : parseDataYAML(text, shown);
      const key = dataKeyOf(e.path);
      data = insertData(data, key, value, shown);
      bundle.dataFiles.push({ path: e.path, url: e.url, key });
    } else if (e.path === '.manifest') {
      bundle.manifest = decodeManifest(Buffer.from(e.bytes).toString('utf8'));
      bundle.hasManifest = true;
    } else if (e.path === 'patch.json') {
      bundle.patch = decodePatch(e.bytes);
    }
  }
  bundle.data = data;

  if (bundle.patch) {
    if (bundle.dataFiles.length) throw new BundleError('delta bundle expected to contain only patch file but data files found');
    if (bundle.modules.length) throw new BundleError('delta bundle expected to contain only patch file but policy files found');
    if (bundle.wasmModules.length) throw new BundleError('delta bundle expected to contain only patch file but wasm files found');
  }

  validateBundle(bundle);
  return bundle;
}

function decodePatch(bytes: Uint8Array): NonNullable<Bundle['patch']> {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    throw new BundleError(`bundle load failed on patch decode: ${(e as Error).message}`);
  }
  const ops = (raw as { data?: unknown })?.data ?? [];
  if (!Array.isArray(ops)) throw new BundleError('bundle load failed on patch decode: data must be a list');
  for (const op of ops as { op?: unknown; path?: unknown }[]) {
    if (!op || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw new BundleError('bundle load failed on patch decode: each operation needs "op" and "path"');
    }
    if (!['upsert', 'remove', 'replace'].includes(op.op)) {
      throw new BundleError(`bundle load failed on patch decode: unsupported patch operation "${op.op}"`);
    }
  }
  return { data: ops as NonNullable<Bundle['patch']>['data'] };
}

/**
 * OPA's manifest validation: roots may not overlap; every module's package and every
 * data path must lie under a root. Normalises the manifest's roots in place.
 */
export function validateBundle(bundle: Bundle): void {
  const m: Manifest = bundle.manifest;
  const roots = manifestRoots(m).map(normalizeRoot);
  m.roots = roots;

  for (let i = 0; i < roots.length - 1; i++) {
    for (let j = i + 1; j < roots.length; j++) {
      if (rootPathsOverlap(roots[i]!, roots[j]!)) {
        throw new BundleError(`manifest has overlapped roots: '${roots[i]}' and '${roots[j]}'`);
      }
    }
  }

  for (const mod of bundle.modules) {
    if (!rootPathsContain(roots, mod.packagePath.join('/'))) {
      throw new BundleError(
        `manifest roots ${formatRoots(roots)} do not permit 'package ${mod.packagePath.join('.')}' in module '${mod.path}'`,
      );
    }
  }

  for (const w of m.wasm ?? []) {
    if (w.module !== undefined && !bundle.wasmModules.some((x) => x.path === w.module!.replace(/^\//, ''))) {
      throw new BundleError(`manifest references wasm module '${w.module}' but the module file does not exist`);
    }
    if (w.entrypoint !== undefined && !rootPathsContain(roots, w.entrypoint)) {
      throw new BundleError(`manifest roots ${formatRoots(roots)} do not permit '${w.entrypoint}' entrypoint for wasm module '${w.module}'`);
    }
  }

  for (const op of bundle.patch?.data ?? []) {
    const path = op.path.replace(/^\/+|\/+$/g, '');
    if (!rootPathsContain(roots, path)) {
      throw new BundleError(`manifest roots ${formatRoots(roots)} do not permit data patch at path '${path}'`);
    }
  }

  walkData(bundle.data, '', (path, node) => {
    const p = path.replace(/^\/+|\/+$/g, '');
    if (rootPathsContain(roots, p)) return true;
    // An object on the way to a root is fine: keep descending.
    const parts = p === '' ? [] : p.split('/');
    if (node !== null && typeof node === 'object' && !Array.isArray(node) && roots.some((r) => rootPathsContain([parts.join('/')], r) || p === '')) {
      return false;
    }
    throw new BundleError(
      `manifest roots ${formatRoots(roots)} do not permit data at path '/${p}' (hint: check bundle directory structure)`,
    );
  });
}
