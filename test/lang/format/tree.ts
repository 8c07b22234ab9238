// Tree comparison for formatter tests: the parsed module as OPA-shaped JSON without
// locations, with the differences opa fmt is allowed to make taken out: imports are
// sorted (opa fmt sorts them), `=` in rule heads may become `:=` (v1 output), wildcard
// numbering may shift, and comments are compared as a list of texts.

import { moduleToJSON, type Module } from '../../../src/lang/index.js';

function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'assign') continue;
      out[k] = strip(x);
    }
    // Wildcards are numbered in parse order; only their being wildcards matters.
    if (out.type === 'var' && typeof out.value === 'string' && out.value.startsWith('$')) out.value = '$';
    return out;
  }
  return v;
}

export interface TreeOptions {
  /** Leave out `import rego.v1` / `import future.keywords...` (v0 -> v1 conversion). */
  dropV0Imports?: boolean;
  /** Leave out `import future.keywords...` only (redundant next to `import rego.v1`). */
  dropFutureImports?: boolean;
}

function isFutureImport(imp: unknown): boolean {
  return (imp as { path: { value: { value: string }[] } }).path.value[0]!.value === 'future';
}

function isV0Import(imp: unknown): boolean {
  const path = (imp as { path: { value: { value: string }[] } }).path.value.map((t) => t.value);
  return path[0] === 'future' || (path[0] === 'rego' && path[1] === 'v1' && path.length === 2);
}

export function tree(m: Module, opts: TreeOptions = {}): unknown {
  const json = moduleToJSON(m) as Record<string, unknown>;
  delete json.comments;
  let imports = (json.imports as unknown[] | undefined) ?? [];
  if (opts.dropV0Imports) imports = imports.filter((i) => !isV0Import(i));
  if (opts.dropFutureImports) imports = imports.filter((i) => !isFutureImport(i));
  const sorted = imports.map((i) => JSON.stringify(strip(i))).sort();
  json.imports = sorted;
  const out = strip(json) as Record<string, unknown>;
  out.imports = sorted;
  out.comments = m.comments.map((c) => c.text.trimEnd());
  return out;
}
