// `-s, --schema <file or dir>` (eval, check, test), as OPA's loader.Schemas reads it:
// - a file is the schema of `input` for every rule and the query;
// - a directory holds schemas by path, `schema.<path>` in `schemas:` annotations
//   (`input.json` -> schema.input, `k8s/pod.yaml` -> schema.k8s.pod); as in OPA it gives
//   `input` no type by itself: an annotation says which rules a schema applies to.
// Files are JSON or YAML.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import yaml from 'js-yaml';
import { SchemaError, schemaToType, type TypeDecl } from '../engine/index.js';
import { CLIError } from './io.js';

export interface SchemaOptions {
  /** The type of input everywhere (a single schema file). */
  inputType?: TypeDecl;
  /** The schemas annotations may name, by path (`''`: the single file). */
  schemas?: ReadonlyMap<string, unknown>;
}

/** What --schema gives the compiler; empty without the flag. */
export function schemaOptions(path: string | undefined): SchemaOptions {
  if (path === undefined) return {};
  if (!existsSync(path)) throw new CLIError(`unable to read schema: stat ${path}: no such file or directory`);
  if (!statSync(path).isDirectory()) {
    const schema = readSchema(path);
    return { inputType: toType(schema, path), schemas: new Map([['', schema]]) };
  }
  const schemas = new Map<string, unknown>();
  for (const file of filesUnder(path)) {
    const rel = relative(path, file);
    const key = rel.slice(0, rel.length - extname(rel).length).split(sep).join('/');
    // Converted when an annotation names it (as OPA): an unused schema never fails a compile.
    schemas.set(key, readSchema(file));
  }
  return { schemas };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

function readSchema(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  try {
    return /\.ya?ml$/i.test(file) ? yaml.load(text, { schema: yaml.JSON_SCHEMA }) : JSON.parse(text);
  } catch (e) {
    throw new CLIError(`unable to read schema ${file}: ${(e as Error).message}`);
  }
}

function toType(schema: unknown, file: string): TypeDecl {
  try {
    return schemaToType(schema);
  } catch (e) {
    if (e instanceof SchemaError) throw new CLIError(`schema ${file}: ${e.message}`);
    throw e;
  }
}
