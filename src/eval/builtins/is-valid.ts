// The `*.is_valid` built-ins (json, yaml, graphql): never an error, false for operands that
// are not strings, otherwise whether reading the text succeeds.

import { RegoEvalError } from '../errors.js';
import type { BuiltinFn } from './registry.js';

/** A built-in answering whether `read` accepts its string operands without throwing. */
export function isValid(read: (...texts: string[]) => unknown): BuiltinFn {
  return (args) => {
    if (!args.every((a) => typeof a === 'string')) return false;
    try {
      read(...(args as string[]));
      return true;
    } catch (e) {
      // the text's verdict is false; an error of the evaluation itself (a library that
      // could not be loaded) is not the text's and ends the query
      if (e instanceof RegoEvalError) throw e;
      return false;
    }
  };
}
