// Per-query and per-`with` evaluation state. A QueryState lives for one query (its clock,
// print sink, limits, caches); an EvalCtx is the view of input/data/mocks that `with`
// replaces, and carries the memo that must not outlive that view.

import type { Location } from '../lang/ast.js';
import type { BuiltinContext, BuiltinDef } from './builtins/registry.js';
import type { RuleNode } from '../compiler/tree.js';
import { RegoEvalError, Suspend } from './errors.js';
import type { Value } from '../value/index.js';
import { nextValueEpoch } from '../value/index.js';
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
  /**
   * For callers that only run synchronously (the library's evaluate()): an I/O built-in
   * ends the run (IOPending) before it starts anything, since no async run takes it over.
   */
  noIO?: boolean;
  runtime?: Value;
  tracer?: Tracer;
  ndCache?: Map<string, Map<string, Value>>;
  /**
   * Receives the errors of built-in calls that were made undefined (OPA's BuiltinErrorList,
   * `opa eval --show-builtin-errors`); never filled under strict built-in errors.
   */
  builtinErrors?: RegoEvalError[];
}

const stderrSink = (m: string): void => void process.stderr.write(m + '\n');
const EMPTY_DOC: Value = Object.freeze({});
/** What a run that may not start I/O waits on: nothing. */
const NOTHING_STARTED: Promise<unknown> = Promise.resolve();

export class QueryState {
  readonly strict: boolean;
  private readonly printSink: (msg: string) => void;
  /**
   * Set by a query run: printed lines are held until the run ends, because a run suspended
   * for I/O is thrown away and run again, and its lines must not print twice.
   */
  holdPrints = false;
  private held: string[] | undefined;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly maxDepth: number;
  readonly runtimeDoc: Value;
  readonly tracer: Tracer | undefined;
  readonly builtinErrors: RegoEvalError[] | undefined;
  readonly noIO: boolean;
  depth = 0;
  /** The package tree of the policy being evaluated. */
  root!: RuleNode;
  private ticks = 0;
  // Made on first use: most decisions never read the clock or call I/O built-ins.
  private _now: bigint | undefined;
  private _nd: Map<string, Map<string, Value>> | undefined;
  private _io: Map<string, Value | Error> | undefined;
  private _pending: Map<string, Promise<unknown>> | undefined;
  private _bctx: BuiltinCtx | undefined;

  constructor(o: QueryStateOptions = {}) {
    // Cached sorted keys/hashes of plain values are valid for one evaluation only.
    nextValueEpoch();
    this._now = o.now;
    this.strict = !!o.strict;
    this.printSink = o.print ?? stderrSink;
    this._nd = o.ndCache;
    this._io = o.io;
    this.noIO = !!o.noIO;
    this.deadline = o.deadline ?? Infinity;
    this.signal = o.signal;
    this.maxDepth = o.maxDepth ?? 10000;
    this.runtimeDoc = o.runtime ?? EMPTY_DOC;
    this.tracer = o.tracer;
    this.builtinErrors = o.builtinErrors;
  }

  print(m: string): void {
    if (this.holdPrints) (this.held ??= []).push(m);
    else this.printSink(m);
  }

  /** Prints the held lines (a run that ended, with results or an error). */
  releasePrints(): void {
    const held = this.held;
    this.held = undefined;
    if (held) for (const m of held) this.printSink(m);
  }

  /** Forgets the held lines (a run suspended for I/O, to be run again). */
  dropPrints(): void {
    this.held = undefined;
  }

  /** What a suspended run's next try must share: the I/O started and the clock read. */
  resumeState(): { io: Map<string, Value | Error>; now: bigint; ndCache: Map<string, Map<string, Value>> } {
    return { io: this.io, now: this.nowNs, ndCache: this.ndCache };
  }

  /** time.now_ns for the whole query: read once, on first use. */
  get nowNs(): bigint {
    return (this._now ??= BigInt(Date.now()) * 1000000n);
  }
  get ndCache(): Map<string, Map<string, Value>> {
    return (this._nd ??= new Map());
  }
  get io(): Map<string, Value | Error> {
    return (this._io ??= new Map());
  }
  get pending(): Map<string, Promise<unknown>> {
    return (this._pending ??= new Map());
  }

  /** The context handed to built-ins (made on first use: most queries call few built-ins). */
  get bctx(): BuiltinContext & { name: string; location?: Location } {
    return (this._bctx ??= new BuiltinCtx(this));
  }

  metadata: { chain(): Value; rule(): Value } | undefined;

  /** Called on every rule entry and iteration step: enforces time and cancellation. */
  tick(): void {
    if ((++this.ticks & 1023) !== 0) return;
    this.checkLimits();
  }

  checkLimits(): void {
    if (this.signal?.aborted) throw new RegoEvalError('eval_cancel_error', 'caller cancelled query execution');
    // OPA reports a deadline (opa eval --timeout, server timeouts) as a cancellation too
    if (this.deadline !== Infinity && Date.now() > this.deadline) throw new RegoEvalError('eval_cancel_error', 'caller cancelled query execution');
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

/** Built-ins' view of the query: methods on a prototype, so making one costs one object. */
class BuiltinCtx implements BuiltinContext {
  name = '';
  location: Location | undefined = undefined;
  constructor(private readonly q: QueryState) {}
  get strict(): boolean {
    return this.q.strict;
  }
  get ndCache(): Map<string, Map<string, Value>> {
    return this.q.ndCache;
  }
  get allowNet(): readonly string[] | undefined {
    return this.q.root?.allowNet;
  }
  now(): bigint {
    return this.q.nowNs;
  }
  print(m: string): void {
    this.q.print(m);
  }
  trace(m: string): void {
    this.q.tracer?.note(m);
  }
  testCase(path: Value): void {
    this.q.tracer?.testCase?.(path);
  }
  awaitIO(key: string, load: () => Promise<Value>): Value {
    const q = this.q;
    const got = q.io.get(key);
    if (got !== undefined) {
      if (got instanceof Error) throw got;
      return got;
    }
    if (q.noIO) throw new Suspend(NOTHING_STARTED);
    if (!q.pending.has(key))
      q.pending.set(
        key,
        load().then(
          (v) => void q.io.set(key, v),
          (e: unknown) => void q.io.set(key, e instanceof Error ? e : new Error(String(e))),
        ),
      );
    throw new Suspend(Promise.all(q.pending.values()));
  }
  runtime(): Value {
    return this.q.runtimeDoc;
  }
  metadataChain(): Value {
    return this.q.metadata?.chain() ?? [];
  }
  metadataRule(): Value {
    return this.q.metadata?.rule() ?? {};
  }
}

export class EvalCtx {
  /** complete rule values, docs and sets of nodes; keys are RuleNode objects */
  readonly memo = new Map<object, Value | typeof UNDEF>();
  // made on first use: many decisions read no merged document and call no function
  private _docMemo: Map<object, Value | typeof UNDEF> | undefined;
  private _fnMemo: Map<object, ArgsMemo> | undefined;
  get docMemo(): Map<object, Value | typeof UNDEF> {
    return (this._docMemo ??= new Map());
  }
  get fnMemo(): Map<object, ArgsMemo> {
    return (this._fnMemo ??= new Map());
  }
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
