// The library API: load modules and data, prepare a query once, evaluate it many times.
// Values go in and come out as plain JS (an input from JSON.parse is used as is).

import { IDENTIFIER, parseModule, type Body, type Module, type RegoVersion } from '../lang/index.js';
import { compile, type CompiledPolicy } from '../compiler/index.js';
import { IOPending, type QueryPlan, type RawResult, type RunOptions } from '../eval/query.js';
import { toJS, type Value } from '../value/index.js';
import '../eval/builtins/index.js';
import type { Tracer } from '../eval/explain.js';
import type { RegoEvalError } from '../eval/errors.js';
import { planQuery } from './queries.js';
import { runPlan } from './run.js';
import { partialPlan, type PartialQueries } from './partial.js';
import { asyncBuiltinOf, CustomBuiltins, type CustomBuiltin } from './custom-builtins.js';
import { capabilitiesBuiltins } from '../compiler/builtins/index.js';
import type { TypeDecl } from '../compiler/builtins/types.js';
import { inputOf } from './input-text.js';
import { inputNeeds } from '../eval/input-needs.js';
import type { Needs } from '../value/json-sparse.js';

export interface RegolithOptions {
  /** Syntax of modules added without an explicit version (default v1). */
  regoVersion?: RegoVersion;
  /** Make built-in errors end evaluation (OPA's strict-builtin-errors). */
  strictBuiltinErrors?: boolean;
  /** Where print() output goes (default: stderr). */
  print?: (message: string) => void;
  /** Custom built-in functions of this instance (see custom-builtins.ts). */
  builtins?: Iterable<CustomBuiltin>;
  /** OPA's capabilities: the only built-ins policies and queries may call (default: all). */
  allowedBuiltins?: Iterable<string>;
  /** The type of `input` (schemaToType of a JSON Schema): refs into input are type-checked against it. */
  inputType?: TypeDecl;
  /** Schemas `schemas:` annotations name as `schema.<path>` (key `a/b` for schema.a.b); unset: such annotations are ignored, as OPA without --schema. */
  schemas?: ReadonlyMap<string, unknown>;
  /** A capabilities file's features, future_keywords and allow_net (OPA's --capabilities). */
  capabilities?: { features?: readonly string[]; futureKeywords?: readonly string[]; allowNet?: readonly string[] };
}

export interface EvaluateOptions {
  input?: unknown;
  /**
   * The input as JSON text instead of a value (a request body, a file), read with exact
   * numbers; malformed text throws EngineError('bad_request'). Not with `input`.
   */
  inputText?: string;
  /** Override the data document for this evaluation (default: the one set with setData). */
  data?: unknown;
  strictBuiltinErrors?: boolean;
  /** Time budget in milliseconds. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Nanoseconds since the epoch for time.now_ns (default: now). */
  now?: bigint;
  print?: (message: string) => void;
  maxDepth?: number;
  /** Receives OPA's timer names (timer_rego_query_eval_ns, ...) when given. */
  metrics?: Record<string, number>;
  /** Receives rule entries/exits and trace() notes (see BufferTracer for explain modes). */
  tracer?: Tracer;
  /**
   * Receives the answers of non-deterministic built-ins (OPA's nd_builtin_cache); pass an
   * empty Map and turn it into the decision-log shape with ndBuiltinCacheValue.
   */
  ndBuiltinCache?: Map<string, Map<string, Value>>;
  /**
   * Receives the errors of built-in calls made undefined (without strict built-in errors),
   * as OPA's BuiltinErrorList: `{code, message, location}` via toJSON().
   */
  builtinErrors?: RegoEvalError[];
  /** The document opa.runtime() returns (default: an empty object). */
  runtime?: unknown;
}

export interface ExpressionResult {
  value: unknown;
  text: string;
  location?: { row: number; col: number };
}

export interface QueryResult {
  expressions: ExpressionResult[];
  bindings: Record<string, unknown>;
}

function toResults(raw: RawResult[]): QueryResult[] {
  return raw.map((r) => {
    const bindings: Record<string, unknown> = {};
    for (const [k, v] of r.bindings) bindings[k] = toJS(v);
    return { expressions: r.expressions.map((e) => ({ value: toJS(e.value), text: e.text, location: e.location })), bindings };
  });
}

