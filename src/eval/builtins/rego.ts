// rego.parse_module (OPA's JSON AST of a module) and rego.metadata.chain/rule.

import { registerBuiltins } from './registry.js';
import { operandError, builtinError } from './errors.js';
import { parseModule, moduleToJSON, RegoParseError } from '../../lang/index.js';
import type { Value } from '../../value/index.js';

registerBuiltins([
  {
    name: 'rego.parse_module',
    fn: ([filename, text]) => {
      if (typeof filename !== 'string') throw operandError(1, 'string', filename!);
      if (typeof text !== 'string') throw operandError(2, 'string', text!);
      try {
        const m = parseModule(text, { filename, regoVersion: 'v1' });
        return JSON.parse(JSON.stringify(moduleToJSON(m))) as Value;
      } catch (e) {
        if (e instanceof RegoParseError) throw builtinError(e.message);
        throw e;
      }
    },
  },
  {
    name: 'rego.metadata.chain', // no args key, as in OPA's capabilities
    impure: true,
    fn: (_args, ctx) => ctx.metadataChain(),
  },
  {
    name: 'rego.metadata.rule',
    impure: true,
    fn: (_args, ctx) => ctx.metadataRule(),
  },
]);
