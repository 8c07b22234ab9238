// Comparison operators on OPA's total order: eq (=), equal (==), neq (!=), lt, lte, gt, gte.
// Each returns a boolean (false too), as OPA's do; the evaluator treats false as failure.

import { compare, equal, type Value } from '../../value/index.js';
import { registerBuiltins } from './registry.js';

// Numbers and strings are the common operands: compare them without the generic path.
function cmp(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return compare(a, b);
}

registerBuiltins([
  // `:=` is compiled to a binding by the evaluator; the declaration is what the type
  // checker and the capabilities list need, the function its meaning on ground values.
  { name: 'assign', fn: (args) => equal(args[0]!, args[1]!) },
  { name: 'eq', fn: (args) => equal(args[0]!, args[1]!) },
  { name: 'equal', fn: (args) => equal(args[0]!, args[1]!) },
  { name: 'neq', fn: (args) => !equal(args[0]!, args[1]!) },
  { name: 'lt', fn: (args) => cmp(args[0]!, args[1]!) < 0 },
  { name: 'lte', fn: (args) => cmp(args[0]!, args[1]!) <= 0 },
  { name: 'gt', fn: (args) => cmp(args[0]!, args[1]!) > 0 },
  { name: 'gte', fn: (args) => cmp(args[0]!, args[1]!) >= 0 },
]);
