// Libraries that only a few built-ins use (graphql, ajv) are loaded on the first call of
// one of those built-ins, not when the built-ins are registered: declarations must be
// there from the start (the type checker and `capabilities` read them), but a policy that
// never calls graphql.* should not pay for loading graphql-js. Built-in calls are
// synchronous, so the library is required (CommonJS) rather than imported; it stays
// outside the bundle and is resolved from node_modules next to the package.

import { createRequire } from 'node:module';
import { RegoEvalError } from '../errors.js';

const requireHere = createRequire(import.meta.url);

/**
 * A getter that requires `name` on first use and returns the same module afterwards.
 * A library that cannot be loaded (a broken install) ends the query with an internal error:
 * as a built-in error it would make `graphql.is_valid` answer false and `not ...` true,
 * a wrong decision with no error.
 */
export function lazyRequire<T>(name: string, load: (name: string) => unknown = requireHere): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      try {
        loaded = load(name) as T;
      } catch (e) {
        throw new RegoEvalError('eval_internal_error', `the ${name} library could not be loaded: ${(e as Error)?.message ?? String(e)}`);
      }
    }
    return loaded;
  };
}

/** The module's default export: CommonJS packages built from ES modules keep it under `default`. */
export function defaultExport<T>(mod: unknown): T {
  const m = mod as { default?: unknown; __esModule?: boolean };
  return (m && m.__esModule && m.default !== undefined ? m.default : mod) as T;
}
