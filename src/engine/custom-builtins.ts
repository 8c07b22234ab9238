// Custom built-ins: functions a library user (or a `--builtins` module) adds to Rego, as
// OPA's rego.Function1..4/FunctionDyn add Go functions. Each one has a declaration the
// compiler checks calls against (argument and result types) and an implementation the
// evaluator calls with Rego values. They belong to one Regolith (or RegolithEngine): the
// compiled policy's root carries them, so two instances never share or leak them.
//
// Errors behave as OPA's: a thrown error makes the call undefined, or ends the query with
// eval_builtin_error "<name>: <message>" under strict built-in errors; a HaltError ends it
// either way. An implementation may return a Promise: the evaluation is suspended (never
// the event loop) and re-run with the answer, as http.send is.

import { getDeclaration, type BuiltinDecl, type BuiltinOverlay, type FunctionDecl, type TypeDecl } from '../compiler/builtins/index.js';
import type { BuiltinContext, BuiltinDef, BuiltinFn } from '../eval/builtins/registry.js';
import { ndRecorded } from '../eval/builtins/nd-cache.js';
import { RegoEvalError, Suspend } from '../eval/errors.js';
import { toRegoString, type Value } from '../value/index.js';
import type { Location } from '../lang/index.js';
import { parseTypeSpec, TypeSpecError, type TypeSpec } from './builtin-types.js';
import { toRegoValue } from './builtin-values.js';

export type { TypeSpec } from './builtin-types.js';

/** What an implementation sees of the query besides its arguments. */
export interface CustomBuiltinContext {
  /** The built-in's name. */
  readonly name: string;
  /** Where the call is written. */
  readonly location?: { file: string; row: number; col: number };
  /** Nanoseconds since the epoch, fixed for the whole query (what time.now_ns returns). */
  now(): bigint;
  /** Adds a note to the trace/explanation when tracing is on (as trace() does). */
  trace(message: string): void;
}

/** The implementation: Rego values in, a Rego value (or a JS Set/Map/bigint) out; undefined: the call is undefined. */
export type CustomBuiltinFn = (args: Value[], ctx: CustomBuiltinContext) => unknown;

/** A custom built-in's declaration and implementation. */
export interface CustomBuiltin {
  /** Dotted name as written in calls: `parse_module`, `custom.parse_module`. */
  name: string;
  /** One type per argument (default: none). */
  args?: TypeSpec[];
  /** The result's type (default `any`). */
  result?: TypeSpec;
  /** Answers may change between calls with the same arguments (OPA's Nondeterministic). */
  nondeterministic?: boolean;
  description?: string;
  fn: CustomBuiltinFn;
}

/** Ends the query even without strict built-in errors (OPA's rego.NewHaltError). */
export class HaltError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HaltError';
  }
}

/** A definition that cannot be registered (bad name, type, conflict). */
export class CustomBuiltinError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CustomBuiltinError';
  }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** Names a call can never reach: a ref from these roots is a document, not a function. */
const ROOTS = new Set(['data', 'input']);

/** One instance's custom built-ins; the compiler and evaluator read them through the policy's root. */
export class CustomBuiltins implements BuiltinOverlay {
  private readonly defs = new Map<string, BuiltinDef>();
  private readonly sources = new Map<string, CustomBuiltin>();

  constructor(list: Iterable<CustomBuiltin> = []) {
    for (const b of list) this.add(b);
  }

  /** Validates and adds one definition. Throws CustomBuiltinError. */
  add(b: CustomBuiltin): this {
    const name = (b as { name?: unknown })?.name;
    if (typeof name !== 'string' || !NAME.test(name))
      throw new CustomBuiltinError(`custom built-in ${JSON.stringify(name)}: the name must be identifiers joined by dots (e.g. "custom.parse_module")`);
    if (ROOTS.has(name.split('.')[0]!)) throw new CustomBuiltinError(`custom built-in "${name}": a name under ${name.split('.')[0]} refers to a document, not a function`);
    if (getDeclaration(name) || name === 'print')
      throw new CustomBuiltinError(`custom built-in "${name}": a built-in function of that name exists (custom built-ins cannot replace built-in functions)`);
    if (this.defs.has(name)) throw new CustomBuiltinError(`custom built-in "${name}" is defined twice`);
    if (typeof b.fn !== 'function') throw new CustomBuiltinError(`custom built-in "${name}": fn must be a function`);
    if (b.args !== undefined && !Array.isArray(b.args)) throw new CustomBuiltinError(`custom built-in "${name}": args must be a list of types`);
    const decl: FunctionDecl = {
      type: 'function',
      args: (b.args ?? []).map((t, i) => typeOf(name, `argument ${i + 1}`, t)),
      result: typeOf(name, 'result', b.result ?? 'any'),
    };
    const nondeterministic = !!b.nondeterministic;
    const impl = implement(name, b.fn);
    const def: BuiltinDef = {
      name,
      decl,
      fn: nondeterministic ? ndRecorded(name, impl) : impl,
      impure: nondeterministic,
      ...(nondeterministic ? { nondeterministic } : {}),
    };
    this.defs.set(name, def);
    this.sources.set(name, b);
    return this;
  }

