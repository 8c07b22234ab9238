// The Engine the server and the bundle plugin use: the engine over the document store.
// Policies are parsed and compiled together before they are committed; the compiled
// policy is swapped in by a store trigger inside the commit, so a write transaction never
// sees a compiled policy that disagrees with the stored modules.

import { moduleToJSON, parseModule, parseQuery, type Module, type RegoVersion } from '../lang/index.js';
import { compile, type CompiledPolicy, type RuleNode } from '../compiler/index.js';
import type { QueryPlan } from '../eval/query.js';
import { BufferTracer } from '../eval/explain.js';
import '../eval/builtins/index.js';
import type { JSONNeeds, Value } from '../value/index.js';
import { inputNeeds } from '../eval/input-needs.js';
import { Store, type CommitEvent, type Snapshot, type WriteTxn } from '../storage/index.js';
import { toEngineError } from './errors.js';
import { planQuery, PlanCache } from './queries.js';
import { refText } from '../lang/index.js';
import { runPlan } from './run.js';
import { spans } from '../eval/spans.js';
import { partialPlan, type PartialQueries } from './partial.js';
import { filterRuleMeta } from './filter-rule.js';
import { CustomBuiltins, type CustomBuiltin } from './custom-builtins.js';
import { filterTarget, targetMediaType, translateFilterResult } from './filter.js';
import type {
  CompileRequest,
  CompileResult,
  Engine,
  EvalOptions,
  EvalResult,
  ModuleChanges,
  PolicyModule,
  PolicyWriteOptions,
  EngineQueryResult,
  WriteResult,
} from './types.js';

export interface RegolithEngineOptions {
  store?: Store;
  /** Syntax of modules (v1 by default; v0 behind --v0-compatible). */
  regoVersion?: RegoVersion;
  /** Where print() output goes. */
  print?: (message: string) => void;
  /** Time budget per evaluation (ms). */
  timeoutMs?: number;
  /** Custom built-in functions (see custom-builtins.ts). */
  builtins?: Iterable<CustomBuiltin>;
}

type QueryResults = ReturnType<QueryPlan['run']>;

interface RunOutput {
  results: QueryResults;
  explanation?: Value;
}

interface PolicyState {
  modules: Map<string, Module>;
  compiled: CompiledPolicy;
}


function hasOwnRules(n: RuleNode): boolean {
  return n.complete.length + n.sets.length + n.general.length + n.funcs.length > 0 || n.default !== undefined;
}

export class RegolithEngine implements Engine {
  readonly store: Store;
  private readonly regoVersion: RegoVersion;
  private readonly opts: RegolithEngineOptions;
  private state: PolicyState;
  private readonly plans = new PlanCache();
  /** Plans by ref array, for refs that cannot change (frozen); dropped with `plans`. */
  private refPlans = new WeakMap<Value[], QueryPlan>();
  private virtualPaths: string[][] | undefined;
  /**
   * How many times the whole module set was compiled, and how many of those were rebuilds
   * after a commit that did not carry its compiled policy (a writer that bypassed the engine).
   */
  readonly stats = { compiles: 0, rebuilds: 0 };
  /** The custom built-ins every compiled policy carries. */
  readonly builtins: CustomBuiltins;

  /** Throws CustomBuiltinError for a custom built-in that cannot be added. */
  constructor(opts: RegolithEngineOptions = {}) {
    this.opts = opts;
    this.builtins = new CustomBuiltins(opts.builtins ?? []);
    this.store = opts.store ?? new Store();
    this.regoVersion = opts.regoVersion ?? 'v1';
    this.state = this.fromSnapshot(this.store.snapshot());
    this.store.onCommit((event, snap) => this.onCommit(event, snap));
  }

  private parse(id: string, raw: string, regoVersion = this.regoVersion): Module {
    try {
      return parseModule(raw, { filename: id, regoVersion });
    } catch (e) {
      throw toEngineError(e);
    }
  }

  private compileAll(modules: Map<string, Module>): CompiledPolicy {
    this.stats.compiles++;
    try {
      return compile([...modules.values()], { builtins: this.builtins.size ? this.builtins : undefined });
    } catch (e) {
      throw toEngineError(e);
    }
  }

