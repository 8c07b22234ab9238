// What the HTTP server (and the bundle plugin) need from the policy engine. They never
// parse or evaluate Rego themselves: they speak HTTP, read and write base documents
// through the Store, and ask an Engine for everything that depends on Rego semantics.
// store-engine.ts is the implementation over the document store.

import type { JSONNeeds, Value } from '../value/index.js';
import type { Module, RegoVersion } from '../lang/index.js';
import type { Snapshot, Store, WriteTxn } from '../storage/index.js';

export { EngineError, type AstError, type EngineErrorKind, type ErrorLocation } from './errors.js';

export type { ExplainMode } from '../eval/explain.js';
import type { ExplainMode } from '../eval/explain.js';

export interface EvalOptions {
  /** The input document; undefined means "no input" (not null). */
  input?: Value;
  strictBuiltinErrors?: boolean;
  /** Collect metrics (timer_*_ns, counter_*) into the result. */
  metrics?: boolean;
  /** Collect the superset of metrics OPA calls instrumentation. */
  instrument?: boolean;
  explain?: ExplainMode;
  /** Explanations in the human-readable (string lines) form. */
  pretty?: boolean;
  /** The data snapshot to evaluate against (one consistent view per decision). */
  snapshot?: Snapshot;
  /**
   * Receives the answers of non-deterministic built-ins (OPA's nd_builtin_cache) for the
   * decision log. A map rather than a result field: a failed decision is logged with it too.
   */
  ndBuiltinCache?: Map<string, Map<string, Value>>;
}

export interface EvalResult {
  /** The document's value; undefined when the document is undefined. */
  result?: Value;
  metrics?: Record<string, number>;
  explanation?: Value;
}

export interface EngineQueryResult {
  /** One object of variable bindings per solution (wildcards excluded). */
  result: Record<string, Value>[];
  metrics?: Record<string, number>;
  explanation?: Value;
}

export interface CompileRequest {
  query: string;
  input?: Value;
  /** Terms treated as unknown (Rego text); undefined means ["input"] (or, for a filter rule, its METADATA). */
  unknowns?: string[];
  options?: {
    disableInlining?: string[];
    nondeterministicBuiltins?: boolean;
    /** Data filtering: the dialects of a multitarget answer. */
    targetDialects?: string[];
    /** Data filtering: table and column renames per dialect. */
    targetSQLTableMappings?: Value;
    /** Data filtering: the rule whose value is the column masks. */
    maskRule?: string;
  };
  /** Data filtering (/v1/compile/{path}): the filter rule's path under data. */
  path?: string[];
  /** Data filtering: the Accept header, which selects the target (SQL dialect, UCAST, ...). */
  accept?: string;
}

export interface CompileResult {
  /** `{}` or `{ queries: [...], support?: [...] }`, already in OPA's JSON AST shape. */
  result: Value;
  /** Data filtering: the media type of the target answered (the response's Content-Type). */
  contentType?: string;
  metrics?: Record<string, number>;
  explanation?: Value;
}

export interface PolicyModule {
  id: string;
  raw: string;
  /** OPA-shaped JSON AST of the module. */
  ast: Value;
}

export interface WriteResult {
  metrics?: Record<string, number>;
}

export interface PolicyWriteOptions {
  metrics?: boolean;
  /**
   * Called inside the write transaction with the package path (segments under data) of
   * the module being replaced or deleted and of the new module; throwing aborts the write.
   * The server uses it to refuse writes into paths a bundle owns.
   */
  guard?: (txn: WriteTxn, packagePath: string[]) => void;
}

/** One module for installModules: its text, and its parsed form when the caller chose the Rego version. */
export interface ModuleInstall {
  id: string;
  raw: string;
  parsed?: Module;
  /** The syntax to parse `raw` with when not parsed (default: the engine's). */
  regoVersion?: RegoVersion;
}

export interface ModuleChanges {
  /** Modules added or replaced. */
  upsert?: ModuleInstall[];
  /** Ids of modules removed (missing ones are ignored). */
  remove?: string[];
}

