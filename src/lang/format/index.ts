// The Rego formatter: OPA's canonical layout (`opa fmt`) for a parsed module, and the
// text-to-text entry point that parses first. `regoVersion: 'v1'` on a module parsed
// as v0 converts it to v1 syntax (`opa fmt --v0-v1`).

import { parseModule } from '../module.js';
import { formatBody, formatModule, type FormatOptions } from './module.js';

export { formatModule, formatBody, type FormatOptions };

export interface FormatTextOptions extends FormatOptions {
  filename?: string;
  /** Syntax the input is parsed with (default: the output version, else v1). */
  parseVersion?: 'v0' | 'v1';
}

/** Parses and formats Rego source; parse errors surface as RegoParseError. */
export function formatText(text: string, opts: FormatTextOptions = {}): string {
  const parseVersion = opts.parseVersion ?? opts.regoVersion ?? 'v1';
  const module = parseModule(text, { filename: opts.filename, regoVersion: parseVersion });
  return formatModule(module, { regoVersion: opts.regoVersion ?? parseVersion, dropV0Imports: opts.dropV0Imports });
}
export { unifiedDiff } from './diff.js';