  /** Policies written by someone else (bundles, persistence): parse what is not parsed yet. */
  private fromSnapshot(snap: Snapshot): PolicyState {
    const modules = new Map<string, Module>();
    for (const p of snap.listPolicies()) {
      modules.set(p.id, isModule(p.info) ? p.info : this.parse(p.id, p.raw));
    }
    return { modules, compiled: this.compileAll(modules) };
  }

  private onCommit(event: CommitEvent, snap: Snapshot): void {
    if (!event.policyChanged) return;
    let next: PolicyState;
    if (event.context instanceof PolicyStateContext) next = event.context.state;
    else {
      this.stats.rebuilds++;
      next = this.fromSnapshot(snap);
    }
    this.state = next;
    this.plans.clear();
    this.refPlans = new WeakMap();
    this.virtualPaths = undefined;
  }

  listPolicies(): PolicyModule[] {
    return this.store
      .snapshot()
      .listPolicies()
      .map((p) => this.policyModule(p.id, p.raw));
  }

  getPolicy(id: string): PolicyModule | undefined {
    const p = this.store.snapshot().policies.get(id);
    return p ? this.policyModule(p.id, p.raw) : undefined;
  }

  private policyModule(id: string, raw: string): PolicyModule {
    const m = this.state.modules.get(id);
    return { id, raw, ast: (m ? moduleToJSON(m) : null) as Value };
  }

  async putPolicy(id: string, raw: string, opts?: PolicyWriteOptions): Promise<WriteResult> {
    const t0 = process.hrtime.bigint();
    const module = this.parse(id, raw);
    const t1 = process.hrtime.bigint();
    let t2 = t1;
    await this.store.transact((txn) => {
      if (opts?.guard) {
        const old = this.state.modules.get(id);
        if (old) opts.guard(txn, packagePath(old));
        opts.guard(txn, packagePath(module));
      }
      const modules = new Map(this.state.modules);
      modules.set(id, module);
      const compiled = this.compileAll(modules);
      t2 = process.hrtime.bigint();
      txn.upsertPolicy(id, raw, module);
      txn.context = new PolicyStateContext({ modules, compiled });
    });
    return opts?.metrics
      ? { metrics: { timer_rego_module_parse_ns: Number(t1 - t0), timer_rego_module_compile_ns: Number(t2 - t1) } }
      : {};
  }

  async deletePolicy(id: string, opts?: PolicyWriteOptions): Promise<WriteResult> {
    const t0 = process.hrtime.bigint();
    await this.store.transact((txn) => {
      const rec = txn.getPolicy(id); // not found -> 404
      if (opts?.guard) opts.guard(txn, packagePath(this.moduleOf(rec)));
      const modules = new Map(this.state.modules);
      modules.delete(id);
      const compiled = this.compileAll(modules);
      txn.deletePolicy(id);
      txn.context = new PolicyStateContext({ modules, compiled });
    });
    return opts?.metrics ? { metrics: { timer_rego_module_compile_ns: Number(process.hrtime.bigint() - t0) } } : {};
  }

  /** The parsed module behind a stored record: its own, the live one if unchanged, or parsed now. */
  private moduleOf(rec: { id: string; raw: string; info?: unknown }): Module {
    if (isModule(rec.info)) return rec.info;
    const live = this.state.modules.get(rec.id);
    // The live state was built from the committed records: reuse it only for an unchanged record.
    if (live && this.store.snapshot().policies.get(rec.id) === rec) return live;
    return this.parse(rec.id, rec.raw);
  }

  installModules(changes: ModuleChanges, txn: WriteTxn): void {
    const remove = new Set(changes.remove ?? []);
    const upsert = (changes.upsert ?? []).map((m) => ({ ...m, module: m.parsed ?? this.parse(m.id, m.raw, m.regoVersion) }));
    const modules = new Map<string, Module>();
    const present = new Set<string>();
    for (const rec of txn.listPolicies()) {
      present.add(rec.id);
      if (!remove.has(rec.id)) modules.set(rec.id, this.moduleOf(rec));
    }
    for (const m of upsert) modules.set(m.id, m.module);
    // Compile before touching the transaction: a failure throws and the caller's commit never happens.
    const compiled = this.compileAll(modules);
    for (const id of remove) if (present.has(id)) txn.deletePolicy(id);
    for (const m of upsert) txn.upsertPolicy(m.id, m.raw, m.module);
    txn.context = new PolicyStateContext({ modules, compiled });
  }

