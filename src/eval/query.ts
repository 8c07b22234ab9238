// Running a compiled query: plan once, evaluate many times. Results are Rego values;
// the library API converts them to plain JS.

import type { Body, Location } from '../lang/ast.js';
import type { CompiledPolicy, CompiledQuery } from '../compiler/index.js';
import { EvalCtx, Frame, QueryState, type QueryStateOptions } from './context.js';
import { RegoEvalError, Suspend } from './errors.js';
import { PlanCtx } from './plan/ctx.js';
import { compileBody } from './plan/exprs.js';
import type { Step } from './plan/types.js';
import type { Value } from './value/index.js';

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

export class IOPending extends Error {
  constructor() {
    super('the policy calls a built-in that waits on I/O (http.send, ...): use the async evaluation entry point');
  }
}

export class QueryPlan {
  private readonly step: Step;
  private readonly nslots: number;
  private readonly outputs: { name: string; slot: number }[];
  private readonly exprs: { slot: number; text: string; location?: Location }[];

  constructor(
    readonly policy: CompiledPolicy,
    readonly cq: CompiledQuery,
    original: Body,
  ) {
    const pc = new PlanCtx(policy.root, '');
    const exprSlots = new Map<number, number>();
    this.exprs = original.map((e) => {
      const slot = pc.hidden();
      exprSlots.set(e.index, slot);
      return { slot, text: e.location?.text ?? '', location: e.location };
    });
    const tail: Step = (fr) => fr.out(fr);
    const { step } = compileBody(cq.body, pc, tail, (e) => ({ valueSlot: exprSlots.get(e.index), capture: true }));
    this.step = step;
    this.outputs = cq.outputVars.map((name) => ({ name, slot: pc.slotOf(name) }));
    this.nslots = pc.nslots;
  }

  /** Synchronous run; throws IOPending if a built-in needs I/O that has not completed. */
  run(o: RunOptions = {}): RawResult[] {
    const t0 = o.metrics ? process.hrtime.bigint() : 0n;
    try {
      return this.runInner(o);
    } finally {
      if (o.metrics) o.metrics['timer_rego_query_eval_ns'] = (o.metrics['timer_rego_query_eval_ns'] ?? 0) + Number(process.hrtime.bigint() - t0);
    }
  }

  private runInner(o: RunOptions): RawResult[] {
    const q = new QueryState(o);
    q.root = this.policy.root;
    q.checkLimits();
    const ev = new EvalCtx(q, o.input, o.data ?? {}, null, null, null);
    const results: RawResult[] = [];
    const fr = new Frame(new Array(this.nslots), ev, (f) => {
      const bindings = new Map<string, Value>();
      for (const { name, slot } of this.outputs) {
        const v = f.slots[slot];
        if (v !== undefined) bindings.set(name, v);
      }
      const expressions = this.exprs.map((x) => ({
        value: (f.slots[x.slot] ?? true) as Value,
        text: x.text,
        location: x.location ? { row: x.location.row, col: x.location.col } : undefined,
      }));
      results.push({ bindings, expressions });
      return !!o.first;
    });
    try {
      this.step(fr);
    } catch (e) {
      if (e instanceof Suspend) {
        const err = new IOPending();
        (err as unknown as { suspend: Suspend }).suspend = e;
        throw err;
      }
      if (e instanceof RangeError && /call stack/i.test(e.message))
        throw new RegoEvalError('eval_internal_error', 'evaluation depth limit exceeded (stack overflow)');
      throw e;
    }
    return results;
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
