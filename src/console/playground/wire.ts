// The playground's request as it travels: the page builds it (ui/src/api.ts), the server
// checks it (request.ts). It imports nothing, so the browser build takes it as it is.

export const EXPLAIN_MODES = ['off', 'notes', 'fails', 'full'] as const;
export type ExplainMode = (typeof EXPLAIN_MODES)[number];

/** POST /ui/api/eval */
export interface EvalRequest {
  /** File name -> Rego text. */
  modules: Record<string, string>;
  data?: unknown;
  input?: unknown;
  query: string;
  /** Default off. */
  explain?: ExplainMode;
  /** Default false. */
  coverage?: boolean;
  /** Partial evaluation over these refs when given and not empty. */
  unknowns?: string[];
  /** The Rego syntax of the modules and the query (default v1). */
  rego_version?: RegoVersionName;
  /** OPA's capabilities document: calls may name only its built-ins (default: every built-in). */
  capabilities?: { builtins: { name: string }[] };
  /** Evaluate the selection: the query is read inside this module's package, with its imports. */
  in_module?: string;
}

export const REGO_VERSIONS = ['v0', 'v1'] as const;
export type RegoVersionName = (typeof REGO_VERSIONS)[number];
