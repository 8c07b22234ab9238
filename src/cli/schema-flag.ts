// `-s, --schema <file or dir>` (eval, check): a JSON Schema for `input`, whose type the
// compiler checks refs into input against (OPA's `--schema`). A directory holds schemas by
// path as OPA's loader.Schemas reads it; its `input.json` is the input's schema. Schemas
// for data paths (OPA's `# schemas:` annotations) are not read.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SchemaError, schemaToType, type TypeDecl } from '../engine/index.js';
import { CLIError } from './io.js';

/** The type of `input` from --schema; undefined: no flag, or a directory without input.json. */
export function inputTypeFromSchema(path: string | undefined): TypeDecl | undefined {
  if (path === undefined) return undefined;
  if (!existsSync(path)) throw new CLIError(`unable to read schema: stat ${path}: no such file or directory`);
  const file = statSync(path).isDirectory() ? join(path, 'input.json') : path;
  if (file !== path && !existsSync(file)) return undefined;
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CLIError(`unable to read schema ${file}: ${(e as Error).message}`);
  }
  try {
    return schemaToType(schema);
  } catch (e) {
    if (e instanceof SchemaError) throw new CLIError(`schema ${file}: ${e.message}`);
    throw e;
  }
}
