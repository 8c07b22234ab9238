// Per-query and per-`with` evaluation state. A QueryState lives for one query (its clock,
// print sink, limits, caches); an EvalCtx is the view of input/data/mocks that `with`
// replaces, and carries the memo that must not outlive that view.

import type { Location } from '../lang/ast.js';
import type { BuiltinContext, BuiltinDef } from './builtins/registry.js';
import type { RuleNode } from '../compiler/tree.js';
import { RegoEvalError, Suspend } from './errors.js';
import type { Value } from './value/index.js';
import { nextValueEpoch } from './value/index.js';
import type { Tracer } from './explain.js';
import type { ArgsMemo } from './args-memo.js';

export interface OverrideNode {
  value?: Value;
  children: Map<string, OverrideNode>;
}

export type Mock = { kind: 'value'; value: Value } | { kind: 'function'; node: RuleNode } | { kind: 'builtin'; def: BuiltinDef };

export interface QueryLimits {
  /** Absolute deadline (ms since epoch, Date.now()). */
  deadline?: number;
  signal?: AbortSignal;
  /** Maximum nesting of rule/function evaluations. */
  maxDepth?: number;
}

export interface QueryStateOptions extends QueryLimits {
  strict?: boolean;
  now?: bigint;
  print?: (msg: string) => void;
  io?: Map<string, Value | Error>;
  runtime?: Value;
  tracer?: Tracer;
  ndCache?: Map<string, Map<string, Value>>;
}

export class QueryState {
  readonly nowNs: bigint;
  readonly strict: boolean;
  readonly printSink: (msg: string) => void;
  readonly ndCache: Map<string, Map<string, Value>>;
  readonly io: Map<string, Value | Error>;
  readonly pending = new Map<string, Promise<unknown>>();
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly maxDepth: number;
  readonly runtimeDoc: Value;
  readonly tracer: Tracer | undefined;
  depth = 0;
  /** The package tree of the policy being evaluated. */
  root!: RuleNode;
  private ticks = 0;
  /** rule being evaluated, for rego.metadata.* */
  currentRule: unknown;

  constructor(o: QueryStateOptions = {}) {
    // Cached sorted keys/hashes of plain values are valid for one evaluation only.
    nextValueEpoch();
    this.nowNs = o.now ?? BigInt(Date.now()) * 1000000n;
    this.strict = !!o.strict;
    this.printSink = o.print ?? ((m) => process.stderr.write(m + '\n'));
    this.ndCache = o.ndCache ?? new Map();
    this.io = o.io ?? new Map();
    this.deadline = o.deadline ?? Infinity;
    this.signal = o.signal;
    this.maxDepth = o.maxDepth ?? 10000;
    this.runtimeDoc = o.runtime ?? {};
    this.tracer = o.tracer;
  }

  private _bctx: (BuiltinContext & { name: string; location?: Location }) | undefined;

  /** The context handed to built-ins (made on first use: most queries call few built-ins). */
  get bctx(): BuiltinContext & { name: string; location?: Location } {
    if (this._bctx) return this._bctx;
    const q = this;
    return (this._bctx = {
      name: '',
      location: undefined,
      now: () => q.nowNs,
      print: (m: string) => q.printSink(m),
      trace: (m: string) => q.tracer?.note(m),
      get strict() {
        return q.strict;
      },
      ndCache: this.ndCache,
      awaitIO(key: string, load: () => Promise<Value>): Value {
        const got = q.io.get(key);
        if (got !== undefined) {
          if (got instanceof Error) throw got;
          return got;
        }
        if (!q.pending.has(key))
          q.pending.set(
            key,
            load().then(
              (v) => void q.io.set(key, v),
              (e: unknown) => void q.io.set(key, e instanceof Error ? e : new Error(String(e))),
            ),
          );
        throw new Suspend(Promise.all(q.pending.values()));
      },
      runtime: () => q.runtimeDoc,
      metadataChain: () => q.metadata?.chain() ?? [],
      metadataRule: () => q.metadata?.rule() ?? {},
    });
  }

  metadata: { chain(): Value; rule(): Value } | undefined;

  /** Called on every rule entry and iteration step: enforces time and cancellation. */
  tick(): void {
    if ((++this.ticks & 1023) !== 0) return;
    this.checkLimits();
  }

  checkLimits(): void {
    if (this.signal?.aborted) throw new RegoEvalError('eval_cancel_error', 'caller cancelled query execution');
    if (Date.now() > this.deadline) throw new RegoEvalError('eval_cancel_error', 'timed out (evaluation time limit exceeded)');
  }

  enter(): void {
    if (++this.depth > this.maxDepth) {
      this.depth = 0;
      throw new RegoEvalError('eval_internal_error', `evaluation depth limit exceeded (${this.maxDepth})`);
    }
    this.tick();
  }
  leave(): void {
    this.depth--;
  }
}

export class EvalCtx {
  /** complete rule values, docs and sets of nodes; keys are RuleNode objects */
  readonly memo = new Map<object, Value | typeof UNDEF>();
  readonly docMemo = new Map<object, Value | typeof UNDEF>();
  readonly fnMemo = new Map<object, ArgsMemo>();
  constructor(
    readonly q: QueryState,
    readonly input: Value | undefined,
    readonly data: Value,
    readonly overrides: OverrideNode | null,
    readonly mocks: Map<string, Mock> | null,
    readonly parent: EvalCtx | null,
  ) {}
}

export const UNDEF: unique symbol = Symbol('undefined');

/** One activation of a rule body or query: variable slots plus where solutions go. */
export class Frame {
  /** A function call's argument values (read by the plan's argument matchers). */
  args: Value[] | undefined = undefined;
  /** What the rule's solutions accumulate into (a value, or the set being built). */
  result: Value | undefined = undefined;
  constructor(
    public slots: (Value | undefined)[],
    public ev: EvalCtx,
    public out: (fr: Frame) => boolean,
  ) {}
}
