// `regolith capabilities`: the capabilities document (built-ins with their type
// declarations, future keywords, features) in OPA's JSON shape, from the one table of
// built-ins. Without flags it lists the capabilities versions known, as `opa` does.

import { readFileSync } from 'node:fs';
import { capabilitiesBuiltins, type BuiltinDecl } from '../../engine/capabilities.js';
import { sortKeysDeep } from '../../value/index.js';
import { CLIError, out } from '../io.js';
import { regolithVersion } from '../version-info.js';
import { command, opt, type OptionsOf } from '../command.js';
import { builtins, v0Compatible } from '../flags.js';

const capabilitiesCommand = command({
  name: 'capabilities',
  description: 'Print the capabilities of regolith: without flags, the capabilities version names known (as opa does); --current for the JSON',
  flags: [
    opt('--current', 'print current capabilities'),
    opt('--version <version>', 'print capabilities of a specific version'),
    opt('--file <path>', 'print capabilities defined by a file'),
    v0Compatible(),
    builtins(),
  ],
  examples: [
    'regolith capabilities                 # list the capabilities versions known',
    'regolith capabilities --current       # the built-ins and features of this build',
    'regolith capabilities --file caps.json',
  ],
});

/** The capabilities of this build, with the custom built-ins' declarations when given (--builtins). */
export function currentCapabilities(v0: boolean, custom?: { list(): BuiltinDecl[] }): Record<string, unknown> {
  return {
    builtins: capabilitiesBuiltins(custom).map((b) => {
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

/** --builtins modules' declarations (loaded only when asked: capabilities otherwise loads no evaluator). */
async function customBuiltins(paths: string[]): Promise<{ list(): BuiltinDecl[] } | undefined> {
  if (!paths.length) return undefined;
  const [{ loadBuiltinModules }, { CustomBuiltins }] = await Promise.all([import('../../runtime/custom-builtins.js'), import('../../engine/custom-builtins.js')]);
  return new CustomBuiltins(await loadBuiltinModules(paths));
}

async function capabilitiesAction(opts: OptionsOf<typeof capabilitiesCommand>): Promise<void> {
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
    caps = currentCapabilities(!!opts.v0Compatible, await customBuiltins(opts.builtins));
  } else {
    out(mine);
    return;
  }
  out(JSON.stringify(caps, null, 2));
}

export default capabilitiesCommand.action(capabilitiesAction);