export interface Engine {
  /** The store the engine evaluates against and keeps its policies in. */
  readonly store: Store;

  listPolicies(): PolicyModule[];
  getPolicy(id: string): PolicyModule | undefined;
  /**
   * Parses, compiles (with every other module) and installs a module, atomically.
   * Throws EngineError('parse' | 'compile' | 'bad_request') and changes nothing on failure.
   */
  putPolicy(id: string, raw: string, opts?: PolicyWriteOptions): Promise<WriteResult>;
  /**
   * Removes a module. Throws StorageError(not found) when missing, EngineError('compile')
   * when the remaining modules no longer compile (others depend on it).
   */
  deletePolicy(id: string, opts?: PolicyWriteOptions): Promise<WriteResult>;
  /**
   * Installs and removes many modules inside the caller's write transaction (bundle
   * activation): the resulting module set is compiled once, here, and that compiled policy
   * goes live with the commit. Throws EngineError('parse' | 'compile') before touching the
   * transaction, so the caller's transact() aborts and nothing changes.
   */
  installModules(changes: ModuleChanges, txn: WriteTxn): void;

  /** Paths (string segments under data) of every rule: virtual documents that cannot be written. */
  virtualDocumentPaths(): string[][];
  /** Whether rules define a document at exactly this ref (for "document undefined" vs "document missing"). */
  hasRulesAt(ref: Value[]): boolean;

  /**
   * Evaluates the document at data.<ref> (segments are strings or integers). May answer
   * synchronously (no promise, no microtask hop: the decision fast path writes its reply
   * in the same tick); a promise when evaluation waits on I/O. Errors are thrown or rejected.
   */
  evaluate(ref: Value[], opts: EvalOptions): EvalResult | Promise<EvalResult>;
  /**
   * What evaluate(ref) can read of its input (undefined: all of it), so that a caller
   * holding the input as JSON text can build only those parts (value/json-sparse.ts).
   * Optional: an engine without it gets whole inputs.
   */
  inputNeeds?(ref: Value[]): JSONNeeds | undefined;
  /** Runs an ad-hoc query (Rego body text). Throws EngineError('parse' | 'compile' | 'eval'). */
  query(query: string, opts: EvalOptions): Promise<EngineQueryResult>;
  /** Checks that a query parses; throws EngineError('parse'). */
  validateQuery(query: string): void;
  /** Partial evaluation for POST /v1/compile; may throw EngineError('unimplemented'). */
  compile(req: CompileRequest, opts: EvalOptions): Promise<CompileResult>;
}

/** One decision as the server reports it to decision logging (the same id is in the response). */
export interface DecisionEvent {
  decision_id: string;
  /** "data.a.b" (the server's ref text) or "a/b". */
  path?: string;
  query?: string;
  input?: Value;
  result?: Value;
  error?: { code: string; message: string };
  /** RFC 3339; the logger stamps the event when missing. */
  timestamp?: string;
  metrics?: Record<string, number>;
  requested_by?: string;
  /** OPA's nd_builtin_cache: the non-deterministic built-in answers the decision used. */
  nd_builtin_cache?: Value;
  req_id?: number;
  /** The W3C ids (hex) of the traced request that made the decision (distributed tracing on, the request in a span context), as OPA logs them. */
  trace_id?: string;
  span_id?: string;
  /** Revisions of data the decision read besides the bundles' (an adapter's document: "adapter/<name>"), logged under `bundles`. */
  revisions?: Record<string, string>;
}

/** A decision as the server hands it to the decision logger: the event, and text it already has. */
export interface LoggedDecision extends DecisionEvent {
  /** The result's JSON text (toJSONText) when the response already wrote it: the log need not write it again. */
  result_json?: string;
  /**
   * The input's JSON text, a view of the request body, when the body is `{"input": ...}` and
   * nothing else and the server checked that the text can stand for the input
   * (value/json-input-text.ts): the log copies it instead of writing the value again.
   */
  input_text?: Buffer;
  /** `input` holds only what the decision read; the whole input is `input_text` (plugins/logs/logged-values.ts). */
  input_partial?: boolean;
}
