// opa.runtime: the runtime document (config, env, version, ...) the host supplies.

import { registerBuiltins } from './registry.js';
import { T } from './decl.js';

registerBuiltins([
  {
    name: 'opa.runtime',
    decl: { type: 'function', result: T.object(T.string, T.any) },
    nondeterministic: true,
    impure: true,
    fn: (_args, ctx) => ctx.runtime(),
  },
]);
