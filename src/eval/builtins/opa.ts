// opa.runtime: the runtime document (config, env, version, ...) the host supplies.

import { registerBuiltins } from './registry.js';

registerBuiltins([
  {
    name: 'opa.runtime',
    impure: true,
    fn: (_args, ctx) => ctx.runtime(),
  },
]);
