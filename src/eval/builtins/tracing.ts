// trace (notes in explanations), print and internal.print (output to the print sink,
// never into the result). Values print as OPA does: strings raw, others in Rego syntax.

import { registerBuiltins } from './registry.js';
import { RSet, toRegoString, type Value } from '../../value/index.js';
import { operandError } from './errors.js';

function show(v: Value): string {
  return typeof v === 'string' ? v : toRegoString(v);
}

registerBuiltins([
  {
    name: 'trace',
    impure: true,
    fn: ([msg], ctx) => {
      if (typeof msg !== 'string') throw operandError(1, 'string', msg!);
      ctx.trace(msg);
      return true;
    },
  },
  {
    // Calls to print are planned by the evaluator (so undefined arguments print
    // "<undefined>"); this entry serves direct calls and the capabilities list.
    name: 'print',
    impure: true,
    fn: (args, ctx) => {
      ctx.print(args.map(show).join(' '));
      return true;
    },
  },
  {
    name: 'internal.print',
    impure: true,
    fn: ([arr], ctx) => {
      if (!Array.isArray(arr)) throw operandError(1, 'array', arr!);
      const parts = arr.map((s) => {
        if (!(s instanceof RSet)) return show(s);
        return s.size === 0 ? '<undefined>' : s.values().map(show).join(' ');
      });
      ctx.print(parts.join(' '));
      return true;
    },
  },
]);
