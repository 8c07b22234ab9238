// `--capabilities <file or version>` (eval, check, test, build): OPA's capabilities limit
// the built-ins a policy may call. A file is a capabilities JSON document (the shape of
// `regolith capabilities --current`); a version name can only be Regolith's own, which
// allows every built-in. The answer is the allowlist the compiler checks calls against.

import { readFileSync } from 'node:fs';
import { CLIError } from './io.js';
import { regolithVersion } from './version-info.js';

/** The built-in names the capabilities allow; undefined: all of them (no flag, or our own version). */
export function allowedBuiltins(value: string | undefined): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  const mine = `v${regolithVersion()}`;
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch {
    if (value === mine || value === regolithVersion()) return undefined;
    throw new CLIError(
      `no capabilities version found ${value}: regolith knows only its own capabilities (${mine}); ` +
        'for another set of built-ins give a capabilities JSON file (start from `regolith capabilities --current`)',
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CLIError(`${value}: ${(e as Error).message}`);
  }
  const list = (doc as { builtins?: unknown } | null)?.builtins;
  if (list !== undefined && !Array.isArray(list)) throw new CLIError(`${value}: "builtins" must be an array`);
  const names = new Set<string>();
  for (const b of (list ?? []) as unknown[]) {
    const name = (b as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') throw new CLIError(`${value}: every entry of "builtins" needs a "name"`);
    names.add(name);
  }
  return names;
}
