// Loading custom built-ins from JavaScript modules, for `--builtins <file>` and the
// configuration's `builtins.modules`: each module exports a list of definitions in the
// library's shape (src/engine/custom-builtins.ts) as its default export or as `builtins`.
// Every definition is checked here, so a bad module stops the command before anything runs.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CustomBuiltinError, CustomBuiltins, type CustomBuiltin } from '../engine/index.js';
import { ExitError } from './errors.js';

/** A module that cannot be loaded or does not export built-in definitions (ends the command). */
export class BuiltinsLoadError extends ExitError {}

const SHAPE = 'export an array of built-in definitions ({name, args, result, nondeterministic, fn}) as `export default [...]` or `export const builtins = [...]`';

/**
 * Imports each module (paths relative to `base`, default the working directory) and returns
 * their definitions, checked together (a name defined by two modules is an error).
 */
export async function loadBuiltinModules(paths: readonly string[], base = process.cwd()): Promise<CustomBuiltin[]> {
  const all: CustomBuiltin[] = [];
  const set = new CustomBuiltins();
  for (const p of paths) {
    const file = resolve(base, p);
    if (!existsSync(file) || !statSync(file).isFile()) throw new BuiltinsLoadError(`custom built-ins ${p}: no such file`);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (e) {
      throw new BuiltinsLoadError(`custom built-ins ${p}: ${(e as Error)?.message ?? String(e)}`);
    }
    for (const def of definitionsOf(mod, p)) {
      try {
        set.add(def);
      } catch (e) {
        if (e instanceof CustomBuiltinError) throw new BuiltinsLoadError(`custom built-ins ${p}: ${e.message}`);
        throw e;
      }
      all.push(def);
    }
  }
  return all;
}

function definitionsOf(mod: Record<string, unknown>, p: string): CustomBuiltin[] {
  // `export const builtins`, `export default`, or CommonJS `module.exports = [...]` /
  // `exports.builtins = [...]` (which Node hands over as default).
  const dflt = mod['default'] as Record<string, unknown> | unknown[] | undefined;
  const list = mod['builtins'] ?? (Array.isArray(dflt) ? dflt : (dflt as Record<string, unknown> | undefined)?.['builtins'] ?? dflt);
  const defs = Array.isArray(list) ? list : isDefinition(list) ? [list] : undefined;
  if (!defs) throw new BuiltinsLoadError(`custom built-ins ${p}: the module must ${SHAPE}`);
  defs.forEach((d, i) => {
    if (!isDefinition(d)) throw new BuiltinsLoadError(`custom built-ins ${p}: definition ${i + 1} is not an object with a name and a fn (the module must ${SHAPE})`);
  });
  return defs as CustomBuiltin[];
}

function isDefinition(x: unknown): x is CustomBuiltin {
  return typeof x === 'object' && x !== null && 'name' in x && 'fn' in x;
}