export interface PartialQueryOptions {
  input?: unknown;
  /** The input as JSON text, as EvaluateOptions.inputText. */
  inputText?: string;
  data?: unknown;
  /** Refs whose values are unknown (Rego text); default ["input"]. */
  unknowns?: string[];
  /** Data refs never inlined (kept as support rules). */
  disableInlining?: string[];
  /** Evaluate http.send, time.now_ns, rand.* and the like instead of keeping them. */
  nondeterministicBuiltins?: boolean;
  strictBuiltinErrors?: boolean;
  timeoutMs?: number;
}

export class PreparedQuery {
  constructor(
    private readonly plan: QueryPlan,
    private readonly owner: Regolith,
  ) {}

  /** What the policy and query can read of the input (undefined: all of it), found once. */
  private needs: Needs | undefined | null = null;

  private inputNeeds(): Needs | undefined {
    if (this.needs === null) this.needs = inputNeeds(this.plan.policy.root, this.plan.cq.body);
    return this.needs;
  }

  private opts(o: EvaluateOptions, noIO = false): RunOptions {
    return {
      noIO,
      // input text is read only where the policy can look, unless a tracer reports values
      input: inputOf(o, o.inputText !== undefined && o.tracer === undefined ? this.inputNeeds() : undefined),
      data: (o.data ?? this.owner.data) as Value,
      strict: o.strictBuiltinErrors ?? this.owner.options.strictBuiltinErrors,
      deadline: o.timeoutMs !== undefined ? Date.now() + o.timeoutMs : undefined,
      signal: o.signal,
      now: o.now,
      print: o.print ?? this.owner.options.print,
      maxDepth: o.maxDepth,
      metrics: o.metrics,
      tracer: o.tracer,
      ndCache: o.ndBuiltinCache,
      builtinErrors: o.builtinErrors,
      runtime: o.runtime as Value | undefined,
    };
  }

  /** Evaluates synchronously. Throws IOPending if the policy needs I/O (use evaluateAsync). */
  evaluate(o: EvaluateOptions = {}): QueryResult[] {
    // results built once, as plain JS (not as Rego values converted after)
    return this.sync(o, true) as QueryResult[];
  }

  /** Rego values (sets, big numbers) instead of plain JS. */
  evaluateRaw(o: EvaluateOptions = {}): RawResult[] {
    return this.sync(o, false) as RawResult[];
  }

  private sync(o: EvaluateOptions, plain: boolean): QueryResult[] | RawResult[] {
    try {
      // the I/O a built-in would start here has no async run to take it over: never start it
      const opts = this.opts(o, true);
      return plain ? this.plan.runPlain(opts) : this.plan.run(opts);
    } catch (e) {
      const b = e instanceof IOPending ? asyncBuiltinOf(e) : undefined;
      if (b) (e as IOPending).message = `${b.name} is asynchronous (its implementation returns a promise): use evaluateAsync`;
      throw e;
    }
  }

  async evaluateAsync(o: EvaluateOptions = {}): Promise<QueryResult[]> {
    return toResults(await this.plan.runAsync(this.opts(o)));
  }

  /**
   * Partial evaluation: the conditions on the unknowns (default `["input"]`) under which the
   * query holds, as residual queries plus support modules (AST and Rego text).
   */
  partial(o: PartialQueryOptions = {}): PartialQueries {
    return partialPlan(this.plan, {
      input: inputOf(o),
      data: (o.data ?? this.owner.data) as Value,
      unknowns: o.unknowns,
      disableInlining: o.disableInlining,
      nondeterministicBuiltins: o.nondeterministicBuiltins,
      strictBuiltinErrors: o.strictBuiltinErrors ?? this.owner.options.strictBuiltinErrors,
      deadline: o.timeoutMs !== undefined ? Date.now() + o.timeoutMs : undefined,
    });
  }

  /** Rego values; synchronous unless a built-in waits on I/O (then a promise). */
  evaluateRawMaybeAsync(o: EvaluateOptions = {}): RawResult[] | Promise<RawResult[]> {
    return runPlan(this.plan, this.opts(o));
  }
}

