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
}
