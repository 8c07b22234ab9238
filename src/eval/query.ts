// Running a compiled query: plan once, evaluate many times. Results are Rego values;
// the library API converts them to plain JS.

import type { Body, Location } from '../lang/ast.js';
import type { CompiledPolicy, CompiledQuery } from '../compiler/index.js';
import { EvalCtx, Frame, QueryState, type QueryStateOptions } from './context.js';
import { RegoEvalError, Suspend } from './errors.js';
import { PlanCtx } from './closures/ctx.js';
import { compileBody } from './closures/exprs.js';
import type { Step } from './closures/types.js';
import { toJS, type Value } from '../value/index.js';
import { TraceSink, type Tracer } from './trace/events.js';
import { traceExpr, traceQuery } from './trace/plan.js';
import { captures, iterates } from './query-capture.js';
import { isSome } from '../compiler/terms.js';

export interface RunOptions extends QueryStateOptions {
  input?: Value;
  data?: Value;
  /** Stop after the first solution. */
  first?: boolean;
  /** Receives OPA's timer names (timer_rego_query_eval_ns) when given. */
  metrics?: Record<string, number>;
}

export interface RawResult {
  bindings: Map<string, Value>;
  expressions: { value: Value; text: string; location?: { row: number; col: number } }[];
}

/** A result as the library hands it out: values as plain JS (see toJS), bindings as an object. */
export interface PlainResult {
  expressions: { value: unknown; text: string; location?: { row: number; col: number } }[];
  bindings: Record<string, unknown>;
}

export class IOPending extends Error {
  /** The suspended run's started I/O, clock and nd cache: the next try must reuse them, never start the I/O again. */
  resume: Pick<RunOptions, 'io' | 'now' | 'ndCache'> | undefined;
  constructor() {
    super('the policy calls a built-in that waits on I/O (http.send, ...): use the async evaluation entry point');
  }
}

export class QueryPlan {
  private readonly step: Step;
  private tracedStep: Step | undefined;
  private readonly nslots: number;
  private tracedSlots = 0;
  private outputs!: { name: string; slot: number }[];
  private exprs!: { slot: number; text: string; location?: Location }[];

  /**
   * `mode` 'query' gives an ad-hoc query OPA's value capture (see query-capture.ts): what
   * eval, /v1/query, the Data API and the library's prepare() run (engine/queries.ts).
   * 'body' (the default) evaluates the expressions as a rule body would (a false value
   * fails), for callers that run a piece of a policy on its own (the partial evaluator).
   */
  constructor(
    readonly policy: CompiledPolicy,
    readonly cq: CompiledQuery,
    private readonly original: Body,
    private readonly mode: 'query' | 'body' = 'body',
  ) {
    const { step, nslots } = this.build(false);
    this.step = step;
    this.nslots = nslots;
  }

  /** The query's plan; the traced variant (built on first use) reports trace events. */
  private build(traced: boolean): { step: Step; nslots: number } {
    const { policy, cq, original } = this;
    const pc = new PlanCtx(policy.root, '');
    pc.traced = traced;
    const query = this.mode === 'query';
    // Reported: the compiled expressions in evaluation order, as OPA reports them; a bare
    // `some x` is gone after OPA's local-variable rewriting, and a query of nothing else
    // is the expression `true` (with no text or location).
    const reported = cq.body.filter((e) => !e.generated && !(isSome(e.terms) && e.terms.symbols.every((s) => s.type !== 'call')));
    const exprSlots = new Map<number, { slot: number; capture: boolean }>();
    this.exprs = reported.map((e) => {
      const slot = pc.hidden();
      exprSlots.set(e.index, { slot, capture: query && captures(e, policy) });
      return { slot, text: e.location?.text ?? '', location: e.location };
    });
    if (!reported.length) this.exprs = [{ slot: pc.hidden(), text: '' }];
    // OPA appends a check of each captured value after the last expression; traced, each
    // check reports Eval (and Fail) on the expression whose value it tests.
    const checked = query && (original.length > 1 || iterates(original)) ? reported.filter((e) => exprSlots.get(e.index)!.capture) : [];
    const withChecks = (k: Step): Step => {
      let step = k;
      for (let i = checked.length - 1; i >= 0; i--) {
        const slot = exprSlots.get(checked[i]!.index)!.slot;
        const test = (k2: Step): Step => (fr) => (fr.slots[slot] === false ? false : k2(fr));
        step = traced ? traceExpr(checked[i]!, pc, step, test) : test(step);
      }
      return step;
    };
    const tail: Step = (fr) => fr.out(fr);
    const build = (k: Step) =>
      compileBody(cq.body, pc, withChecks(k), (e) => {
        const x = e.generated ? undefined : exprSlots.get(e.index);
        return x ? { valueSlot: x.slot, capture: x.capture } : undefined;
      }).step;
    const text = original.map((e) => e.location?.text ?? '').join('; ');
    const step = traced ? traceQuery(cq.body, text, original[0]?.location, build, tail) : build(tail);
    this.outputs = cq.outputVars.map((name) => ({ name, slot: pc.slotOf(name) }));
    return { step, nslots: pc.nslots };
  }

  /** Synchronous run; throws IOPending if a built-in needs I/O that has not completed. */
  run(o: RunOptions = {}): RawResult[] {
    return this.timed(o, false) as RawResult[];
  }

  /**
   * run(), with each result built once in the library's shape (plain JS values, bindings
   * as an object) instead of as Rego values to be converted after.
   */
  runPlain(o: RunOptions = {}): PlainResult[] {
    return this.timed(o, true) as PlainResult[];
  }