  virtualDocumentPaths(): string[][] {
    if (this.virtualPaths) return this.virtualPaths;
    const out: string[][] = [];
    const walk = (n: RuleNode) => {
      if (hasOwnRules(n)) out.push([...n.path]);
      else for (const c of n.children.values()) walk(c);
    };
    walk(this.state.compiled.root);
    this.virtualPaths = out;
    return out;
  }

  hasRulesAt(ref: Value[]): boolean {
    let n: RuleNode | undefined = this.state.compiled.root;
    for (const s of ref) {
      n = typeof s === 'string' ? n.children.get(s) : undefined;
      if (!n) return false;
    }
    return hasOwnRules(n);
  }

  private plan(key: string, text: string, metrics?: Record<string, number>): QueryPlan {
    const cached = this.plans.get(key);
    if (metrics) metrics['counter_server_query_cache_hit'] = cached ? 1 : 0;
    if (cached) return cached;
    let plan: QueryPlan;
    try {
      plan = planQuery(this.state.compiled, text, this.regoVersion, metrics);
    } catch (e) {
      throw toEngineError(e);
    }
    this.plans.set(key, plan);
    return plan;
  }

  /**
   * Runs a plan. Synchronous (no promise, no microtask hop) unless a built-in waits on
   * I/O; then it runs again on the async path without blocking other decisions.
   */
  private run(plan: QueryPlan, opts: EvalOptions, metrics?: Record<string, number>): RunOutput | Promise<RunOutput> {
    const tracer = opts.explain ? new BufferTracer(opts.explain) : undefined;
    const t0 = metrics ? process.hrtime.bigint() : 0n;
    const done = (results: QueryResults): RunOutput => {
      if (metrics) metrics['timer_rego_query_eval_ns'] = Number(process.hrtime.bigint() - t0);
      return { results, explanation: tracer ? explanationOf(tracer, opts.pretty ?? false) : undefined };
    };
    let out: QueryResults | Promise<QueryResults>;
    try {
      out = runPlan(plan, {
        input: opts.input,
        data: (opts.snapshot ?? this.store.snapshot()).data,
        strict: opts.strictBuiltinErrors ?? false,
        tracer,
        print: this.opts.print,
        deadline: this.opts.timeoutMs !== undefined ? Date.now() + this.opts.timeoutMs : undefined,
        ndCache: opts.ndBuiltinCache,
      });
    } catch (e) {
      throw toEngineError(e);
    }
    if (!(out instanceof Promise)) return done(out);
    return out.then(done, (e: unknown) => {
      throw toEngineError(e);
    });
  }

  /** The plan of data.<ref>; a frozen ref (the server's per-path refs) finds it without building the ref's text. */
  private refPlan(ref: Value[], metrics?: Record<string, number>): QueryPlan {
    const frozen = Object.isFrozen(ref);
    if (frozen && !metrics) {
      const p = this.refPlans.get(ref);
      if (p) return p;
    }
    const text = refText(ref);
    const plan = this.plan('d:' + text, text, metrics);
    if (frozen) this.refPlans.set(ref, plan);
    return plan;
  }

  /** Each plan's input needs (false: all of the input); plans are rebuilt when policies change. */
  private readonly needs = new WeakMap<QueryPlan, JSONNeeds | false>();

  inputNeeds(ref: Value[]): JSONNeeds | undefined {
    let plan: QueryPlan;
    try {
      plan = this.refPlan(ref);
    } catch {
      return undefined; // evaluate() reports the error
    }
    let n = this.needs.get(plan);
    if (n === undefined) this.needs.set(plan, (n = inputNeeds(plan.policy.root, plan.cq.body) ?? false));
    return n === false ? undefined : n;
  }

  evaluate(ref: Value[], opts: EvalOptions): EvalResult | Promise<EvalResult> {
    const metrics = opts.metrics || opts.instrument ? ({} as Record<string, number>) : undefined;
    const plan = this.refPlan(ref, metrics);
    const sp = spans(); // distributed tracing: evaluation as a child of the request's span
    const out = sp ? sp.inSpan('evaluation', { 'rego.query': refText(ref) }, () => this.run(plan, opts, metrics)) : this.run(plan, opts, metrics);
    return out instanceof Promise ? out.then((o) => evalResult(o, metrics)) : evalResult(out, metrics);
  }