export class Regolith {
  readonly options: RegolithOptions;
  private readonly modules = new Map<string, Module>();
  private compiled: CompiledPolicy | undefined;
  /** decide()'s prepared queries by path; valid while the modules stay the same. */
  private readonly decisions = new Map<string, PreparedQuery>();
  data: unknown = {};
  /** This instance's custom built-ins. */
  readonly builtins: CustomBuiltins;

  /** Throws CustomBuiltinError for a custom built-in that cannot be added. */
  constructor(options: RegolithOptions = {}) {
    this.options = options;
    this.builtins = new CustomBuiltins(options.builtins ?? []);
  }

  /** Adds a custom built-in function (recompiling on next use). Throws CustomBuiltinError. */
  addBuiltin(b: CustomBuiltin): this {
    this.builtins.add(b);
    this.modulesChanged();
    return this;
  }

  /** The built-ins in OPA's capabilities JSON shape, this instance's custom ones included. */
  capabilitiesBuiltins(): unknown[] {
    return capabilitiesBuiltins(this.builtins);
  }

  /** Parses and adds (or replaces) a module. Throws RegoParseError. */
  addModule(filename: string, text: string, opts: { regoVersion?: RegoVersion } = {}): this {
    const m = parseModule(text, { filename, regoVersion: opts.regoVersion ?? this.options.regoVersion ?? 'v1' });
    return this.addParsedModule(filename, m);
  }

  addParsedModule(filename: string, m: Module): this {
    this.modules.set(filename, m);
    this.modulesChanged();
    return this;
  }

  removeModule(filename: string): this {
    this.modules.delete(filename);
    this.modulesChanged();
    return this;
  }

  private modulesChanged(): void {
    this.compiled = undefined;
    this.decisions.clear();
  }

  /** Sets the base data document (used as is, never copied). */
  setData(data: unknown): this {
    this.data = data;
    return this;
  }

  /** Compiles the modules (cached until they change). Throws RegoCompileError. */
  compile(): CompiledPolicy {
    const allowed = this.options.allowedBuiltins;
    this.compiled ??= compile([...this.modules.values()], { builtins: this.builtins.size ? this.builtins : undefined, allowedBuiltins: allowed ? new Set(allowed) : undefined, inputType: this.options.inputType, schemas: this.options.schemas, capabilities: this.options.capabilities });
    return this.compiled;
  }

  /** Prepares a query (e.g. "data.authz.allow" or "x := data.a[_]") for repeated evaluation. */
  prepare(query: string | Body, metrics?: Record<string, number>): PreparedQuery {
    const t0 = metrics ? process.hrtime.bigint() : 0n;
    const policy = this.compile();
    if (metrics) metrics['timer_rego_module_compile_ns'] = Number(process.hrtime.bigint() - t0);
    return new PreparedQuery(planQuery(policy, query, this.options.regoVersion ?? 'v1', metrics), this);
  }

  /** The value of a document (e.g. "authz/allow" or "data.authz.allow") for an input, or undefined. */
  decide(path: string, input?: unknown): unknown {
    return this.decideWith(path, { input });
  }

  private decideWith(path: string, o: { input?: unknown; inputText?: string }): unknown {
    const ref = /^data(?:$|[.[])/.test(path) ? path : slashPathRef(path);
    // Parsing and planning the query once per path, not once per decision.
    let q = this.decisions.get(ref);
    if (!q) this.decisions.set(ref, (q = this.prepare(ref)));
    const r = q.evaluate(o);
    return r[0]?.expressions[0]?.value;
  }

  /**
   * decide() for an input held as JSON text (a request body, a file): read with exact
   * numbers, no JSON.parse first. Malformed text throws EngineError('bad_request').
   */
  decideJSON(path: string, inputText: string): unknown {
    return this.decideWith(path, { inputText });
  }
}

/** "a/b-c/0" -> data.a["b-c"]["0"]: segments that are not identifiers in brackets, as strings (as the server's path API does). */
function slashPathRef(path: string): string {
  let ref = 'data';
  for (const seg of path.split('/')) {
    if (seg === '') continue;
    ref += IDENTIFIER.test(seg) ? '.' + seg : '[' + JSON.stringify(seg) + ']';
  }
  return ref;
}

export { IOPending };
