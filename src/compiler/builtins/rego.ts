// Declarations of the rego built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "rego.metadata.chain", decl: { type: 'function', result: T.array(T.any) } },
  { name: "rego.metadata.rule", decl: { type: 'function', result: T.any } },
  { name: "rego.parse_module", decl: T.fn([T.string, T.string], T.object(T.string, T.any)) },
]);