  async query(query: string, opts: EvalOptions): Promise<EngineQueryResult> {
    const metrics = opts.metrics || opts.instrument ? ({} as Record<string, number>) : undefined;
    const plan = this.plan('q:' + query, query, metrics);
    const sp = spans();
    const { results, explanation } = await (sp ? sp.inSpan('evaluation', { 'rego.query': query }, () => this.run(plan, opts, metrics)) : this.run(plan, opts, metrics));
    const result = results.map((r) => {
      const o: Record<string, Value> = {};
      for (const [k, v] of r.bindings) o[k] = v;
      return o;
    });
    return { result, metrics, explanation };
  }

  validateQuery(query: string): void {
    try {
      parseQuery(query, { regoVersion: this.regoVersion });
    } catch (e) {
      throw toEngineError(e);
    }
  }

  async compile(req: CompileRequest, opts: EvalOptions): Promise<CompileResult> {
    const metrics = opts.metrics || opts.instrument ? ({} as Record<string, number>) : undefined;
    const plan = this.plan('q:' + req.query, req.query, metrics);
    // a filter rule's METADATA gives the unknowns and mask rule the request leaves out
    const meta = req.path ? filterRuleMeta(this.state.compiled, req.path) : {};
    const unknowns = req.unknowns ?? meta.unknowns ?? ['input'];
    const t0 = metrics ? process.hrtime.bigint() : 0n;
    const tracer = opts.explain ? new BufferTracer(opts.explain) : undefined;
    let out: PartialQueries;
    try {
      out = partialPlan(plan, {
        tracer,
        input: req.input,
        data: (opts.snapshot ?? this.store.snapshot()).data,
        unknowns,
        disableInlining: req.options?.disableInlining,
        nondeterministicBuiltins: req.options?.nondeterministicBuiltins,
        strictBuiltinErrors: opts.strictBuiltinErrors,
        deadline: this.opts.timeoutMs !== undefined ? Date.now() + this.opts.timeoutMs : undefined,
      });
    } catch (e) {
      throw toEngineError(e);
    }
    if (metrics) metrics['timer_rego_partial_eval_ns'] = Number(process.hrtime.bigint() - t0);
    const explanation = tracer ? explanationOf(tracer, opts.pretty ?? false) : undefined;
    const target = req.path ? filterTarget(req.accept) : undefined;
    if (!target) return { result: out.compileResult(), metrics, explanation };
    const maskRule = req.options?.maskRule ?? meta.maskRule;
    const masks = maskRule ? await this.masks(maskRule, req.path!, req.input, opts) : undefined;
    return { result: translateFilterResult(out, target, { ...req.options, masks }), metrics, explanation, contentType: targetMediaType(target) };
  }

  /** The value of the mask rule (a data ref, or a rule name in the filter rule's package) for this input. */
  private async masks(rule: string, path: string[], input: Value | undefined, opts: EvalOptions): Promise<Value | undefined> {
    const ref = rule.startsWith('data.') ? rule : ['data', ...path.slice(0, -1), rule].join('.');
    const r = await this.query(`__mask__ = ${ref}`, { ...opts, input, metrics: false, instrument: false, explain: undefined });
    return r.result[0]?.['__mask__'];
  }
}

/** Carries the already-compiled policy state through a commit to the trigger. */
class PolicyStateContext {
  constructor(readonly state: PolicyState) {}
}

function isModule(v: unknown): v is Module {
  return typeof v === 'object' && v !== null && 'package' in v && 'rules' in v;
}

/** `package a.b` -> ["a", "b"] (the string terms after `data`). */
function packagePath(m: Module): string[] {
  return m.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : String((t as { value?: unknown }).value)));
}

function evalResult(o: RunOutput, metrics: Record<string, number> | undefined): EvalResult {
  return { result: o.results[0]?.expressions[0]?.value, metrics, explanation: o.explanation };
}

function explanationOf(tracer: BufferTracer, pretty: boolean): Value {
  // OPA: pretty lines (PrettyTraceWithLocation) with `pretty`, else TraceEventV1 objects
  if (pretty) return tracer.lines();
  return tracer.json() as unknown as Value;
}
