// The built-in implementations. Each category file registers its functions here against
// their declarations (src/compiler/builtins, what the compiler checks and `regolith
// capabilities` prints); a function without a declaration is a start-up error.

import type { Location } from '../../lang/ast.js';
import type { Value } from '../../value/index.js';
import { getDeclaration, type BuiltinDecl, type BuiltinOverlay } from '../../compiler/builtins/index.js';
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
  /** Reports a test case entered (internal.test_case) to the tracer, when tracing is on. */
  testCase?(path: Value): void;
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
  /** Capabilities' allow_net: the hosts network built-ins may reach (unset: any). */
  readonly allowNet?: readonly string[];
}

export type BuiltinFn = (args: Value[], ctx: BuiltinContext) => Value | undefined;

/** An implementation as a category file registers it. */
export interface BuiltinImpl {
  name: string;
  /**
   * Arguments are fully evaluated values; the result is the output value (undefined means
   * the call is undefined). For `relation` built-ins the result is an array of all outputs.
   * Throw BuiltinError for errors.
   */
  fn: BuiltinFn;
  /** Called with the query's context even when arguments are constants (never folded). */
  impure?: boolean;
}

/** A declaration with its implementation: what the evaluator calls. */
export interface BuiltinDef extends BuiltinDecl, BuiltinImpl {}

const table = new Map<string, BuiltinDef>();

export function registerBuiltins(impls: BuiltinImpl[]): void {
  for (const impl of impls) {
    const decl = getDeclaration(impl.name);
    if (!decl) throw new Error(`built-in ${impl.name} has no declaration`);
    if (table.has(impl.name)) throw new Error(`built-in ${impl.name} registered twice`);
    // Non-deterministic built-ins answer once per query and are recorded (nd_builtin_cache).
    const fn = decl.nondeterministic ? ndRecorded(impl.name, impl.fn) : impl.fn;
    table.set(impl.name, { ...decl, ...impl, fn });
  }
}

export function getBuiltin(name: string): BuiltinDef | undefined {
  return table.get(name);
}

/**
 * A built-in by name, the policy's custom ones included (the root's overlay holds
 * BuiltinDefs: declarations with their implementation, see src/engine/custom-builtins.ts).
 */
export function builtinIn(root: { builtins?: BuiltinOverlay } | undefined, name: string): BuiltinDef | undefined {
  const def = table.get(name);
  if (def !== undefined || root?.builtins === undefined) return def;
  const custom = root.builtins.get(name);
  return custom !== undefined && 'fn' in custom ? (custom as BuiltinDef) : undefined;
}

export function allBuiltins(): BuiltinDef[] {
  return [...table.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