  get(name: string): BuiltinDecl | undefined {
    return this.defs.get(name);
  }

  get size(): number {
    return this.defs.size;
  }

  /** The definitions as given, by name. */
  definitions(): CustomBuiltin[] {
    return [...this.sources.values()];
  }

  /** The declarations, sorted by name. */
  list(): BuiltinDecl[] {
    return [...this.defs.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

function typeOf(name: string, what: string, t: TypeSpec): TypeDecl {
  try {
    return parseTypeSpec(t);
  } catch (e) {
    if (e instanceof TypeSpecError) throw new CustomBuiltinError(`custom built-in "${name}": ${what}: ${e.message}`);
    throw e;
  }
}

/** An async answer that was undefined: stored as an error because the I/O cache holds no undefined. */
class Undefined extends Error {}

const isThenable = (x: unknown): x is PromiseLike<unknown> => typeof (x as { then?: unknown } | null)?.then === 'function';

/** Marks a suspension with the async built-in that caused it (for sync-only entry points' errors). */
interface Marked {
  builtin?: { name: string; location?: Location };
}

/** The name (and call site) of the async custom built-in behind a suspension, if one is. */
export function asyncBuiltinOf(e: unknown): Marked['builtin'] {
  const s = (e as { suspend?: unknown })?.suspend ?? e;
  return s instanceof Suspend ? (s as Marked).builtin : undefined;
}

/**
 * The evaluator's function for an implementation. An async one answers through the
 * query's I/O cache (ctx.awaitIO): called once per query and arguments, the evaluation
 * suspended until it settles. An implementation is known to be async from its kind
 * (`async function`) or once it has returned a promise.
 */
function implement(name: string, fn: CustomBuiltinFn): BuiltinFn {
  let isAsync = fn.constructor?.name === 'AsyncFunction';
  const userCtx = (ctx: BuiltinContext): CustomBuiltinContext => ({
    name,
    location: ctx.location ? { file: ctx.location.file, row: ctx.location.row, col: ctx.location.col } : undefined,
    now: () => ctx.now(),
    trace: (m) => ctx.trace(m),
  });
  const halted = (e: unknown, ctx: BuiltinContext): unknown =>
    e instanceof HaltError ? new RegoEvalError('eval_builtin_error', `${name}: ${e.message}`, ctx.location) : e;
  const answer = (out: unknown): Value | undefined => (out === undefined ? undefined : toRegoValue(out));
  const viaIO = (args: Value[], ctx: BuiltinContext, started?: PromiseLike<unknown>): Value | undefined => {
    const key = `custom:${name}:${args.map(toRegoString).join(',')}`;
    // a run that may not start I/O never awaits this promise: its failure is not unhandled
    if (started) started.then(undefined, () => undefined);
    const load = async (): Promise<Value> => {
      const out = answer(await (started ?? fn(args, userCtx(ctx))));
      if (out === undefined) throw new Undefined();
      return out;
    };
    try {
      return ctx.awaitIO(key, load);
    } catch (e) {
      if (e instanceof Undefined) return undefined;
      if (e instanceof Suspend) (e as Marked).builtin ??= { name, location: ctx.location };
      throw halted(e, ctx);
    }
  };
  return (args, ctx) => {
    if (isAsync) return viaIO(args, ctx);
    let out: unknown;
    try {
      out = fn(args, userCtx(ctx));
    } catch (e) {
      throw halted(e, ctx);
    }
    if (!isThenable(out)) return answer(out);
    isAsync = true;
    return viaIO(args, ctx, out);
  };
}
