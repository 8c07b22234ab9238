// The parts of OPA's capabilities besides built-ins that the compiler enforces (a
// capabilities file given with --capabilities): `features` and `future_keywords` decide
// which syntax modules may use, as OPA's parser does (v1/ast/parser.go): a v1 module needs
// the `rego_v1` feature; a v0 module may import only the future keywords listed (all of
// in/every/contains/if with `rego_v1`), and `import rego.v1` needs `rego_v1_import` or
// `rego_v1`. Errors are OPA's rego_parse_error texts. `allow_net` is read by the evaluator.

import type { Module, RegoErrorDetail } from '../lang/ast.js';
import { compileError } from './errors.js';

/** What a capabilities file says beyond its built-ins; unset fields were not in the file. */
export interface LanguageCapabilities {
  features?: readonly string[];
  futureKeywords?: readonly string[];
  /** Hosts http.send and net.lookup_ip_addr may reach (unset: any). */
  allowNet?: readonly string[];
}

const V0_FUTURE = ['contains', 'every', 'if', 'in'];
const KNOWN_FUTURE = new Set([...V0_FUTURE, 'not', 'and', 'or']);

export function checkLanguage(m: Module, caps: LanguageCapabilities): RegoErrorDetail[] {
  const features = new Set(caps.features ?? []);
  if (m.regoVersion === 'v1') {
    if (!features.has('rego_v1')) return [parseError('illegal capabilities: rego_v1 feature required for parsing v1 Rego')];
    return [];
  }
  const allowed = new Set<string>(features.has('rego_v1') ? V0_FUTURE : []);
  for (const kw of caps.futureKeywords ?? []) {
    if (!KNOWN_FUTURE.has(kw)) return [parseError(`illegal capabilities: unknown keyword: ${kw}`)];
    allowed.add(kw);
  }
  const errors: RegoErrorDetail[] = [];
  for (const imp of m.imports) {
    const path = imp.path.value;
    const root = path[0]?.type === 'var' ? path[0].value : undefined;
    if (root === 'rego' && !features.has('rego_v1_import') && !features.has('rego_v1')) {
      errors.push(parseError('invalid import, `rego.v1` is not supported by current capabilities', imp.path.location ?? imp.location));
    }
    const kw = path[2];
    if (root === 'future' && path.length === 3 && kw?.type === 'string' && !allowed.has(kw.value)) {
      errors.push(parseError(`unexpected keyword, must be one of [${[...allowed].sort().join(' ')}]`, imp.path.location ?? imp.location));
    }
  }
  return errors;
}

function parseError(message: string, loc?: Parameters<typeof compileError>[2]): RegoErrorDetail {
  return compileError('rego_parse_error', message, loc);
}
