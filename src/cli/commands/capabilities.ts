// `regolith capabilities`: the capabilities document (built-ins with their type
// declarations, future keywords, features) in OPA's JSON shape, from the one table of
// built-ins. Without flags it lists the capabilities versions known, as `opa` does.

import { readFileSync } from 'node:fs';
import { capabilitiesBuiltins } from '../../engine/capabilities.js';
import { sortKeysDeep } from '../../value/index.js';
import { CLIError, out } from '../io.js';
import { regolithVersion } from '../version-info.js';

export function currentCapabilities(v0: boolean): Record<string, unknown> {
  return {
    builtins: capabilitiesBuiltins().map((b) => {
      const { decl, ...rest } = b as { decl: unknown };
      return { ...rest, decl: sortKeysDeep(decl) };
    }),
    future_keywords: futureKeywords(v0),
    wasm_abi_versions: [],
    // Template strings parse in both syntaxes.
    features: v0 ? ['keywords_in_refs', 'template_strings'] : ['keywords_in_refs', 'rego_v1', 'template_strings'],
  };
}

function futureKeywords(v0: boolean): string[] {
  // In v1 the former future keywords are part of the language; v0 policies import them.
  return v0 ? ['contains', 'every', 'if', 'in'] : ['and', 'not', 'or'];
}

/** The `regolith capabilities` action (its flags are declared in ../registry/capabilities.ts). */
export const capabilitiesAction = (opts: { current?: boolean; version?: string; file?: string; v0Compatible?: boolean }) => {
  const mine = `v${regolithVersion()}`;
  let caps: unknown;
  if (opts.version) {
    if (opts.version !== mine) throw new CLIError(`no capabilities version found ${opts.version}`);
    caps = currentCapabilities(!!opts.v0Compatible);
  } else if (opts.file) {
    let text: string;
    try {
      text = readFileSync(opts.file, 'utf8');
    } catch {
      throw new CLIError(`open ${opts.file}: no such file or directory`);
    }
    try {
      caps = JSON.parse(text);
    } catch (e) {
      throw new CLIError(`${opts.file}: ${(e as Error).message}`);
    }
  } else if (opts.current) {
    caps = currentCapabilities(!!opts.v0Compatible);
  } else {
    out(mine);
    return;
  }
  out(JSON.stringify(caps, null, 2));
};
