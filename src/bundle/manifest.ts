// The .manifest file: decoding with Go-like type checks, OPA's defaults, the per-file
// Rego version lookup, and the canonical text `opa build` writes.

import { BundleError, type Manifest } from './types.js';
import { parseJSON, sortKeysDeep, type Value } from '../value/index.js';

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function bad(field: string, want: string, v: unknown): never {
  throw new BundleError(
    `bundle load failed on manifest decode: json: cannot unmarshal ${typeName(v)} into Go struct field Manifest.${field} of type ${want}`,
  );
}

/** Decodes .manifest text; unknown fields are ignored as Go's decoder does. */
export function decodeManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BundleError(`bundle load failed on manifest decode: ${(e as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) bad('', 'bundle.Manifest', raw);
  const o = raw as Record<string, unknown>;
  const m: Manifest = { revision: '' };
  if (o.revision !== undefined && o.revision !== null) {
    if (typeof o.revision !== 'string') bad('revision', 'string', o.revision);
    m.revision = o.revision;
  }
  if (o.roots !== undefined && o.roots !== null) {
    if (!Array.isArray(o.roots) || o.roots.some((r) => typeof r !== 'string')) bad('roots', '[]string', o.roots);
    m.roots = o.roots as string[];
  }
  if (o.wasm !== undefined && o.wasm !== null) {
    if (!Array.isArray(o.wasm)) bad('wasm', '[]bundle.WasmResolver', o.wasm);
    m.wasm = o.wasm as Manifest['wasm'];
  }
  if (o.rego_version !== undefined && o.rego_version !== null) {
    if (typeof o.rego_version !== 'number' || !Number.isInteger(o.rego_version)) bad('rego_version', 'int', o.rego_version);
    m.rego_version = o.rego_version;
  }
  if (o.file_rego_versions !== undefined && o.file_rego_versions !== null) {
    const f = o.file_rego_versions;
    if (typeof f !== 'object' || Array.isArray(f) || Object.values(f).some((v) => !Number.isInteger(v))) {
      bad('file_rego_versions', 'map[string]int', f);
    }
    m.file_rego_versions = f as Record<string, number>;
  }
  if (o.metadata !== undefined && o.metadata !== null) {
    if (typeof o.metadata !== 'object' || Array.isArray(o.metadata)) bad('metadata', 'map[string]interface {}', o.metadata);
    m.metadata = o.metadata as Record<string, unknown>;
  }
  return m;
}

/** The roots, defaulting to [""] (the bundle owns all of data). */
export function manifestRoots(m: Manifest): string[] {
  return m.roots ?? [''];
}

/** Whether the manifest says nothing beyond the defaults (then no .manifest is written). */
export function manifestIsEmpty(m: Manifest): boolean {
  const roots = manifestRoots(m);
  return (
    m.revision === '' &&
    roots.length === 1 &&
    roots[0] === '' &&
    m.rego_version === undefined &&
    !m.wasm?.length &&
    !Object.keys(m.file_rego_versions ?? {}).length &&
    !Object.keys(m.metadata ?? {}).length
  );
}

/** .manifest text as OPA writes it: struct field order, maps sorted, trailing newline. */
export function manifestText(m: Manifest): string {
  const out: Record<string, unknown> = { revision: m.revision };
  out.roots = manifestRoots(m);
  if (m.wasm?.length) out.wasm = m.wasm;
  if (m.rego_version !== undefined) out.rego_version = m.rego_version;
  if (m.file_rego_versions && Object.keys(m.file_rego_versions).length) out.file_rego_versions = sortKeysDeep(m.file_rego_versions);
  if (m.metadata && Object.keys(m.metadata).length) out.metadata = sortKeysDeep(m.metadata);
  return JSON.stringify(out) + '\n';
}

/**
 * The manifest as OPA records it at data.system.bundles.<name>.manifest when it activates
 * a bundle: its JSON form, roots [""] when the file gave none.
 */
export function manifestDocument(m: Manifest): Value {
  return parseJSON(manifestText(m));
}

/** A gobwas-style glob (as OPA compiles file_rego_versions keys, no separators). */
function globToRegExp(glob: string): RegExp {
  let re = '^';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end < 0) throw new Error(`unexpected end of input in pattern ${glob}`);
      re += '(?:' + glob.slice(i + 1, end).split(',').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') + ')';
      i = end;
    } else if (c === '[') {
      const end = glob.indexOf(']', i);
      if (end < 0) throw new Error(`unexpected end of input in pattern ${glob}`);
      const cls = glob.slice(i + 1, end);
      re += '[' + (cls.startsWith('!') ? '^' + cls.slice(1) : cls) + ']';
      i = end;
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(re + '$');
}

/** The Rego version (0 or 1) for a module at `path`, or undefined when the manifest sets none. */
export function regoVersionForFile(m: Manifest, path: string): number | undefined {
  for (const [pattern, v] of Object.entries(m.file_rego_versions ?? {})) {
    let re: RegExp;
    try {
      re = globToRegExp(pattern);
    } catch (e) {
      throw new BundleError(`failed to compile glob pattern ${pattern}: ${(e as Error).message}`);
    }
    if (re.test(path) || re.test('/' + path)) return v;
  }
  return m.rego_version;
}
