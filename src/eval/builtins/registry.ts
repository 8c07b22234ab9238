// The one table of built-in functions. Each category file registers its built-ins here;
// the same table is the source of the capabilities list (`regolith capabilities`).

import type { Location } from '../../lang/ast.js';
import type { Value } from '../../value/index.js';
import type { FunctionDecl } from './decl.js';
import { ndRecorded } from './nd-cache.js';

export interface BuiltinContext {
  /** The built-in's name, for messages. */
  readonly name: string;
  /** Nanoseconds since the epoch, fixed for the whole query (time.now_ns). */
  now(): bigint;
  /** Writes a line to the configured print sink (never into the result). */
  print(message: string): void;
  /** Adds a note to the explanation/trace, when tracing is on. */
  trace(message: string): void;
  /** Whether built-in errors end the query (strict-builtin-errors). */
  readonly strict: boolean;
  /**
   * Per-query cache for non-deterministic built-ins: one answer per query, and the
   * record that decision logs keep (OPA's nd_builtin_cache).
   */
  readonly ndCache: Map<string, Map<string, Value>>;
  /**
   * Waits on I/O without blocking the event loop. Returns the result stored under `key`
   * for this query; when there is none yet, starts `load` and suspends the evaluation,
   * which is re-run once the promise settles (so built-ins themselves stay synchronous).
   */
  awaitIO(key: string, load: () => Promise<Value>): Value;
  /** opa.runtime() document. */
  runtime(): Value;
  /** rego.metadata.chain() / rego.metadata.rule() for the rule being evaluated. */
  metadataChain(): Value;
  metadataRule(): Value;
  /** Where the call is written. */
  readonly location?: Location;
}

export type BuiltinFn = (args: Value[], ctx: BuiltinContext) => Value | undefined;

export interface BuiltinDef {
  name: string;
  decl: FunctionDecl;
  /**
   * The implementation. Arguments are fully evaluated values; the result is the output
   * value (undefined means the call is undefined). For `relation` built-ins the result
   * is an array of all outputs. Throw BuiltinError for errors.
   */
  fn: BuiltinFn;
  /** Infix operator, as in capabilities (`+`, `==`, `in`, ...). */
  infix?: string;
  relation?: boolean;
  nondeterministic?: boolean;
  deprecated?: boolean;
  /** Called with the query's context even when arguments are constants (never folded). */
  impure?: boolean;
}

const table = new Map<string, BuiltinDef>();

export function registerBuiltins(defs: BuiltinDef[]): void {
  for (const d of defs) {
    if (table.has(d.name)) throw new Error(`built-in ${d.name} registered twice`);
    // Non-deterministic built-ins answer once per query and are recorded (nd_builtin_cache).
    table.set(d.name, d.nondeterministic ? { ...d, fn: ndRecorded(d.name, d.fn) } : d);
  }
}

export function getBuiltin(name: string): BuiltinDef | undefined {
  return table.get(name);
}

export function allBuiltins(): BuiltinDef[] {
  return [...table.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The built-ins in OPA's capabilities JSON format. */
export function capabilitiesBuiltins(): unknown[] {
  return allBuiltins().map((d) => {
    const out: Record<string, unknown> = { name: d.name, decl: d.decl };
    if (d.infix) out.infix = d.infix;
    if (d.relation) out.relation = true;
    if (d.nondeterministic) out.nondeterministic = true;
    if (d.deprecated) out.deprecated = true;
    return out;
  });
}
