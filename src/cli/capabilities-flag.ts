// `--capabilities <file or version>` (eval, check, test, build): OPA's capabilities. A file is
// a capabilities JSON document (the shape of `regolith capabilities --current`): its
// `builtins` limit the built-ins a policy may call, its `features` and `future_keywords` the
// syntax modules may use, its `allow_net` the hosts http.send and net.lookup_ip_addr may
// reach. A version name can only be Regolith's own (everything allowed): OPA's versioned
// capabilities files are not bundled.

import { readFileSync } from 'node:fs';
import { CLIError } from './io.js';
import { regolithVersion } from './version-info.js';

export interface CapabilityOptions {
  /** The built-in names allowed; unset: all. */
  allowedBuiltins?: ReadonlySet<string>;
  /** features, future_keywords, allow_net; unset: no capabilities file. */
  capabilities?: { features?: readonly string[]; futureKeywords?: readonly string[]; allowNet?: readonly string[] };
}

/** The built-in names the capabilities allow; undefined: all of them (no flag, or our own version). */
export function allowedBuiltins(value: string | undefined): ReadonlySet<string> | undefined {
  return capabilityOptions(value).allowedBuiltins;
}

/** Everything --capabilities gives the compiler; empty without the flag or with our own version. */
export function capabilityOptions(value: string | undefined): CapabilityOptions {
  const doc = readCapabilities(value);
  if (!doc) return {};
  const list = doc.builtins;
  if (list !== undefined && !Array.isArray(list)) throw new CLIError(`${value}: "builtins" must be an array`);
  const names = new Set<string>();
  for (const b of (list ?? []) as unknown[]) {
    const name = (b as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') throw new CLIError(`${value}: every entry of "builtins" needs a "name"`);
    names.add(name);
  }
  const strings = (key: string): string[] | undefined => {
    const v = doc[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new CLIError(`${value}: "${key}" must be an array of strings`);
    return v as string[];
  };
  const capabilities = { features: strings('features') ?? [], futureKeywords: strings('future_keywords') ?? [], allowNet: strings('allow_net') };
  return { allowedBuiltins: names, capabilities };
}

function readCapabilities(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const mine = `v${regolithVersion()}`;
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch {
    if (value === mine || value === regolithVersion()) return undefined;
    throw new CLIError(
      `no capabilities version found ${value}: Regolith bundles only its own capabilities (${mine}), not OPA's versioned files; ` +
        `give the capabilities JSON file itself (OPA's repository holds ${/^v?\d/.test(value) ? `capabilities/${value.startsWith('v') ? value : 'v' + value}.json` : 'them under capabilities/'}), ` +
        'or start from `regolith capabilities --current`',
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CLIError(`${value}: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new CLIError(`${value}: a capabilities file is a JSON object`);
  return doc as Record<string, unknown>;
}
