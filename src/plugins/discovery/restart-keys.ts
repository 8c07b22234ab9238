// Discovered settings that take effect only at the next start. OPA takes every section of a
// discovered configuration into its manager, but applies these at start only (the server's
// listeners, encoding and authorization, persistence, tracing, storage); the rest is live
// (bundles, decision logs, status, labels, adapters here; default_decision and
// nd_builtin_cache are read per request). Regolith does the same and says which changed.

type Obj = Record<string, unknown>;

export const RESTART_KEYS = ['server', 'default_authorization_decision', 'persistence_directory', 'distributed_tracing', 'caching', 'storage'] as const;

/** The start-only top-level keys whose value differs between the applied and the next configuration. */
export function restartKeys(applied: Obj, next: Obj): string[] {
  return RESTART_KEYS.filter((k) => JSON.stringify(applied[k] ?? null) !== JSON.stringify(next[k] ?? null));
}