  private timed(o: RunOptions, plain: boolean): RawResult[] | PlainResult[] {
    const t0 = o.metrics ? process.hrtime.bigint() : 0n;
    try {
      if (o.tracer) return this.runTraced(o, o.tracer, plain);
      return this.runWith(o, this.step, this.nslots, plain);
    } finally {
      if (o.metrics) o.metrics['timer_rego_query_eval_ns'] = (o.metrics['timer_rego_query_eval_ns'] ?? 0) + Number(process.hrtime.bigint() - t0);
    }
  }

  private runTraced(o: RunOptions, tracer: Tracer, plain: boolean): RawResult[] | PlainResult[] {
    if (!this.tracedStep) {
      // slot layout differs between the two plans; keep the untraced outputs/exprs intact
      const saved = [this.outputs, this.exprs] as const;
      const { step, nslots } = this.build(true);
      this.tracedStep = step;
      this.tracedSlots = nslots;
      this.tracedOutputs = [this.outputs, this.exprs];
      [this.outputs, this.exprs] = saved;
    }
    const sink = new TraceSink(tracer);
    const [outs, exprs] = this.tracedOutputs!;
    let suspended = false;
    try {
      return this.runWith({ ...o, tracer: sink }, this.tracedStep, this.tracedSlots, plain, outs, exprs, sink);
    } catch (e) {
      suspended = (e as { suspend?: unknown }).suspend !== undefined;
      throw e;
    } finally {
      if (!suspended) sink.flush();
    }
  }

  private tracedOutputs: [QueryPlan['outputs'], QueryPlan['exprs']] | undefined;

  private runWith(
    o: RunOptions,
    step: Step,
    nslots: number,
    plain: boolean,
    outputs = this.outputs,
    exprs = this.exprs,
    sink?: TraceSink,
  ): RawResult[] | PlainResult[] {
    const q = new QueryState(o);
    q.holdPrints = true;
    q.root = this.policy.root;
    if (sink) sink.noteLocation = () => q.bctx.location;
    q.checkLimits();
    const ev = new EvalCtx(q, o.input, o.data ?? {}, null, null, null);
    const results: (RawResult | PlainResult)[] = [];
    const fr = new Frame(new Array(nslots), ev, (f) => {
      if (plain) {
        results.push(plainResult(f.slots, outputs, exprs));
        return !!o.first;
      }
      const bindings = new Map<string, Value>();
      for (const { name, slot } of outputs) {
        const v = f.slots[slot];
        if (v !== undefined) bindings.set(name, v);
      }
      const expressions = exprs.map((x) => ({
        // An expression with no value slot (a comparison that held) reports true; a
        // stored null is a value and must come back as null.
        value: (f.slots[x.slot] === undefined ? true : f.slots[x.slot]) as Value,
        text: x.text,
        location: x.location ? { row: x.location.row, col: x.location.col } : undefined,
      }));
      results.push({ bindings, expressions });
      return !!o.first;
    });
    try {
      step(fr);
    } catch (e) {
      if (e instanceof Suspend) {
        q.dropPrints();
        const err = new IOPending();
        (err as unknown as { suspend: Suspend }).suspend = e;
        err.resume = q.resumeState();
        throw err;
      }
      q.releasePrints();
      if (e instanceof RangeError && /call stack/i.test(e.message))
        throw new RegoEvalError('eval_internal_error', 'evaluation depth limit exceeded (stack overflow)');
      throw e;
    }
    q.releasePrints();
    return results as RawResult[] | PlainResult[];
  }

  /** Asynchronous run: waits for I/O built-ins, re-running the query with their results. */
  async runAsync(o: RunOptions = {}): Promise<RawResult[]> {
    const io = o.io ?? new Map<string, Value | Error>();
    const printed: string[] = [];
    const sink = o.print ?? ((m: string) => process.stderr.write(m + '\n'));
    const now = o.now ?? BigInt(Date.now()) * 1000000n;
    const ndCache = o.ndCache ?? new Map();
    for (;;) {
      printed.length = 0;
      // a suspended try's built-in errors are met again by the next one
      if (o.builtinErrors) o.builtinErrors.length = 0;
      try {
        const r = this.run({ ...o, io, now, ndCache, print: (m) => printed.push(m) });
        for (const m of printed) sink(m);
        return r;
      } catch (e) {
        const s = (e as { suspend?: Suspend }).suspend;
        if (!s) throw e;
        await s.pending;
      }
    }
  }
}

/** One solution in the library's shape, converted as it is read from the slots. */
function plainResult(slots: (Value | undefined)[], outputs: { name: string; slot: number }[], exprs: { slot: number; text: string; location?: Location }[]): PlainResult {
  const bindings: Record<string, unknown> = {};
  for (let i = 0; i < outputs.length; i++) {
    const v = slots[outputs[i]!.slot];
    if (v !== undefined) bindings[outputs[i]!.name] = toJS(v);
  }
  const expressions = new Array<PlainResult['expressions'][number]>(exprs.length);
  for (let i = 0; i < exprs.length; i++) {
    const x = exprs[i]!;
    const v = slots[x.slot];
    // as in runWith: no value slot (a comparison that held) reports true; null stays null
    expressions[i] = { value: v === undefined ? true : toJS(v), text: x.text, location: x.location ? { row: x.location.row, col: x.location.col } : undefined };
  }
  return { expressions, bindings };
}
