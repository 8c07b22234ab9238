// Turning loaded files into a compiled Regolith instance for eval, test and bench: every
// module is parsed (all parse errors reported together, as OPA does), then the set is
// compiled once. Errors of any stage come out as one list of OPA-shaped error details.

import {
  EngineError,
  Regolith,
  RegoCompileError,
  RegoEvalError,
  RegoParseError,
  parseModule,
  type CustomBuiltin,
  type Module,
  type RegoErrorDetail,
  type RegolithOptions,
  type RegoVersion,
  type TypeDecl,
} from '../engine/index.js';
import { formatErrors } from '../engine/syntax.js';
import type { Loaded } from './load-paths.js';
import { LoadError } from './load-paths.js';

/** Errors of loading, parsing, compiling or evaluating, in OPA's `errors[]` shape. */
export class CommandErrors extends Error {
  constructor(readonly errors: RegoErrorDetail[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'CommandErrors';
  }
}

/** Any error from the library or the loader as a list of error details (rethrows bugs). */
export function toErrorDetails(e: unknown): RegoErrorDetail[] {
  if (e instanceof CommandErrors) return e.errors;
  if (e instanceof RegoParseError || e instanceof RegoCompileError) return e.errors;
  if (e instanceof RegoEvalError) return [e.toJSON()];
  if (e instanceof LoadError) return [{ code: '', message: e.message }];
  if (e instanceof EngineError) return e.errors.length ? (e.errors as RegoErrorDetail[]) : [{ code: '', message: e.message }];
  throw e;
}

export interface PolicySet {
  regolith: Regolith;
  modules: Map<string, Module>;
}

export function buildPolicySet(
  loaded: Loaded,
  opts: { regoVersion?: RegoVersion; strictBuiltinErrors?: boolean; print?: (m: string) => void; builtins?: CustomBuiltin[]; allowedBuiltins?: ReadonlySet<string>; inputType?: TypeDecl; schemas?: ReadonlyMap<string, unknown>; capabilities?: RegolithOptions['capabilities'] } = {},
): PolicySet {
  const { regoVersion, strictBuiltinErrors, print, builtins, allowedBuiltins, inputType, schemas, capabilities } = opts;
  const regolith = new Regolith({ regoVersion, strictBuiltinErrors, print, builtins, allowedBuiltins, inputType, schemas, capabilities });
  const modules = new Map<string, Module>();
  const errors: RegoErrorDetail[] = [];
  for (const m of loaded.modules) {
    try {
      const parsed = parseModule(m.text, { filename: m.file, regoVersion: m.regoVersion });
      modules.set(m.file, parsed);
      regolith.addParsedModule(m.file, parsed);
    } catch (e) {
      if (!(e instanceof RegoParseError)) throw e;
      errors.push(...e.errors);
    }
  }
  if (errors.length) throw new CommandErrors(errors);
  regolith.setData(loaded.data);
  try {
    regolith.compile();
  } catch (e) {
    throw new CommandErrors(toErrorDetails(e));
  }
  return { regolith, modules };
}

/** The pretty error text: OPA's "1 error occurred: file:row: code: message". */
export function prettyErrorText(errors: RegoErrorDetail[]): string {
  if (errors.every((e) => !e.code && !e.location)) {
    return errors.length === 1 ? `1 error occurred: ${errors[0]!.message}` : `${errors.length} errors occurred:\n${errors.map((e) => e.message).join('\n')}`;
  }
  return formatErrors(errors);
}
